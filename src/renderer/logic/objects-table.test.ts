import { describe, expect, it } from 'vitest'
import type { ObjectsReport } from '../../shared/domain'
import { absenceGroups, computeObjectsTable, describeCost, describeRho } from './objects-table'

const report: ObjectsReport = {
  session: '/s.stride',
  run: 1,
  level: 'L1',
  accesses: 100,
  totalMisses: 10,
  exact: { method: 'exact', kind: 'exact', objects: [{ name: 'A', kind: 'global', misses: 6, fraction: 0.6, rank: 1 }, { name: 'B', kind: 'global', misses: 4, fraction: 0.4, rank: 2 }], rho: null, cost: { seconds: 0.5 }, notes: [] },
  methods: [
    { method: 'sample:7', kind: 'sample', objects: [{ name: 'B', kind: 'global', misses: 5, fraction: 0.5, rank: 1 }, { name: 'A', kind: 'global', misses: 5, fraction: 0.5, rank: 2 }], rho: -1, cost: { samples: 2, period: 7, seconds: 0.001 }, notes: [] },
    { method: 'approx:raw', kind: 'approx-raw', objects: [{ name: 'i', kind: 'stack', misses: 10, fraction: 1, rank: 1 }], rho: 0.1, cost: { samples: 10, seconds: 2.5 }, notes: ['n'], coverage: '10 instruction samples over the whole run', absent: { A: 'read through a pointer', B: 'read through a pointer' } }
  ],
  perf: { supported: false, reason: 'no counter' }
}

describe('computeObjectsTable', () => {
  it("rows in exact's order, then what only a method found; one cell per method", () => {
    const t = computeObjectsTable(report)
    expect(t.rows.map((r) => r.name)).toEqual(['A', 'B', 'i'])
    expect(t.rows[0]!.estimates).toEqual([{ fraction: 0.5, rank: 2 }, null])
    expect(t.rows[2]!.exact).toBeNull()
    expect(t.rows[2]!.kind).toBe('stack')
    expect(t.methods.map((m) => m.method)).toEqual(['sample:7', 'approx:raw'])
  })

  it('keeps each method\'s coverage and groups the reasons for its empty cells', () => {
    const t = computeObjectsTable(report)
    expect(t.methods[0]!.coverage).toBeNull()
    expect(t.methods[1]!.coverage).toBe('10 instruction samples over the whole run')
    expect(absenceGroups(t.methods[1]!, ['A', 'B', 'i'])).toEqual([{ reason: 'read through a pointer', names: ['A', 'B'] }])
    expect(absenceGroups(t.methods[0]!, ['A', 'B'])).toEqual([])
  })

  it('describes cost and rho', () => {
    expect(describeCost(report.methods[0]!)).toBe('2 samples · 1 in 7 · 1 ms')
    expect(describeCost(report.methods[1]!)).toBe('10 samples · 2.5 s')
    expect(describeRho(0.95)).toBe('0.95 (same order)')
    expect(describeRho(null)).toBe('n/a')
  })
})
