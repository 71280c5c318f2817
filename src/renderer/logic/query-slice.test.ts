import { describe, expect, it } from 'vitest'
import type { QuerySlice, RunReport } from '../../shared/domain'
import { filterAxisOptions, filterCodeNodes, computeSliceAxes, computeSliceBars, computeSliceShares, computeSliceTable, selectionFromText, textFromSelection, toggleItem, type SliceSelection } from './query-slice'

const report = {
  run: 1,
  config: { levels: [{ name: 'L1', size: 131072, assoc: 2, lineSize: 128, policy: 'lru' }, { name: 'L2', size: 1 << 20, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false },
  levels: [],
  lines: [
    { file: '/x/conflict.c', line: 30, function: 'sumfunc', reads: 3, writes: 0, levels: {} },
    { file: '/x/conflict.c', line: 33, function: 'sumfunc', reads: 1, writes: 0, levels: {} }
  ],
  references: [
    { id: 'A_Read_0', pc: '0x1', kind: 'read', file: '/x/conflict.c', line: 30, function: 'sumfunc', variable: 'A', reads: 10, writes: 0, levels: {} },
    { id: 'B_Read_1', pc: '0x2', kind: 'read', file: '/x/conflict.c', line: 30, function: 'sumfunc', variable: 'B', reads: 20, writes: 0, levels: {} },
    { id: 'x_Read_2', pc: '0x3', kind: 'read', file: '/x/conflict.c', line: 33, function: 'sumfunc', variable: null, reads: 1, writes: 0, levels: {} }
  ],
  variables: [{ name: 'A', kind: 'global', start: '0x10', size: 8, type: 'double [1]', elementSize: 8, dims: [1], allocSite: null, reads: 0, writes: 0 }],
  loops: [{ id: 1, function: 'sumfunc', start: '0x1', end: '0x2', depth: 1, parent: null, file: '/x/conflict.c', line: 30, references: [] }]
} as unknown as RunReport

describe('computeSliceAxes', () => {
  it('lists data structures busiest first, a code tree file -> function -> loops and lines, metrics per level', () => {
    const axes = computeSliceAxes(report)
    expect(axes.data.map((d) => d.item)).toEqual(['*', 'B', 'A', 'unknown'])
    expect(axes.data[2]!.detail).toBe('double [1] · 10 accesses')
    const file = axes.code[1]!
    expect(file.item).toBe('conflict.c')
    expect(file.children[0]!.item).toBe('sumfunc')
    expect(file.children[0]!.children.map((c) => c.item)).toEqual(['loop@conflict.c:30', 'conflict.c:30', 'conflict.c:33'])
    expect(axes.metrics.map((m) => m.item)).toContain('L2.misses')
    expect(axes.metrics.map((m) => m.item)).not.toContain('tlb_misses')
  })

  it('lists each loop once per function, nested, and a site-named heap block by its source name', () => {
    const loops = [
      { id: 1, function: 'sumfunc', start: '0x1', end: '0x2', depth: 0, parent: null, file: '/x/conflict.c', line: 28, references: [] },
      ...[2, 3, 4].map((id) => ({ id, function: 'sumfunc', start: '0x1', end: '0x2', depth: 1, parent: 1, file: '/x/conflict.c', line: 30, references: [] })),
      { id: 5, function: 'main', start: '0x1', end: '0x2', depth: 0, parent: null, file: '/x/conflict.c', line: 30, references: [] }
    ]
    const references = [...report.references, { id: 'h', pc: '0x4', kind: 'write', file: '/x/conflict.c', line: 30, function: 'sumfunc', variable: 'heap@conflict.c:12', sourceExpr: 'table[k]', reads: 0, writes: 5, levels: {} }]
    const axes = computeSliceAxes({ ...report, loops, references } as unknown as RunReport)
    const fn = axes.code[1]!.children[0]!
    const loopNodes = fn.children.filter((c) => c.kind === 'loop')
    expect(loopNodes.map((l) => [l.item, l.label])).toEqual([['loop@conflict.c:28', 'loop at conflict.c:28']])
    expect(loopNodes[0]!.children.map((l) => [l.item, l.detail])).toEqual([['loop@conflict.c:30', 'depth 1 · 3 copies · also in 1 other function']])
    const heap = axes.data.find((d) => d.item === '"heap@conflict.c:12"' || d.item === 'heap@conflict.c:12')!
    expect(heap.label).toBe('table')
    expect(heap.detail).toBe('heap@conflict.c:12 · 5 accesses')
  })

  it("says when a heap array's dimensions were inferred from strides (its type does not give them)", () => {
    const variables = [
      { name: 'A', kind: 'heap', start: '0x10', size: 22400, type: 'double [40][70]', elementSize: 8, dims: [40, 70], dimsFrom: 'type', allocSite: '/x/2mm.c:74', reads: 0, writes: 0 },
      { name: 'B', kind: 'heap', start: '0x9000', size: 262144, type: 'double [32768]', elementSize: 8, dims: [64, 512], dimsFrom: 'strides', allocSite: '/x/2mm.c:75', reads: 0, writes: 0 }
    ]
    const axes = computeSliceAxes({ ...report, variables } as unknown as RunReport)
    expect(axes.data.find((d) => d.item === 'A')!.detail).toBe('double [40][70] · 10 accesses')
    expect(axes.data.find((d) => d.item === 'B')!.detail).toBe('double [32768] · [64][512] (inferred from strides) · 20 accesses')
  })
})

describe('axis filters', () => {
  it('keep the matching options, and the tree nodes above a match', () => {
    const axes = computeSliceAxes(report)
    expect(filterAxisOptions(axes.data, 'DOUBLE').map((o) => o.item)).toEqual(['A'])
    expect(filterAxisOptions(axes.data, ' ').length).toBe(axes.data.length)
    const code = filterCodeNodes(axes.code, 'line 33')
    expect(code.map((n) => n.item)).toEqual(['conflict.c'])
    expect(code[0]!.children[0]!.children.map((n) => n.item)).toEqual(['conflict.c:33'])
  })
})

describe('notation <-> selection', () => {
  it('clicking builds the same text that typing gives', () => {
    let s: SliceSelection = { data: [], code: [], metrics: [] }
    s = toggleItem(toggleItem(toggleItem(toggleItem(s, 'data', 'A'), 'data', 'B'), 'code', 'sumfunc'), 'metrics', 'misses')
    expect(textFromSelection(s)).toBe('[{A,B},{sumfunc},{misses}]')
    const typed = selectionFromText(' [ {A, B}, {sumfunc}, {misses} ]')
    expect(typed).toEqual({ ok: true, selection: s, canonical: '[{A,B},{sumfunc},{misses}]' })
    expect(toggleItem(s, 'data', 'A').data).toEqual(['B'])
  })

  it('reports a typing error with its column', () => {
    expect(selectionFromText('[{A},{sumfunc},{mises}]')).toMatchObject({ ok: false, column: 17 })
  })
})

const slice: QuerySlice = {
  run: 1, query: '[{A,B},{f,g},{misses,miss_ratio}]', reduction: 'sum', data: ['A', 'B'], code: ['f', 'g'], metrics: ['misses', 'miss_ratio'], derived: [false, true],
  cells: [[[5, 0.5], [0, null]], [[7, 1], [1, 0.1]]], byData: [[5, 0.5], [8, 0.4]], byCode: [[12, 0.6], [1, 0.1]], total: [13, 0.5], resimulated: false, elapsedMs: 3
}

describe('slice displays', () => {
  it('tables cells with the reduction last', () => {
    expect(computeSliceTable(slice)).toEqual({
      columns: ['data', 'code', 'misses', 'miss_ratio'],
      rows: [['A', 'f', 5, 0.5], ['A', 'g', 0, null], ['B', 'f', 7, 1], ['B', 'g', 1, 0.1], ['(sum)', '', 13, 0.5]]
    })
  })

  it('bars per cell; pie shares only for counts', () => {
    expect(computeSliceBars(slice, 1).map((b) => b.label)).toEqual(['A · f', 'B · f', 'B · g'])
    expect(computeSliceShares(slice, 0)).toEqual([{ label: 'A', value: 5 }, { label: 'B', value: 8 }])
    expect(computeSliceShares(slice, 1)).toBeNull()
  })
})
