import { appendFileSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SourceLocation } from './elf-parse'
import { cachedSourceLocations } from './symbol-cache'

/** A stand-in for sourceLocations that records what it was asked. */
function namer() {
  const asked: number[][] = []
  const compute = async (_path: string, addresses: number[]): Promise<SourceLocation[]> => {
    asked.push(addresses)
    return addresses.map((a) => (a % 3 === 0 ? { file: null, line: null } : { file: `f${a}.c`, line: a, disasm: `mov ${a}` }))
  }
  return { asked, compute }
}

describe('system objects\' source locations kept across traces', () => {
  const root = mkdtempSync(join(tmpdir(), 'stride-symcache-'))
  const object = join(root, 'libfake.so.6')
  writeFileSync(object, 'not really an ELF file')

  it('names only what it has not kept, and answers the same as naming everything', async () => {
    const dir = join(root, 'a')
    const first = namer()
    const want = await first.compute(object, [0x10, 0x12, 0x30, 0x10])
    first.asked.length = 0
    expect(await cachedSourceLocations(object, [0x10, 0x12, 0x30, 0x10], { dir, compute: first.compute })).toEqual(want)
    expect(first.asked).toEqual([[0x10, 0x12, 0x30]])
    const second = namer()
    expect(await cachedSourceLocations(object, [0x30, 0x12, 0x40], { dir, compute: second.compute })).toEqual([want[2], want[1], { file: 'f64.c', line: 64, disasm: 'mov 64' }])
    expect(second.asked).toEqual([[0x40]])
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  it('names again when the cache file is damaged, or the object changed', async () => {
    const dir = join(root, 'b')
    const n = namer()
    await cachedSourceLocations(object, [1, 2], { dir, compute: n.compute })
    const [file] = readdirSync(dir)
    writeFileSync(join(dir, file!), '{"format":1,"key":')
    expect(await cachedSourceLocations(object, [1, 2], { dir, compute: n.compute })).toEqual([{ file: 'f1.c', line: 1, disasm: 'mov 1' }, { file: 'f2.c', line: 2, disasm: 'mov 2' }])
    expect(n.asked).toEqual([[1, 2], [1, 2]])
    await cachedSourceLocations(object, [1, 2], { dir, compute: n.compute })
    expect(n.asked).toHaveLength(2)
    appendFileSync(object, ' upgraded')
    await cachedSourceLocations(object, [1, 2], { dir, compute: n.compute })
    expect(n.asked).toEqual([[1, 2], [1, 2], [1, 2]])
  })

  it('an object it cannot identify is named every time, and nothing is written', async () => {
    const dir = join(root, 'c')
    const n = namer()
    await cachedSourceLocations(join(root, 'gone.so'), [5], { dir, compute: n.compute })
    await cachedSourceLocations(join(root, 'gone.so'), [5], { dir, compute: n.compute })
    expect(n.asked).toEqual([[5], [5]])
  })
})
