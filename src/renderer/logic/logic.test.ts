import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { splitArgs } from './args'
import { cacheFormWarnings, nextLevelDraft, parseCacheForm, parseMaxEvents } from './cache-form'
import { bucketBounds, computeHeat, computeHeatRuns, nextHotLine } from './heat'
import { computeLineValues } from './heat-metrics'
import { computeLineMetrics } from './line-metrics'
import { createTableModel, pickRows, type TableSort } from './data-table'
import { computeReferenceRows, computeSourceFiles, REFERENCE_SORT_COLUMNS } from './references'

const report: RunReport = {
  run: 1,
  config: {
    levels: [
      { name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' },
      { name: 'L2', size: 262144, assoc: 8, lineSize: 64, policy: 'lru' }
    ],
    cachegrindCompatible: false
  },
  levels: [],
  lines: [
    { file: 'a.c', line: 29, function: 'f', reads: 100, writes: 0, levels: { L1: { readMisses: 1, writeMisses: 0 }, L2: { readMisses: 1, writeMisses: 0 } } },
    { file: 'a.c', line: 30, function: 'f', reads: 300, writes: 0, levels: { L1: { readMisses: 300, writeMisses: 0 }, L2: { readMisses: 3, writeMisses: 0 } } },
    { file: 'b.c', line: 5, function: 'g', reads: 10, writes: 10, levels: { L1: { readMisses: 2, writeMisses: 2 }, L2: { readMisses: 0, writeMisses: 0 } } }
  ],
  references: [
    { id: 'A_Read_0', pc: '0x1', kind: 'read', file: 'a.c', line: 30, function: 'f', variable: 'A', reads: 100, writes: 0, levels: { L1: { hits: 0, misses: 100, readMisses: 100, writeMisses: 0 } } },
    { id: 'i_Read_10', pc: '0x2', kind: 'read', file: 'a.c', line: 29, function: 'f', variable: null, reads: 100, writes: 0, levels: { L1: { hits: 99, misses: 1, readMisses: 1, writeMisses: 0 } } },
    { id: 'x_Read_2', pc: '0x3', kind: 'read', file: null, line: null, function: null, variable: null, reads: 5, writes: 0, levels: {} }
  ]
}
report.levels = report.config.levels.map((l) => ({ name: l.name, reads: 0, writes: 0, readMisses: 0, writeMisses: 0 }))

describe('line metrics', () => {
  it('derives hits and local ratios per level', () => {
    const m = computeLineMetrics(report, 'a.c').get(30)!
    expect(m.levels[0]).toMatchObject({ name: 'L1', accesses: 300, hits: 0, misses: 300, ratio: 1 })
    expect(m.levels[1]).toMatchObject({ name: 'L2', accesses: 300, hits: 297, misses: 3, ratio: 0.01 })
    expect(computeLineValues(report, 'a.c', 'L2', 'misses').get(30)).toBe(3)
  })
})

describe('heat', () => {
  it('puts the maximum in the top bucket with a full bar, and zero at nothing', () => {
    const h = computeHeat(new Map([[1, 0], [2, 10], [3, 100]]))
    expect(h.hottest).toBe(3)
    expect(h.lines.get(3)).toEqual({ bucket: 5, bar: 20, value: 100, sign: 1 })
    expect(h.lines.get(2)).toMatchObject({ bucket: 1, bar: 2 })
    expect(h.lines.get(1)).toMatchObject({ bucket: 0, bar: 0 })
  })
  it('has no hottest line when everything is zero', () => {
    expect(computeHeat(new Map([[1, 0]])).hottest).toBeNull()
  })
  it('paints diffs by magnitude with their direction', () => {
    const h = computeHeat(new Map([[1, -100], [2, 20], [3, 0]]), true)
    expect(h.hottest).toBe(1)
    expect(h.lines.get(1)).toMatchObject({ bucket: 5, sign: -1 })
    expect(h.lines.get(2)).toMatchObject({ bucket: 1, sign: 1 })
    expect(h.order).toEqual([1, 2])
  })
  it('walks lines from hottest down and wraps, starting at the top from anywhere else', () => {
    const h = computeHeat(new Map([[10, 5], [20, 50], [30, 7], [40, 0]]))
    expect(h.order).toEqual([20, 30, 10])
    expect(nextHotLine(h, null, 1)).toBe(20)
    expect(nextHotLine(h, 20, 1)).toBe(30)
    expect(nextHotLine(h, 10, 1)).toBe(20)
    expect(nextHotLine(h, 20, -1)).toBe(10)
    expect(nextHotLine(h, 40, 1)).toBe(20)
    expect(nextHotLine(computeHeat(new Map()), null, 1)).toBeNull()
  })
})

describe('heat runs', () => {
  it('merges consecutive lines of one color and keeps gaps and direction changes apart', () => {
    const h = computeHeat(new Map([[1, 100], [2, 100], [3, 100], [5, 100], [6, 10], [7, 0]]))
    expect(computeHeatRuns(h)).toEqual([
      { start: 1, end: 3, bucket: 5, sign: 1 },
      { start: 5, end: 5, bucket: 5, sign: 1 },
      { start: 6, end: 6, bucket: 1, sign: 1 }
    ])
    const d = computeHeat(new Map([[1, -5], [2, 5]]), true)
    expect(computeHeatRuns(d).map((r) => r.sign)).toEqual([-1, 1])
  })
})

describe('heat metrics', () => {
  const r: RunReport = {
    ...report,
    config: { levels: [{ name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false },
    references: [
      { ...report.references[0]!, levels: { L1: { hits: 50, misses: 50, readMisses: 50, writeMisses: 0, temporalHits: 10, spatialHits: 40, usedBytes: 16 * 64, lineEnds: 50 } }, streams: { regularity: 1 } as never },
      { ...report.references[0]!, id: 'B_Read_1', reads: 300, levels: { L1: { hits: 0, misses: 300, readMisses: 300, writeMisses: 0, temporalHits: 0, spatialHits: 0, usedBytes: 300 * 8, lineEnds: 300 } }, streams: { regularity: 0.5 } as never, evictors: [{ level: 'L1', by: 'A_Read_0', count: 40, fraction: 0.4 }, { level: 'L1', by: 'B_Read_1', count: 60, fraction: 0.6 }] }
    ]
  }
  it('rolls reference metrics up to lines, weighted as METRIC defines them', () => {
    // Bytes unused of 350 fetched 64-byte lines: (350*64 - (1024 + 2400)) / (350*64).
    expect(computeLineValues(r, 'a.c', 'L1', 'spatialWaste').get(30)).toBeCloseTo(1 - 3424 / 22400, 9)
    expect(computeLineValues(r, 'a.c', 'L1', 'temporalShare').get(30)).toBeCloseTo(10 / 50, 9)
    // Access-weighted: 100 accesses fully regular, 300 half.
    expect(computeLineValues(r, 'a.c', 'L1', 'irregularity').get(30)).toBeCloseTo((0 * 100 + 0.5 * 300) / 400, 9)
    expect(computeLineValues(r, 'a.c', 'L1', 'evictionsCaused').get(30)).toBe(100)
  })
  it('leaves lines without the data unpainted', () => {
    expect(computeLineValues(report, 'a.c', 'L1', 'temporalShare').size).toBe(0)
    expect(computeLineValues(report, 'a.c', 'L1', 'delta', new Map([[30, -5]])).get(30)).toBe(-5)
  })
})

describe('references', () => {
  const sortReferenceRows = (rows: ReturnType<typeof computeReferenceRows>, sort: TableSort) => pickRows(rows, createTableModel(rows, REFERENCE_SORT_COLUMNS).sorted(sort))
  it('builds rows with a pc location when lines are unknown, sorted by misses', () => {
    const rows = sortReferenceRows(computeReferenceRows(report, 'L1'), { key: 'misses', dir: 'desc' })
    expect(rows.map((r) => r.location)).toEqual(['a.c:30', 'a.c:29', '0x3'])
    expect(rows[2]!.ratio).toBeNull()
  })
  it('sorts ids naturally', () => {
    const rows = sortReferenceRows(computeReferenceRows(report, 'L1'), { key: 'id', dir: 'asc' })
    expect(rows.map((r) => r.id)).toEqual(['A_Read_0', 'i_Read_10', 'x_Read_2'])
  })
  it('sorts locations by file, then line as a number, rows without a line last', () => {
    const rows = sortReferenceRows(computeReferenceRows(report, 'L1'), { key: 'location', dir: 'asc' })
    expect(rows.map((r) => r.location)).toEqual(['a.c:29', 'a.c:30', '0x3'])
  })
  it('opens the most-missed file first', () => {
    expect(computeSourceFiles(report)).toEqual(['a.c', 'b.c'])
  })
})

describe('forms', () => {
  it('accepts the default cache and rejects a non power-of-two set count', () => {
    const ok = parseCacheForm([{ name: 'L1', size: '32K', assoc: '8', lineSize: '64' }], true)
    expect(ok).toEqual({ ok: true, config: { levels: [{ name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: true } })
    const bad = parseCacheForm([{ name: 'L1', size: '48K', assoc: '8', lineSize: '64' }], false)
    expect(bad.ok).toBe(false)
  })
  it('reads max events with suffixes, empty meaning no limit', () => {
    expect(parseMaxEvents('')).toEqual({ ok: true, value: null })
    expect(parseMaxEvents('1M')).toEqual({ ok: true, value: 1e6 })
    expect(parseMaxEvents('1,000')).toEqual({ ok: true, value: 1000 })
    expect(parseMaxEvents('-3').ok).toBe(false)
  })
  it('splits arguments with quotes', () => {
    expect(splitArgs(`a "b c" 'd e' f\\ g ""`)).toEqual(['a', 'b c', 'd e', 'f g', ''])
  })
})

describe('log heat steps for counts', () => {
  it('a 1-miss line and a 20,000-miss line never share a color; fractions stay linear', () => {
    const h = computeHeat(new Map([[1, 1], [2, 20], [3, 400], [4, 20_000]]), false, 'log')
    expect([1, 2, 3, 4].map((l) => h.lines.get(l)!.bucket)).toEqual([1, 2, 4, 5])
    // The gutter bar stays proportional.
    expect(h.lines.get(1)!.bar).toBe(1)
    expect(h.lines.get(4)!.bar).toBe(20)
    const linear = computeHeat(new Map([[1, 1], [2, 20_000]]))
    expect(linear.lines.get(1)!.bucket).toBe(1)
    expect(linear.scale).toBe('linear')
  })

  it('the legend bounds cover 0..max on either scale', () => {
    const log = bucketBounds(20_000, 'log')
    expect(log).toHaveLength(5)
    expect(log[0]!.from).toBe(0)
    expect(log[4]!.to).toBeCloseTo(20_000, 6)
    expect(log[1]!.from).toBeCloseTo(Math.expm1(Math.log1p(20_000) / 5), 9)
    expect(bucketBounds(1, 'linear').map((b) => b.to)).toEqual([0.2, 0.4, 0.6, 0.8, 1])
  })
})

describe('adding a cache level', () => {
  it('never proposes lines smaller than the inner level, and warns when the user picks them', () => {
    const l1 = { name: 'L1', size: '32K', assoc: '8', lineSize: '128' }
    expect(nextLevelDraft([l1]).lineSize).toBe('128')
    expect(nextLevelDraft([{ ...l1, lineSize: '32' }]).lineSize).toBe('64')
    expect(cacheFormWarnings([l1, { name: 'L2', size: '256K', assoc: '8', lineSize: '64' }])).toEqual([
      "L2's 64-byte lines are smaller than L1's 128-byte lines: each L1 miss then fetches several L2 lines (allowed, but real hierarchies do not do this)."
    ])
    expect(cacheFormWarnings([l1, { name: 'L2', size: '256K', assoc: '8', lineSize: '128' }])).toEqual([])
  })
})
