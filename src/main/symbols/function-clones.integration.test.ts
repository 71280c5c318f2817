/**
 * `--functions NAME` with GCC's clones (C, -O2): kernel traced through kernel.constprop.0, and
 * a kernel inlined into main everywhere named as such, with the caller to trace instead.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixedEnv, sessionInfo, stride, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('clones')
const env = fixedEnv(dir)

function build(source: string, flags: string[]): { program: string; symbols: string[]; line: (marker: string) => number } {
  const file = join(__dirname, 'fixtures', source)
  const program = join(dir, source.replace(/\.c$/, ''))
  const cc = spawnSync('cc', ['-g', '-O2', ...flags, '-o', program, file], { encoding: 'utf8' })
  expect(cc.status, cc.stderr).toBe(0)
  const nm = spawnSync('nm', [program], { encoding: 'utf8' })
  const symbols = nm.stdout.split('\n').map((l) => l.split(' ')[2] ?? '').filter(Boolean)
  const lines = readFileSync(file, 'utf8').split('\n')
  return { program, symbols, line: (marker) => lines.findIndex((l) => l.includes(marker)) + 1 }
}

describe('GCC clones of C functions', () => {
  it('--functions kernel traces kernel.constprop.0 when no "kernel" is left', () => {
    const { program, symbols, line } = build('clone_kernel.c', ['-fno-inline'])
    // The case under test: the clone alone (else the test would pass without clones).
    expect(symbols).toContain('kernel.constprop.0')
    expect(symbols).not.toContain('kernel')
    const session = join(dir, 'clone.stride')
    const out = strideOk(['trace', '--launch', program, '--functions', 'kernel', '--out', session, '--cache', 'L1:32K:8:64'], env)
    expect(out).toMatch(/^\d+ events/m)
    const info = sessionInfo(session, env)
    const kernelLine = line('KERNEL LINE')
    const onLine = info.points.filter((p) => p.line === kernelLine).reduce((n, p) => n + p.accesses, 0)
    // Two calls over 4096 doubles: x read and written, y read (vectorised or not, >= 4096).
    expect(onLine).toBeGreaterThanOrEqual(4096)
    expect(info.points.every((p) => p.function === 'kernel.constprop.0')).toBe(true)
  })

  it('a function inlined everywhere: one line naming where, and the caller to trace', () => {
    const { program, symbols, line } = build('inlined_kernel.c', [])
    expect(symbols.some((s) => s.startsWith('kernel_2mm'))).toBe(false)
    const r = stride(['trace', '--launch', program, '--functions', 'kernel_2mm', '--out', join(dir, 'inl.stride')], env)
    expect(r.status).toBe(2)
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(new RegExp(`"kernel_2mm" .*inlined it into main \\(inlined_kernel\\.c:${line('CALL LINE')}\\).*\\(--functions main\\)`))
    expect(r.stderr).not.toMatch(/^\s+at /m) // no stack trace
  })
})
