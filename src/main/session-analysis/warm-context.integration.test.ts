/**
 * Whole-program cache context (issue 46): a function-scoped trace's first simulation is warmed
 * by the rest of the program, so the chosen function's misses equal Cachegrind's per line of
 * the function, all four counts (Dr, Dw, D1mr, D1mw), in the default mode; `--no-context` gives
 * the cold, function-only run (the stored trace alone, as every what-if replays it) and every
 * view says which is which. The programs (fixtures/) touch other data before and between the
 * calls, so a cold run differs from Cachegrind on them (checked: the test cannot pass by
 * simulating the function alone). Heap blocks are tracked (the default): the wrappers'
 * preload is padded so that the stack moves by whole pages (tracing/valgrind/stack-pad.ts).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { fixedEnv, run, strideOk, tempDir } from '../testing/cli-runner'
import { parseCachegrindOut } from '../simulate/oracle/cachegrind-out'

const FIXTURES = join(__dirname, 'fixtures')
const dir = tempDir('warm-context')
const env = fixedEnv(dir)
const D1 = ['--cache', 'L1:32K:8:64', '--cachegrind-compatible']

type Counts = { Dr: number; Dw: number; D1mr: number; D1mw: number }

function compile(source: string, flags: string[]): string {
  const out = join(dir, source.replace(/\.\w+$/, ''))
  const cc = run(source.endsWith('.cpp') ? 'g++' : 'cc', ['-g', ...flags, '-o', out, join(FIXTURES, source)], env)
  expect(cc.status, cc.stderr).toBe(0)
  return out
}

/** Per line of `file` within `lines`, the four counts of a Stride report. */
function strideLines(report: RunReport, file: string, lines: [number, number]): Map<number, Counts> {
  const out = new Map<number, Counts>()
  for (const l of report.lines)
    if (l.file.endsWith(`/${file}`) && l.line >= lines[0] && l.line <= lines[1])
      out.set(l.line, { Dr: l.reads, Dw: l.writes, D1mr: l.levels.L1?.readMisses ?? 0, D1mw: l.levels.L1?.writeMisses ?? 0 })
  return out
}

/** The same from Cachegrind's run of the program (lines with no data access left out, as Stride has none). */
function cachegrindLines(program: string, file: string, lines: [number, number]): Map<number, Counts> {
  const outFile = `${program}.cg`
  const cg = run('valgrind', ['--tool=cachegrind', '--cache-sim=yes', '--D1=32768,8,64', `--cachegrind-out-file=${outFile}`, program], env)
  expect(cg.status, cg.stderr).toBe(0)
  const out = new Map<number, Counts>()
  for (const [key, c] of parseCachegrindOut(readFileSync(outFile, 'utf8')).lines) {
    const at = key.lastIndexOf(':')
    const line = Number(key.slice(at + 1))
    if (key.slice(0, at).endsWith(`/${file}`) && line >= lines[0] && line <= lines[1] && c.Dr + c.Dw > 0)
      out.set(line, { Dr: c.Dr, Dw: c.Dw, D1mr: c.D1mr, D1mw: c.D1mw })
  }
  return out
}

const sorted = (m: Map<number, Counts>) => [...m.entries()].sort((a, b) => a[0] - b[0])

const CASES = [
  // A PolyBench-style kernel, -O2, not inlined; the function's lines in the source.
  { source: 'polykernel.c', flags: ['-O2'], fn: 'kernel_mm', lines: [7, 13] as [number, number] },
  { source: 'polykernel.c', flags: ['-O1'], fn: 'kernel_mm', lines: [7, 13] as [number, number] },
  // A zlib-like match search over a window and a hash chain, main filling other data around it.
  { source: 'window.c', flags: ['-O1'], fn: 'longest_matches', lines: [12, 30] as [number, number] },
  // A C++ method; its caller works with std::vector and std::map between the calls.
  { source: 'cppmethod.cpp', flags: ['-O2'], fn: 'Histogram::accumulate', lines: [12, 20] as [number, number] }
]

describe.each(CASES)('a function-scoped trace warmed by the whole program: $fn ($source $flags)', (c) => {
  it('equals Cachegrind per line of the function, Dr, Dw, D1mr and D1mw; --no-context is the cold run, labelled so', () => {
    const program = compile(c.source, c.flags)
    const tag = `${c.fn.replace(/\W/g, '_')}${c.flags.join('')}`
    const warmed = join(dir, `${tag}.stride`)
    const cold = join(dir, `${tag}-cold.stride`)
    strideOk(['trace', '--functions', c.fn, ...D1, '--out', warmed, '--launch', program], env)
    strideOk(['trace', '--functions', c.fn, '--no-context', ...D1, '--out', cold, '--launch', program], env)
    const report = (session: string, run = 1) => JSON.parse(strideOk(['report', session, '--run', String(run), '--by', 'line', '--json'], env)) as RunReport

    const theirs = cachegrindLines(program, c.source, c.lines)
    expect(theirs.size).toBeGreaterThan(0)
    const ours = strideLines(report(warmed), c.source, c.lines)
    expect(sorted(ours)).toEqual(sorted(theirs))
    expect(report(warmed).cacheContext).toBe('whole-program')

    // Cold: the same accesses, other misses (the rest of the program mattered), and it says so.
    const coldLines = strideLines(report(cold), c.source, c.lines)
    expect([...coldLines].map(([l, x]) => [l, x.Dr, x.Dw])).toEqual([...ours].map(([l, x]) => [l, x.Dr, x.Dw]))
    expect(sorted(coldLines)).not.toEqual(sorted(theirs))
    expect(report(cold).cacheContext).toBe('function-only')
    expect(strideOk(['report', cold, '--by', 'line'], env)).toMatch(/^run 1: .*\(cold, function-only\)$/m)
    expect(strideOk(['report', warmed, '--by', 'line'], env)).toMatch(/^run 1: .*\(warmed by the whole program\)$/m)

    // A what-if replays the stored trace alone: the cold run's figures, labelled cold.
    strideOk(['simulate', warmed, ...D1], env)
    expect(sorted(strideLines(report(warmed, 2), c.source, c.lines))).toEqual(sorted(coldLines))
    const info = strideOk(['info', warmed], env)
    expect(info).toMatch(/run 1 .*\(warmed by the whole program\)/)
    expect(info).toMatch(/run 2 .*\(cold, function-only\)/)
  })
})

describe('--no-context', () => {
  it('is refused without --functions, in one line naming the fix', () => {
    const r = run('node', [join(__dirname, '..', '..', '..', 'out', 'main', 'cli.js'), 'trace', '--no-context', '--out', join(dir, 'x.stride'), '--launch', '/bin/true'], env)
    expect(r.status).not.toBe(0)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/--no-context .*--functions/)
  })
})
