import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { splitArgs } from './args'
import { parseCacheForm, parseMaxEvents } from './cache-form'
import { computeHeat } from './heat'
import { computeLineMetrics, lineMetricValue } from './line-metrics'
import { computeReferenceRows, computeSourceFiles, sortReferenceRows } from './references'

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
    expect(lineMetricValue(m, 'L2', 'misses')).toBe(3)
  })
})

describe('heat', () => {
  it('puts the maximum in the top bucket with a full bar, and zero at nothing', () => {
    const h = computeHeat(new Map([[1, 0], [2, 10], [3, 100]]))
    expect(h.hottest).toBe(3)
    expect(h.lines.get(3)).toEqual({ bucket: 5, bar: 20, value: 100 })
    expect(h.lines.get(2)).toMatchObject({ bucket: 1, bar: 2 })
    expect(h.lines.get(1)).toMatchObject({ bucket: 0, bar: 0 })
  })
  it('has no hottest line when everything is zero', () => {
    expect(computeHeat(new Map([[1, 0]])).hottest).toBeNull()
  })
})

describe('references', () => {
  it('builds rows with a pc location when lines are unknown, sorted by misses', () => {
    const rows = sortReferenceRows(computeReferenceRows(report, 'L1'), { key: 'misses', dir: 'desc' })
    expect(rows.map((r) => r.location)).toEqual(['a.c:30', 'a.c:29', '0x3'])
    expect(rows[2]!.ratio).toBeNull()
  })
  it('sorts ids naturally', () => {
    const rows = sortReferenceRows(computeReferenceRows(report, 'L1'), { key: 'id', dir: 'asc' })
    expect(rows.map((r) => r.id)).toEqual(['A_Read_0', 'i_Read_10', 'x_Read_2'])
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
