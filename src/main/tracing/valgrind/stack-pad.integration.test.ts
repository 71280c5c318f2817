/**
 * The traced program's stack starts where Cachegrind's run of it has it, or whole 4 KiB pages
 * away (stack-pad.ts), with the allocator wrappers preloaded (Stride's default) and without:
 * line boundaries and first-level sets of stack variables are the same, so a function's misses
 * on its stack lines equal Cachegrind's. Both as a test harness runs them (no `_` in the
 * environment) and as from a shell (which sets `_` to the command it runs).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixedEnv, stride, tempDir } from '../../testing/cli-runner'
import { which } from '../../paths'

const dir = tempDir('stack-pad')
const env = fixedEnv(dir)
const program = join(dir, 'stack-top')

const stackOf = (stderr: string): bigint => {
  const m = /^stack (0x[0-9a-f]+)$/m.exec(stderr)
  if (!m) throw new Error(`no stack address in: ${stderr}`)
  return BigInt(m[1]!)
}

function underCachegrind(e: NodeJS.ProcessEnv): bigint {
  const r = spawnSync('valgrind', ['--tool=cachegrind', '--cachegrind-out-file=/dev/null', program], { env: e, encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return stackOf(r.stderr)
}

function underStride(e: NodeJS.ProcessEnv, extra: string[]): bigint {
  const r = stride(['trace', ...extra, '--out', join(dir, 's.stride'), '--force', '--launch', program], e)
  expect(r.status, r.stderr).toBe(0)
  return stackOf(r.stderr)
}

describe('the traced program\'s stack', () => {
  const cc = spawnSync('cc', ['-g', '-O1', '-o', program, join(__dirname, 'fixtures', 'stack-top.c')], { encoding: 'utf8' })

  it.each([
    ['a harness (no `_`)', env, env],
    ['a shell (`_` is the command run)', { ...env, _: process.execPath }, { ...env, _: which('valgrind') ?? '/usr/bin/valgrind' }]
  ])('starts where Cachegrind has it, or whole pages away, as from %s', (_how, strideEnv, cachegrindEnv) => {
    expect(cc.status, cc.stderr).toBe(0)
    const theirs = underCachegrind(cachegrindEnv)
    // Heap blocks tracked (the default): the wrappers' preload is padded to whole pages.
    const moved = theirs - underStride(strideEnv, [])
    expect(moved % 4096n, `moved by ${moved} bytes`).toBe(0n)
    expect(moved).toBeGreaterThan(0n)
    // Nothing added: the same address.
    expect(underStride(strideEnv, ['--no-heap'])).toBe(theirs)
  })
})
