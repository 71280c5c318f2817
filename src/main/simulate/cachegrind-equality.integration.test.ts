/**
 * The oracle: on every example's whole-program trace, the Cachegrind-compatible simulation
 * gives exactly Cachegrind's D1 read/write miss totals, and the same counts per line of the
 * example's own source, for two cache configurations.
 */
import { copyFileSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { example, fixedEnv, run, strideOk, tempDir } from '../testing/cli-runner'
import { parseCachegrindOut } from './oracle/cachegrind-out'

const EXAMPLES = ['conflict', 'conflict_padded', 'mult', 'reuse', 'micro']
const CONFIGS = [
  { size: 32768, assoc: 8, line: 64, spec: 'L1:32K:8:64' },
  { size: 131072, assoc: 2, line: 128, spec: 'L1:128K:2:128' }
]

const dir = tempDir('cg')

function sourceLine(key: string): string {
  const at = key.lastIndexOf(':')
  return readFileSync(key.slice(0, at), 'utf8').split('\n')[Number(key.slice(at + 1)) - 1]?.trim() ?? ''
}
const env = fixedEnv(dir)

describe.each(EXAMPLES)('Cachegrind equality: %s', (name) => {
  const program = example(name)
  const session = join(dir, `${name}.stride`)
  beforeAll(() => {
    // --no-heap: Cachegrind runs the program without Stride's malloc interposer, so must we.
    strideOk(['trace', '--launch', program, '--no-heap', '--out', session], env)
  })

  it.each(CONFIGS)('D1 $spec: totals and per-line counts equal', (cfg) => {
    const report = JSON.parse(strideOk(['simulate', session, '--cache', cfg.spec, '--cachegrind-compatible', '--json'], env)) as RunReport
    const outFile = join(dir, `${name}-${cfg.spec.replace(/:/g, '_')}.cg`)
    const cg = run('valgrind', ['--tool=cachegrind', '--cache-sim=yes', `--D1=${cfg.size},${cfg.assoc},${cfg.line}`, `--cachegrind-out-file=${outFile}`, program], env)
    expect(cg.status, cg.stderr).toBe(0)
    const oracle = parseCachegrindOut(readFileSync(outFile, 'utf8'))

    const l1 = report.levels[0]!
    expect({ Dr: l1.reads, D1mr: l1.readMisses, Dw: l1.writes, D1mw: l1.writeMisses }).toEqual(oracle.totals)

    // Every line of the examples' own sources (conflict_padded.c includes conflict.c).
    const sourceDir = dirname(dirname(program)) + '/'
    const ours = new Map(report.lines.filter((l) => l.file.startsWith(sourceDir)).map((l) => [`${l.file}:${l.line}`, l]))
    const theirs = [...oracle.lines].filter(([key, c]) => key.startsWith(sourceDir) && c.Dr + c.Dw > 0)
    expect(theirs.length, `Cachegrind saw no data access in ${sourceDir}`).toBeGreaterThan(0)
    for (const [key, c] of theirs) {
      const mine = ours.get(key)
      const got = { Dr: mine?.reads ?? 0, D1mr: mine?.levels.L1?.readMisses ?? 0, Dw: mine?.writes ?? 0, D1mw: mine?.levels.L1?.writeMisses ?? 0 }
      expect(got, `${key}: ${sourceLine(key)}`).toEqual(c)
    }
    // And nothing attributed to a source line on which Cachegrind saw no data access.
    for (const [key, l] of ours) {
      const c = oracle.lines.get(key)
      if (l.reads + l.writes > 0) expect((c?.Dr ?? 0) + (c?.Dw ?? 0), `${key} only in Stride`).toBeGreaterThan(0)
    }
  })
})

describe('Cachegrind equality: a C++ program at -O2 (vector, unordered_map, new[])', () => {
  it('every line of the program and of the libstdc++ headers inlined into it equals Cachegrind', () => {
    const program = join(dir, 'cxx_containers')
    const cc = run('g++', ['-g', '-O2', '-o', program, join(__dirname, 'fixtures', 'cxx_containers.cpp')], env)
    expect(cc.status, cc.stderr).toBe(0)
    const session = join(dir, 'cxx.stride')
    strideOk(['trace', '--launch', program, '--no-heap', '--out', session], env)
    const report = JSON.parse(strideOk(['simulate', session, '--cache', 'L1:32K:8:64', '--cachegrind-compatible', '--json'], env)) as RunReport
    const outFile = join(dir, 'cxx.cg')
    expect(run('valgrind', ['--tool=cachegrind', '--cache-sim=yes', '--D1=32768,8,64', `--cachegrind-out-file=${outFile}`, program], env).status).toBe(0)
    const oracle = parseCachegrindOut(readFileSync(outFile, 'utf8'))
    const mine = (key: string) => {
      const l = report.lines.find((x) => `${x.file}:${x.line}` === key)
      return { Dr: l?.reads ?? 0, D1mr: l?.levels.L1?.readMisses ?? 0, Dw: l?.writes ?? 0, D1mw: l?.levels.L1?.writeMisses ?? 0 }
    }
    const keys = new Set([...[...oracle.lines].filter(([, c]) => c.Dr + c.Dw > 0).map(([k]) => k), ...report.lines.filter((l) => l.reads + l.writes > 0).map((l) => `${l.file}:${l.line}`)])
    const compared = [...keys].filter((k) => k.includes('cxx_containers.cpp') || k.includes('/include/c++/'))
    expect(compared.length).toBeGreaterThan(30)
    for (const key of compared) expect(mine(key), key).toEqual(oracle.lines.get(key) ?? { Dr: 0, D1mr: 0, Dw: 0, D1mw: 0 })
  })
})

describe('Cachegrind equality: a sweep (three caches, one pass per worker, two workers)', () => {
  it('stores one run per configuration, in order, each equal to its own Cachegrind run', () => {
    const program = example('micro')
    const session = join(dir, 'sweep.stride')
    strideOk(['trace', '--launch', program, '--no-heap', '--out', session], env)
    const sweep = [...CONFIGS, { size: 16384, assoc: 4, line: 32, spec: 'L1:16K:4:32' }]
    const out = JSON.parse(strideOk(['simulate', session, ...sweep.flatMap((c) => ['--config', c.spec]), '--jobs', '2', '--cachegrind-compatible', '--json'], env)) as { runs: RunReport[] }
    expect(out.runs.map((r) => r.levels[0]!.name)).toEqual(['L1', 'L1', 'L1'])
    expect(new Set(out.runs.map((r) => r.run)).size).toBe(3)
    sweep.forEach((cfg, i) => {
      const outFile = join(dir, `sweep-${i}.cg`)
      expect(run('valgrind', ['--tool=cachegrind', '--cache-sim=yes', `--D1=${cfg.size},${cfg.assoc},${cfg.line}`, `--cachegrind-out-file=${outFile}`, program], env).status).toBe(0)
      const l1 = out.runs[i]!.levels[0]!
      expect({ Dr: l1.reads, D1mr: l1.readMisses, Dw: l1.writes, D1mw: l1.writeMisses }, cfg.spec).toEqual(parseCachegrindOut(readFileSync(outFile, 'utf8')).totals)
      expect(out.runs[i]!.config.levels[0]!.size).toBe(cfg.size)
    })
    // The runs are in the .stride file itself (its write-ahead log folded in): a copy of that
    // one file, as a user makes it, holds all three.
    const copy = join(dir, 'sweep-copy.stride')
    copyFileSync(session, copy)
    const info = JSON.parse(strideOk(['info', copy, '--json'], env)) as { runs: Array<{ run: number }> }
    expect(info.runs.map((r) => r.run).sort()).toEqual(out.runs.map((r) => r.run).sort())
  })
})
