import { copyFileSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PointeeShape, ProgramVariables } from './gdb-variables'
import { isProgramVariables, keptPointeeShapes, keptProgramVariables } from './kept-layout'

const LAYOUT: ProgramVariables = {
  globals: { A: { type: 'double [64][64]', size: 32768, elementSize: 8, dims: [64, 64] } },
  frames: { main: [{ name: 'i', offset: -20, type: 'int', size: 4, elementSize: 4, dims: null }] }
}

/** A program to key on (any ELF file: the reads are the fake's) and a reader that counts its calls. */
function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'stride-kept-layout-'))
  const program = join(dir, 'prog')
  copyFileSync('/bin/true', program)
  const calls: Array<[string[], Array<[string, number]>]> = []
  const read = async (_: string, globals: string[], functions: Array<[string, number]>) => {
    calls.push([globals, functions])
    return structuredClone(LAYOUT)
  }
  const cache = join(dir, 'cache')
  return { program, calls, options: { dir: cache, read }, cache }
}

describe("the program's variables kept across traces of the same build", () => {
  it('are read by gdb once, then from the kept file', async () => {
    const { program, calls, options } = setUp()
    expect(await keptProgramVariables(program, ['A'], [['main', 0x1139]], options)).toEqual(LAYOUT)
    expect(await keptProgramVariables(program, ['A'], [['main', 0x1139]], options)).toEqual(LAYOUT)
    expect(calls).toHaveLength(1)
  })

  it('are read again for a rebuilt program, whose file replaces the old one', async () => {
    const { program, calls, options, cache } = setUp()
    await keptProgramVariables(program, ['A'], [['main', 0x1139]], options)
    utimesSync(program, new Date(), new Date(Date.now() + 5000))
    await keptProgramVariables(program, ['A'], [['main', 0x1139]], options)
    expect(calls).toHaveLength(2)
    expect(readdirSync(cache)).toHaveLength(1)
  })

  it('are read again for another request (other globals or functions)', async () => {
    const { program, calls, options } = setUp()
    await keptProgramVariables(program, ['A'], [['main', 0x1139]], options)
    await keptProgramVariables(program, ['A', 'B'], [['main', 0x1139]], options)
    await keptProgramVariables(program, ['A', 'B'], [['main', 0x1140]], options)
    expect(calls).toHaveLength(3)
  })

  it('are read again, and the file rewritten, when the kept file is damaged or not of their form', async () => {
    const { program, calls, options, cache } = setUp()
    await keptProgramVariables(program, ['A'], [['main', 0x1139]], options)
    const file = join(cache, readdirSync(cache)[0]!)
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { key: string; content: unknown }
    writeFileSync(file, JSON.stringify({ key: kept.key, content: { globals: { A: { type: 'int' } }, frames: {} } }))
    expect(await keptProgramVariables(program, ['A'], [['main', 0x1139]], options)).toEqual(LAYOUT)
    writeFileSync(file, '{"key":')
    expect(await keptProgramVariables(program, ['A'], [['main', 0x1139]], options)).toEqual(LAYOUT)
    expect(calls).toHaveLength(3)
    expect(JSON.parse(readFileSync(file, 'utf8')).content).toEqual(LAYOUT)
  })

  it('a program that cannot be identified is simply read', async () => {
    const { calls, options } = setUp()
    const missing = join(tmpdir(), 'stride-no-such-program')
    expect(await keptProgramVariables(missing, [], [], options)).toEqual(LAYOUT)
    expect(await keptProgramVariables(missing, [], [], options)).toEqual(LAYOUT)
    expect(calls).toHaveLength(2)
  })
})

describe("heap blocks' pointer types kept across traces of the same build", () => {
  const SHAPES: Array<PointeeShape | null> = [{ pointer: 'double (*)[56]', pointee: { type: 'double [56]', size: 448, elementSize: 8, dims: [56] } }, null]
  it('are read by gdb once per request, then from the kept file; a damaged file is read again', async () => {
    const { program, cache } = setUp()
    const calls: unknown[] = []
    const read = async (_: string, pointers: Array<{ name: string; pc: number }>) => {
      calls.push(pointers)
      return structuredClone(SHAPES)
    }
    const asked = [{ name: 'A', pc: 0x1139 }, { name: 's->buf', pc: 0x1200 }]
    expect(await keptPointeeShapes(program, asked, { dir: cache, read })).toEqual(SHAPES)
    expect(await keptPointeeShapes(program, asked, { dir: cache, read })).toEqual(SHAPES)
    expect(calls).toHaveLength(1)
    await keptPointeeShapes(program, asked.slice(0, 1), { dir: cache, read: async () => [SHAPES[0]!] })
    expect(await keptPointeeShapes(program, asked, { dir: cache, read })).toEqual(SHAPES)
    expect(calls).toHaveLength(2)
    const file = join(cache, readdirSync(cache).find((n) => readFileSync(join(cache, n), 'utf8').includes('pointees'))!)
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { key: string }
    writeFileSync(file, JSON.stringify({ key: kept.key, content: [{ pointer: 'double *', pointee: { size: -1 } }, null] }))
    expect(await keptPointeeShapes(program, asked, { dir: cache, read })).toEqual(SHAPES)
    expect(calls).toHaveLength(3)
  })
})

describe('isProgramVariables', () => {
  it.each([
    ['gdb\'s answer', LAYOUT, true],
    ['no variables', { globals: {}, frames: {} }, true],
    ['null', null, false],
    ['no frames', { globals: {} }, false],
    ['a global without a size', { globals: { A: { type: 'int', elementSize: 4, dims: null } }, frames: {} }, false],
    ['dims that are not whole', { globals: { A: { type: 'int', size: 4, elementSize: 4, dims: [1.5] } }, frames: {} }, false],
    ['a local without an offset', { globals: {}, frames: { f: [{ name: 'x', type: 'int', size: 4, elementSize: 4, dims: null }] } }, false],
    ['frames not a list', { globals: {}, frames: { f: {} } }, false]
  ])('%s', (_, value, ok) => {
    expect(isProgramVariables(value)).toBe(ok)
  })
})

describe('the kept programs', () => {
  it('stay at most `keep`, the least recently written removed first', async () => {
    const { program, options, cache } = setUp()
    const others = Array.from({ length: 4 }, (_, i) => {
      const p = `${program}-${i}`
      copyFileSync(program, p)
      return p
    })
    for (const p of others) await keptProgramVariables(p, [], [], { ...options, keep: 3 })
    expect(readdirSync(cache)).toHaveLength(3)
    // The oldest written (others[0]) is gone: gdb reads it again; the newest is still kept.
    const calls: string[] = []
    const counting = { ...options, keep: 3, read: async (p: string) => (calls.push(p), structuredClone(LAYOUT)) }
    await keptProgramVariables(others[3]!, [], [], counting)
    await keptProgramVariables(others[0]!, [], [], counting)
    expect(calls).toEqual([others[0]])
  })
})
