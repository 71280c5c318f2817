import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { computeTimeline } from './timeline'

const report = {
  timelines: [
    {
      level: 'D1',
      interval: 1000,
      series: { A: [5, 0, 1], 'heap@x.c:3': [1, 9, 0], c: [0, 0, 2], d: [1], quiet: [0, 0, 0] }
    }
  ]
} as unknown as RunReport

describe('computeTimeline', () => {
  it('bands the busiest structures, by their display names, and sums the rest', () => {
    const t = computeTimeline(report, 'D1', new Map([['heap@x.c:3', { label: 'table', site: 'heap@x.c:3' }]]), 3)!
    expect(t.count).toBe(3)
    expect(t.structures).toBe(4)
    expect(t.series.map((s) => [s.variable, s.label, s.values, s.total, s.peak])).toEqual([
      ['heap@x.c:3', 'table', [1, 9, 0], 10, 1],
      ['A', 'A', [5, 0, 1], 6, 0],
      // c and d (a shorter series, padded with zeros): the stack's top is every structure's misses.
      [null, '2 others', [1, 0, 2], 3, 2]
    ])
    expect(t.max).toBe(9)
  })
  it('is null for a level without a timeline', () => {
    expect(computeTimeline(report, 'LL', new Map())).toBeNull()
    expect(computeTimeline({} as RunReport, 'D1', new Map())).toBeNull()
  })
})
