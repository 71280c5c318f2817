import { describe, expect, it } from 'vitest'
import type { PointRecord } from '../store/session-writer'
import type { ElfInfo } from './elf-reader'
import { namePoints } from './name-points'

// A program (no line tables: nothing runs but the naming) with two functions, and the data
// structure each instruction's accesses fall in.
const program: ElfInfo = {
  path: '/x/mult',
  relocatable: true,
  hasDebugInfo: false,
  functions: [
    { name: 'init', start: 0x1100, size: 0x80 },
    { name: 'do_mult', start: 0x1200, size: 0x100 }
  ],
  data: []
}
const modules = [{ path: '/x/mult', base: 0x400000, start: 0x400000, end: 0x402000 }]
const VARIABLE: Record<number, string> = { 0x401110: 'a', 0x401214: 'a', 0x40121c: 'b', 0x401230: 'c' }

/** The instructions (runtime pc, kind) in the order a trace discovered them: the idx is that order. */
async function names(found: Array<[number, number]>): Promise<Map<string, string>> {
  const points: PointRecord[] = found.map(([pc, kind], idx) => ({ idx, pc, kind, accesses: 1, firstAddress: 0 }))
  const named = await namePoints(points, modules, program, (idx) => VARIABLE[points[idx]!.pc] ?? null)
  return new Map(points.map((p) => [`${p.pc.toString(16)}/${p.kind}`, named[p.idx]!.refId]))
}

describe('reference names', () => {
  const all: Array<[number, number]> = [
    [0x401110, 1],
    [0x401214, 0],
    [0x40121c, 0],
    [0x401230, 0],
    [0x401230, 1],
    [0x401240, 0]
  ]

  it('name a point by its function and offset, the same whatever order the trace found the points in', async () => {
    const first = await names(all)
    expect([...first.values()]).toEqual(['a_Write@init+0x10', 'a_Read@do_mult+0x14', 'b_Read@do_mult+0x1c', 'c_Read@do_mult+0x30', 'c_Write@do_mult+0x30', 'unknown_Read@do_mult+0x40'])
    expect(await names([...all].reverse())).toEqual(first)
    expect(await names([all[3]!, all[0]!, all[5]!, all[1]!, all[4]!, all[2]!])).toEqual(first)
  })

  it('name a point alone as with its neighbours (a function-scoped trace, a shorter one)', async () => {
    const first = await names(all)
    for (const point of all) expect((await names([point])).get(`${point[0].toString(16)}/${point[1]}`)).toBe(first.get(`${point[0].toString(16)}/${point[1]}`))
    // The function's points without the other function's.
    const scoped = await names(all.slice(1))
    for (const [k, v] of scoped) expect(v).toBe(first.get(k))
  })

  it('name a point outside any function by its object and address, outside any object by its pc', async () => {
    const got = await names([
      [0x401000, 0],
      [0x7f0000001000, 0]
    ])
    expect([...got.values()]).toEqual(['unknown_Read@mult+0x1000', 'unknown_Read@0x7f0000001000'])
  })
})
