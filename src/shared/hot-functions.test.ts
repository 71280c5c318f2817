import { describe, expect, it } from 'vitest'
import type { ReferenceStats, RunReport } from './domain'
import { rankHotFunctions, SELF_COSTS_NOTE } from './hot-functions'

function ref(id: string, fn: string | null, reads: number, writes: number, d1: [number, number], ll: [number, number]): ReferenceStats {
  return {
    id,
    pc: '0x1',
    kind: writes > 0 ? 'write' : 'read',
    file: null,
    line: null,
    function: fn,
    variable: null,
    reads,
    writes,
    levels: {
      D1: { hits: reads + writes - d1[0] - d1[1], misses: d1[0] + d1[1], readMisses: d1[0], writeMisses: d1[1] },
      LL: { hits: 0, misses: ll[0] + ll[1], readMisses: ll[0], writeMisses: ll[1] }
    }
  }
}

const report = (references: ReferenceStats[], d1Misses: number): RunReport => ({
  run: 3,
  config: {
    levels: [
      { name: 'D1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' },
      { name: 'LL', size: 1 << 20, assoc: 16, lineSize: 64, policy: 'lru' }
    ],
    cachegrindCompatible: false
  },
  levels: [
    { name: 'D1', reads: 1000, writes: 500, readMisses: d1Misses, writeMisses: 0 },
    { name: 'LL', reads: d1Misses, writes: 0, readMisses: 10, writeMisses: 0 }
  ],
  lines: [],
  references
})

describe('rankHotFunctions', () => {
  const run = report(
    [
      ref('A_Read_9@init+0x4', 'init', 100, 400, [0, 50], [0, 5]),
      ref('B_Read_20@do_mult+0x10', 'do_mult', 300, 0, [100, 0], [1, 0]),
      ref('A_Modify_20@do_mult+0x18', 'do_mult', 200, 100, [40, 0], [2, 0]),
      ref('unknown_Read@libc.so.6:memcpy+0x1a', 'memcpy', 20, 0, [10, 0], [2, 0]),
      ref('unknown_Read@ns::f+0x2', 'ns::f', 5, 0, [0, 0], [0, 0]),
      ref('unknown_Read@0x7f00', null, 1, 0, [0, 0], [0, 0])
    ],
    200
  )
  const ranked = rankHotFunctions(run)

  it('ranks functions by first-level misses, summing their references (self costs)', () => {
    expect(ranked.functions.map((f) => f.function)).toEqual(['do_mult', 'init', 'memcpy', 'ns::f', '(no symbol)'])
    expect(ranked.functions.map((f) => f.rank)).toEqual([1, 2, 3, 4, 5])
    const top = ranked.functions[0]!
    expect(top).toMatchObject({ reads: 500, writes: 100, misses: { D1: 140, LL: 3 }, traceName: 'do_mult', library: null })
    expect(top.share).toBeCloseTo(0.7)
    expect(ranked.functions[1]!.misses).toEqual({ D1: 50, LL: 5 })
  })

  it('says what --functions takes: LIBRARY:function for another object, nothing without a symbol', () => {
    const byName = new Map(ranked.functions.map((f) => [f.function, f]))
    expect(byName.get('memcpy')).toMatchObject({ traceName: 'libc.so.6:memcpy', library: 'libc.so.6' })
    expect(byName.get('ns::f')).toMatchObject({ traceName: 'ns::f', library: null })
    expect(byName.get('(no symbol)')!.traceName).toBeNull()
  })

  it("gives the run's first level and totals, and never inclusive costs", () => {
    expect(ranked).toMatchObject({ run: 3, level: 'D1', accesses: 1500, totalMisses: 200, inclusive: false, note: SELF_COSTS_NOTE })
  })

  it('breaks ties by accesses, then by name; a run without misses has shares of 0', () => {
    const r = rankHotFunctions(report([ref('x_Read@b+0x1', 'b', 5, 0, [0, 0], [0, 0]), ref('x_Read@a+0x1', 'a', 5, 0, [0, 0], [0, 0]), ref('x_Read@c+0x1', 'c', 9, 0, [0, 0], [0, 0])], 0))
    expect(r.functions.map((f) => f.function)).toEqual(['c', 'a', 'b'])
    expect(r.functions.every((f) => f.share === 0)).toBe(true)
  })
})
