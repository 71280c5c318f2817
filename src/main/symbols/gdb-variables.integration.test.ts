import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { example, tempDir } from '../testing/cli-runner'
import { readElf } from './elf-reader'
import { readProgramVariables } from './gdb-variables'

describe('gdb variables', () => {
  it('reads global array dimensions and element sizes', async () => {
    const v = await readProgramVariables(example('mult'), ['A', 'B'], [])
    expect(v.globals.A).toMatchObject({ type: 'double [1000][1000]', size: 8_000_000, elementSize: 8, dims: [1000, 1000] })
  })

  it('finds in-memory locals at frame-base offsets', async () => {
    const dir = tempDir('vars')
    const bin = join(dir, 'locals')
    const r = spawnSync('cc', ['-g', '-O1', '-o', bin, join(__dirname, '..', 'correlate', 'fixtures', 'locals.c')], { encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    const elf = await readElf(bin)
    const scale = elf.functions.find((f) => f.name === 'scale')!
    const v = await readProgramVariables(bin, ['G'], [['scale', scale.start]])
    const local = v.frames.scale?.find((l) => l.name === 'local')
    expect(local).toMatchObject({ size: 512, elementSize: 8, dims: [64] })
    expect(local!.offset).toBeLessThan(0)
  })
})
