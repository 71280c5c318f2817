/**
 * The oracle for code-change what-ifs (DESIGN.md): a what-if's loop transform on a recorded
 * trace against Cachegrind on the same program transformed by hand and compiled.
 *
 * The comparison: the D1 read misses and write misses (each separately) of the transformed
 * nest's source lines, summed (Stride: the what-if run's per-line counts in the original
 * file on the nest's lines; Cachegrind: its per-line counts in the hand-transformed file on
 * its nest's lines), must agree within 1% of Cachegrind's. Both simulate D1 32K 8-way 64B
 * the Cachegrind way (--cachegrind-compatible) over whole-program runs, so everything before
 * the nest (the same initialisation) leaves both caches in the same state. The untransformed
 * run is checked to differ, so the test cannot pass by simulating the recorded order.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../../shared/domain'
import { fixedEnv, run, stride, strideOk, tempDir } from '../../testing/cli-runner'
import { parseCachegrindOut } from '../oracle/cachegrind-out'

const FIXTURES = join(__dirname, 'fixtures')
const dir = tempDir('xform')
const env = fixedEnv(dir)
const D1 = { spec: 'L1:32K:8:64', cachegrind: '--D1=32768,8,64' }

function compile(name: string): string {
  const out = join(dir, name)
  const cc = run('cc', ['-g', '-O1', '-o', out, join(FIXTURES, `${name}.c`)], env)
  expect(cc.status, cc.stderr).toBe(0)
  return out
}

interface Misses {
  read: number
  write: number
}

/** Stride's misses on `lines` of `file` (matched by its name) in a run's report. */
function strideMisses(report: RunReport, file: string, lines: [number, number]): Misses {
  const out = { read: 0, write: 0 }
  for (const l of report.lines)
    if (l.file.endsWith(`/${file}`) && l.line >= lines[0] && l.line <= lines[1]) {
      out.read += l.levels.L1?.readMisses ?? 0
      out.write += l.levels.L1?.writeMisses ?? 0
    }
  return out
}

function cachegrindMisses(program: string, file: string, lines: [number, number]): Misses {
  const outFile = `${program}.cg`
  const cg = run('valgrind', ['--tool=cachegrind', '--cache-sim=yes', D1.cachegrind, `--cachegrind-out-file=${outFile}`, program], env)
  expect(cg.status, cg.stderr).toBe(0)
  const out = { read: 0, write: 0 }
  for (const [key, c] of parseCachegrindOut(readFileSync(outFile, 'utf8')).lines) {
    const at = key.lastIndexOf(':')
    const line = Number(key.slice(at + 1))
    if (key.slice(0, at).endsWith(`/${file}`) && line >= lines[0] && line <= lines[1]) {
      out.read += c.D1mr
      out.write += c.D1mw
    }
  }
  return out
}

const within1pct = (got: number, want: number) => Math.abs(got - want) <= 0.01 * want

const CASES = [
  // name, transform, the nest's lines in the original, the hand-transformed program and its nest's lines
  { name: 'colwalk', transform: 'interchange:colwalk.c:11', lines: [11, 13] as [number, number], by: 'colwalk_interchanged', byLines: [10, 12] as [number, number] },
  { name: 'matmul', transform: 'interchange:matmul.c:12', lines: [12, 14] as [number, number], by: 'matmul_ikj', byLines: [10, 12] as [number, number] },
  { name: 'transpose', transform: 'tile:transpose.c:10:16', lines: [10, 12] as [number, number], by: 'transpose_tiled', byLines: [10, 14] as [number, number] }
]

describe.each(CASES)('a what-if transform against Cachegrind on the program transformed by hand: $name ($transform)', (c) => {
  it('the nest\'s D1 read and write misses agree within 1%, and differ from the untransformed run', () => {
    const session = join(dir, `${c.name}.stride`)
    // --no-heap: Cachegrind runs the program without Stride's malloc interposer, so must we.
    strideOk(['trace', '--launch', compile(c.name), '--no-heap', '--out', session], env)
    const base = JSON.parse(strideOk(['simulate', session, '--cache', D1.spec, '--cachegrind-compatible', '--json'], env)) as RunReport
    const whatIf = JSON.parse(strideOk(['simulate', session, '--cache', D1.spec, '--cachegrind-compatible', '--transform', c.transform, '--json'], env)) as RunReport
    const file = `${c.name}.c`
    const ours = strideMisses(whatIf, file, c.lines)
    const theirs = cachegrindMisses(compile(c.by), `${c.by}.c`, c.byLines)
    expect(theirs.read + theirs.write).toBeGreaterThan(0)
    expect(within1pct(ours.read, theirs.read), `read misses: what-if ${ours.read}, Cachegrind ${theirs.read}`).toBe(true)
    expect(within1pct(ours.write, theirs.write), `write misses: what-if ${ours.write}, Cachegrind ${theirs.write}`).toBe(true)
    const recorded = strideMisses(base, file, c.lines)
    expect(recorded.read + recorded.write, 'the transform changes the nest\'s misses').toBeGreaterThan(1.5 * (ours.read + ours.write))
    // The run says what it simulated.
    const runs = strideOk(['runs', session], env)
    expect(runs).toMatch(c.transform.startsWith('tile') ? /tile loops at transpose\.c:10 by 16/ : new RegExp(`interchange loops at ${c.name}\\.c:\\d+`))
  })
})

describe('nests a transform refuses, with the reason, simulating nothing', () => {
  const session = join(dir, 'irregular.stride')
  const refusal = (transform: string) => {
    const r = stride(['simulate', session, '--cache', D1.spec, '--transform', transform], env)
    expect(r.status).not.toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    return r.stderr.trim()
  }

  it('an indirect index, a data-dependent bound and a dependence the new order would reverse', () => {
    strideOk(['trace', '--launch', compile('irregular'), '--no-heap', '--out', session], env)
    const before = strideOk(['runs', session], env)
    expect(refusal('interchange:irregular.c:11')).toMatch(/Cannot interchange the loops at irregular\.c:11: .*\(a\[i\]\[idx\[j\]\]\) is not affine in the loop indices.*an indirect index.*nothing was simulated\.$/)
    expect(refusal('tile:irregular.c:20:8')).toMatch(/Cannot tile the loops at irregular\.c:20 by 8: the inner loop's trip count varies \(\d+ iterations, then \d+.*a data-dependent bound; nothing was simulated\.$/)
    // skew: a[i][j] = a[i - 1][j + 1] + 1 reads at (i, j) what (i - 1, j + 1) wrote; interchanged, the read comes first.
    expect(refusal('interchange:irregular.c:28')).toMatch(/Cannot interchange the loops at irregular\.c:28: it would reverse a dependence the recorded addresses show: .*\(a\[i\]\[j\]\) writes 0x[0-9a-f]+ at iteration \(outer \d+, inner \d+\), which .*\(a\[i - 1\]\[j \+ 1\]\) accesses at iteration .*; nothing was simulated\.$/)
    // No run was stored.
    expect(strideOk(['runs', session], env)).toBe(before)
  })

  it('a line with no nest, a file without accesses and a malformed spec', () => {
    expect(refusal('interchange:irregular.c:3')).toMatch(/no loop is on or around line 3/)
    expect(refusal('interchange:other.c:10')).toMatch(/no recorded access is in other\.c/)
    expect(refusal('tile:irregular.c:10')).toMatch(/must look like tile:FILE:LINE:B/)
  })
})
