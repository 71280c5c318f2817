/** readElf's symbols are nm's, whether nm takes `--plugin /dev/null` (no LTO plugin loaded) or not. */
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { parseNm } from './elf-parse'

const dir = mkdtempSync(join(tmpdir(), 'stride-elf-reader-'))
const program = join(dir, 'prog')
writeFileSync(join(dir, 'prog.c'), 'double table[512];\nstatic int counter;\nint bump(int x) { return counter += x; }\nint main(void) { table[3] = bump(2); return 0; }\n')
const cc = spawnSync('cc', ['-g', '-O2', '-o', program, join(dir, 'prog.c')], { encoding: 'utf8' })

/** What the plain `nm -S --defined-only` says of the program. */
const plain = () => parseNm(spawnSync('nm', ['-S', '--defined-only', program], { encoding: 'utf8' }).stdout)

describe('readElf symbols', () => {
  const path = process.env.PATH
  afterEach(() => {
    process.env.PATH = path
    vi.resetModules()
  })

  it('are the plain nm call\'s', async () => {
    expect(cc.status, cc.stderr).toBe(0)
    const { readElf } = await import('./elf-reader')
    const info = await readElf(program)
    expect(info.functions).toEqual(plain().functions)
    expect(info.data).toEqual(plain().data)
    expect(info.data.map((d) => d.name)).toEqual(expect.arrayContaining(['table', 'counter']))
  })

  it('also from an nm that refuses --plugin (the plain call is made instead)', async () => {
    const fake = mkdtempSync(join(tmpdir(), 'stride-fake-nm-'))
    const real = spawnSync('sh', ['-c', 'command -v nm'], { encoding: 'utf8' }).stdout.trim()
    writeFileSync(join(fake, 'nm'), `#!/bin/sh\ncase "$1" in --plugin) echo "nm: unrecognized option '--plugin'" >&2; exit 1;; esac\nexec ${real} "$@"\n`)
    chmodSync(join(fake, 'nm'), 0o755)
    process.env.PATH = `${fake}:${path}`
    const { readElf } = await import('./elf-reader')
    const info = await readElf(program)
    expect(info.functions).toEqual(plain().functions)
    expect(info.functions.map((f) => f.name)).toEqual(expect.arrayContaining(['main', 'bump']))
  })
})
