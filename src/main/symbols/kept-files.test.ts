import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { forgetElfReads, readElf } from './elf-reader'

/** A system library every Debian machine has. */
const LIBM = '/lib/x86_64-linux-gnu/libm.so.6'

describe('system libraries\' symbols kept across traces', () => {
  const before = process.env.STRIDE_CACHE
  const cache = mkdtempSync(join(tmpdir(), 'stride-kept-'))
  process.env.STRIDE_CACHE = cache
  afterAll(() => {
    if (before === undefined) delete process.env.STRIDE_CACHE
    else process.env.STRIDE_CACHE = before
    forgetElfReads()
  })

  it('are read once, then from the kept file; a damaged file is read again from the library', async () => {
    forgetElfReads()
    const read = await readElf(LIBM)
    expect(read.functions.length).toBeGreaterThan(100)
    const [file] = readdirSync(join(cache, 'elf'))
    const path = join(cache, 'elf', file!)
    const kept = JSON.parse(readFileSync(path, 'utf8')) as { key: string; content: typeof read }
    expect(kept.content).toEqual(read)
    // Marked: a second process (here: the per-process reads forgotten) answers from the file.
    kept.content.functions[0]!.name = 'from-the-kept-file'
    writeFileSync(path, JSON.stringify(kept))
    forgetElfReads()
    expect((await readElf(LIBM)).functions[0]!.name).toBe('from-the-kept-file')
    writeFileSync(path, '{"key":')
    forgetElfReads()
    expect(await readElf(LIBM)).toEqual(read)
    expect(JSON.parse(readFileSync(path, 'utf8')).content).toEqual(read)
  })

  it('the program\'s own objects are read every time, never kept', async () => {
    const own = join(mkdtempSync(join(tmpdir(), 'stride-own-')), 'libown.so')
    copyFileSync(LIBM, own)
    forgetElfReads()
    const before = readdirSync(join(cache, 'elf')).length
    expect((await readElf(own)).functions.length).toBeGreaterThan(100)
    expect(readdirSync(join(cache, 'elf'))).toHaveLength(before)
  })
})
