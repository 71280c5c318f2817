/**
 * The papers' use cases as exact shapes (METRIC section 10, SIGMA 4.1), each on the bundled
 * example written for it, traced with --functions as METRIC traces partial programs.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ReferenceStats, RunReport } from '../../shared/domain'
import { example, fixedEnv, stride, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('metric')
const env = fixedEnv(dir)

function trace(name: string, functions: string): string {
  const session = join(dir, `${name}.stride`)
  strideOk(['trace', '--launch', example(name), '--functions', functions, '--out', session], env)
  return session
}
const simulate = (session: string, ...args: string[]) => JSON.parse(strideOk(['simulate', session, ...args, '--json'], env)) as RunReport & { baseline?: number }
const sum = (refs: ReferenceStats[], f: (r: ReferenceStats) => number) => refs.reduce((s, r) => s + f(r), 0)
const missRatio = (refs: ReferenceStats[], level = 'L1') => sum(refs, (r) => r.levels[level]?.misses ?? 0) / sum(refs, (r) => r.reads + r.writes)

describe('METRIC 10.3 (sumfunc, L1 128K / 2-way / 128-byte lines, LRU, write-back)', () => {
  let conflict = ''
  let padded = ''
  beforeAll(() => {
    conflict = trace('conflict', 'sumfunc')
    padded = trace('conflict_padded', 'sumfunc')
  })
  const line30 = (r: RunReport) => r.references.filter((x) => x.line === 30 && x.kind === 'read')

  it('the three reads conflict and miss on at least 99.9% of accesses; their evictors form a cycle', () => {
    const report = simulate(conflict, '--cache', 'L1:128K:2:128')
    const reads = line30(report)
    // The paper's A_Read_0, B_Read_1, C_Read_2: its numbers counted references as instrumented;
    // Stride's say the line and the instruction's place in sumfunc, the same in every session.
    expect(reads.map((r) => r.id.replace(/@sumfunc\+0x[0-9a-f]+$/, '')).sort()).toEqual(['A_Read_30', 'B_Read_30', 'C_Read_30'])
    expect(sum(reads, (r) => r.reads)).toBe(3 * 8192)
    expect(missRatio(reads)).toBeGreaterThanOrEqual(0.999)
    for (const r of reads) expect(r.levels.L1!.spatialReuse).toBeCloseTo(0.0625, 4)
    // Each one's top evictor is one of the other two, and following top evictors visits all three.
    const top = new Map(reads.map((r) => [r.id, r.evictors![0]!]))
    for (const [id, e] of top) {
      expect(e.by).not.toBe(id)
      expect(e.fraction).toBeGreaterThan(0.99)
    }
    const seen = new Set<string>()
    const start = reads.find((r) => r.id.startsWith('A_Read_'))!.id
    let at = start
    for (let i = 0; i < 3; i++) {
      seen.add(at)
      at = top.get(at)!.by
    }
    expect(at).toBe(start)
    expect(seen.size).toBe(3)
  })

  it('external padding of 1 KiB after each array (filter): 1 miss in 16, within 0.1% of the padded build', () => {
    const filtered = simulate(conflict, '--cache', 'L1:128K:2:128', '--pad', 'B=1024', '--pad', 'C=1024')
    const real = simulate(padded, '--cache', 'L1:128K:2:128')
    const a = missRatio(line30(filtered))
    const b = missRatio(line30(real))
    expect(Math.abs(a - 1 / 16)).toBeLessThan(0.002)
    expect(Math.abs(a - b) / b).toBeLessThan(0.001)
    expect(filtered.baseline).toBeGreaterThan(0)
  })

  it('report --against compares the padded build with the unpadded session by data structure', () => {
    // Both sessions hold run 1 (128K/2-way/128) from the tests above; runs of another session match by name.
    const diff = JSON.parse(strideOk(['report', padded, '--run', '1', '--against', `${conflict}:1`, '--json'], env)) as {
      variables: { key: string; levels: Record<string, { before: number; after: number; delta: number }> }[]
    }
    for (const name of ['A', 'B', 'C']) {
      const v = diff.variables.find((d) => d.key === name)!.levels.L1!
      expect(v.before).toBe(8192)
      expect(v.after / v.before).toBeCloseTo(1 / 16, 2)
    }
    expect(stride(['report', padded, '--against', join(dir, 'missing.stride')], env).stderr).toMatch(/missing\.stride/)
  })
})

describe('METRIC 10.2 (do_mult, L1 32K / 2-way / 128-byte lines)', () => {
  let report: RunReport
  beforeAll(() => {
    report = simulate(trace('mult', 'do_mult'), '--cache', 'L1:32K:2:128')
  })
  const main = (variable: string, kind: string) => {
    // The loop body's reference of that kind (most accesses; the compiler adds a few edge ones).
    const refs = report.references.filter((r) => r.variable === variable && r.kind === kind).sort((a, b) => b.reads + b.writes - (a.reads + a.writes))
    return refs[0]!
  }
  it("B's read misses on every access, spatial reuse 0.0625", () => {
    const b = main('B', 'read')
    expect(b.reads).toBeGreaterThanOrEqual(999000)
    expect(b.levels.L1!.misses / b.reads).toBeGreaterThan(0.999)
    expect(b.levels.L1!.spatialReuse).toBeCloseTo(0.0625, 3)
  })
  it("A's read misses 1 in 16 with spatial reuse about 1.0", () => {
    const a = main('A', 'read')
    expect(Math.abs(a.levels.L1!.misses / a.reads - 0.0625)).toBeLessThan(0.0015)
    expect(a.levels.L1!.spatialReuse).toBeGreaterThan(0.98)
  })
  it("A's write always hits, all temporal", () => {
    const w = main('A', 'write')
    expect(w.levels.L1!.misses).toBe(0)
    expect(w.levels.L1!.temporalHits).toBe(w.writes)
  })
})

describe('METRIC 10.1 (do_sum + do_mult, 256K / 8-way / 128-byte lines)', () => {
  let report: RunReport
  beforeAll(() => {
    report = simulate(trace('reuse', 'do_sum,do_mult'), '--cache', 'L2:256K:8:128')
  })
  it('the indirect reads of C and D miss more than 80% and are the top evictors of A, B and ind', () => {
    const indirect = report.references.filter((r) => (r.variable === 'C' || r.variable === 'D') && r.kind === 'read')
    expect(indirect.length).toBeGreaterThanOrEqual(2)
    for (const r of indirect) expect(r.levels.L2!.misses / r.reads).toBeGreaterThan(0.8)
    const ids = new Set(indirect.map((r) => r.id))
    const victims = report.references.filter((r) => ['A', 'B', 'ind'].includes(r.variable ?? '') && r.kind === 'read' && (r.evictors ?? []).length > 0)
    expect(new Set(victims.map((r) => r.variable))).toEqual(new Set(['A', 'B', 'ind']))
    for (const r of victims) {
      const fromIndirect = r.evictors!.filter((e) => ids.has(e.by)).reduce((s, e) => s + e.fraction, 0)
      expect(ids.has(r.evictors![0]!.by), `${r.id} top evictor ${r.evictors![0]!.by}`).toBe(true)
      expect(fromIndirect).toBeGreaterThan(0.5)
    }
  })
})

describe('SIGMA 4.1 micro-benchmarks (128-byte lines, 4 KiB pages)', () => {
  let report: RunReport
  beforeAll(() => {
    const session = trace('micro', 'sequential_stores,random_loads,multiple_random_loads')
    // The example's L1 (32K/8-way, 128-byte lines as on the Power3) and the Power3's 256-entry 2-way data TLB.
    report = simulate(session, '--cache', 'L1:32K:8:128', '--tlb', 'DTLB:256:2:4K')
  })
  const of = (fn: string, variable: string) => report.references.filter((r) => r.function === fn && r.variable === variable)
  const misses = (refs: ReferenceStats[], level: string) => sum(refs, (r) => r.levels[level]?.misses ?? 0)
  it('sequential stores of 1M doubles: 65,536 store misses and 2,048 TLB misses', () => {
    const b = of('sequential_stores', 'B')
    expect(sum(b, (r) => r.writes)).toBe(1 << 20)
    // 8 MiB is 65,536 lines and 2,048 pages; B is only 32-byte aligned, so it may straddle one more of each.
    expect(sum(b, (r) => r.levels.L1!.writeMisses)).toBeGreaterThanOrEqual(65536)
    expect(sum(b, (r) => r.levels.L1!.writeMisses)).toBeLessThanOrEqual(65537)
    expect(misses(b, 'DTLB')).toBeGreaterThanOrEqual(2048)
    expect(misses(b, 'DTLB')).toBeLessThanOrEqual(2049)
  })
  it('random loads of 1K indices: about 1K L1 and TLB misses', () => {
    const b = of('random_loads', 'B')
    expect(sum(b, (r) => r.reads)).toBe(1024)
    expect(misses(b, 'L1')).toBeGreaterThan(0.95 * 1024)
    expect(misses(b, 'DTLB')).toBeGreaterThan(0.8 * 1024)
    expect(misses(b, 'DTLB')).toBeLessThanOrEqual(1024)
  })
  it('multiple random loads: about 16K L1 and 2K TLB misses', () => {
    const b = of('multiple_random_loads', 'B')
    expect(sum(b, (r) => r.reads)).toBe(16 * 1024)
    expect(misses(b, 'L1')).toBeGreaterThan(0.95 * 16384)
    expect(misses(b, 'L1')).toBeLessThanOrEqual(16384)
    expect(misses(b, 'DTLB')).toBeGreaterThan(0.8 * 2048)
    expect(misses(b, 'DTLB')).toBeLessThanOrEqual(2048)
  })
})
