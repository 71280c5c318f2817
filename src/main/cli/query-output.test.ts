import { describe, expect, it } from 'vitest'
import type { QuerySlice } from '../../shared/domain'
import { sliceTable } from './query-output'

/** A slice as runSliceQuery returns it: misses (a count) and miss_ratio (derived) per cell. */
function slice(query: string, data: string[], code: string[], cells: Array<Array<[number | null, number | null]>>): QuerySlice {
  return {
    run: 1,
    query,
    reduction: 'sum',
    data,
    code,
    metrics: ['misses', 'miss_ratio'],
    derived: [false, true],
    cells: cells.map((row) => row.map(([m, r]) => [m, r])),
    byData: [],
    byCode: [],
    total: [cells.flat().reduce((a, [m]) => a + (m ?? 0), 0), null],
    resimulated: false,
    elapsedMs: 1
  }
}

describe('stride query text table', () => {
  const wild = slice('[{*},{*},{misses,miss_ratio}]', ['A', 'B'], ['main', 'init', 'step'], [
    [[120, 0.5], [0, 0], [0, null]],
    [[0, null], [3, 0.01], [0, 0]]
  ])

  it('leaves out the cells a * brought in whose every metric is 0 or has no value, and counts them', () => {
    const lines = sliceTable(wild)
    expect(lines[0]).toBe('[{*},{*},{misses,miss_ratio}]  (sum, run 1)')
    expect(lines.slice(2, -1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([['A', 'main', '120'], ['B', 'init', '3'], ['sum', '123', '-']])
    expect(lines.at(-1)).toBe('... and 4 more cells that * brought in, every metric 0 (--all lists them).')
  })

  it('lists every cell with --all, and keeps the columns aligned', () => {
    const lines = sliceTable(wild, true)
    expect(lines).toHaveLength(2 + 6 + 1)
    expect(new Set(lines.slice(1).map((l) => l.length)).size).toBe(1)
    expect(lines[1]!.split(/\s+/)).toEqual(['data', 'code', 'misses', 'miss_ratio'])
    expect(lines[2]!.split(/\s+/)).toEqual(['A', 'main', '120', '0.5000'])
    expect(lines[4]!.split(/\s+/)).toEqual(['A', 'step', '0', '-'])
    expect(lines[4]!.endsWith(' -')).toBe(true) // numbers right-aligned
  })

  it('prints a cell named on both axes even when it is empty, and leaves out only what * brought in', () => {
    const named = slice('[{A,*},{init},{misses,miss_ratio}]', ['A', 'B', 'C'], ['init'], [[[0, 0]], [[0, null]], [[5, 0.2]]])
    const lines = sliceTable(named)
    expect(lines.slice(2, -2).map((l) => l.split(/\s+/)[0])).toEqual(['A', 'C'])
    expect(lines.at(-1)).toBe('... and 1 more cell that * brought in, every metric 0 (--all lists them).')
    const sections = slice('[{"c"[*,1]},{*},{misses,miss_ratio}]', ['c[*,1]'], ['main', 'init'], [[[0, 0], [0, 0]]])
    expect(sliceTable(sections)).toHaveLength(2 + 1 + 1)
  })

  it('adds no last line when nothing is left out', () => {
    const full = slice('[{A},{main},{misses,miss_ratio}]', ['A'], ['main'], [[[0, 0]]])
    expect(sliceTable(full)).toHaveLength(4)
    expect(sliceTable(full).at(-1)).toMatch(/^sum/)
  })
})
