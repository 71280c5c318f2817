import { describe, expect, it } from 'vitest'
import { parseSliceQuery } from '../../../shared/slice-notation'
import { Hierarchy, STAT_READ_MISSES, STAT_READS } from '../../simulate/hierarchy'
import { batch, level } from '../../simulate/test-fixtures'
import { computeQuerySlice, type SliceContext, type SliceFact } from './slice-reduce'
import { SectionClassifier, SectionSimulation } from './slice-sections'

const fact = (variable: string | null, fn: string, line: number, lvl: number, reads: number, misses: number, loop: number | null = null): SliceFact => ({
  variable,
  function: fn,
  file: '/src/k.c',
  line,
  loop,
  sections: 0,
  level: lvl,
  reads,
  writes: 0,
  readMisses: misses,
  writeMisses: 0,
  temporalHits: 0,
  spatialHits: reads - misses,
  evictions: 0
})

const ctx: SliceContext = { run: 1, levels: ['L1', 'L2'], caches: 2, loops: [{ id: 1, parent: null, file: '/src/k.c', line: 10 }, { id: 2, parent: 1, file: '/src/k.c', line: 11 }] }
const facts: SliceFact[] = [
  fact('A', 'foo', 12, 0, 100, 10, 2),
  fact('A', 'foo', 12, 1, 10, 5, 2),
  fact('B', 'foo', 13, 0, 100, 50, 2),
  fact('B', 'bar', 20, 0, 40, 40),
  fact(null, 'bar', 21, 0, 8, 1)
]

describe('computeQuerySlice', () => {
  it('sums data x code cells, axis totals and the total; ratios come from the summed counts', () => {
    const s = computeQuerySlice(parseSliceQuery('[{A,B},{foo,bar},{misses,miss_ratio,L2.misses}]'), 'sum', facts, ctx)
    expect(s.data).toEqual(['A', 'B'])
    expect(s.code).toEqual(['foo', 'bar'])
    expect(s.cells).toEqual([
      [[10, 0.1, 5], [0, null, 0]],
      [[50, 0.5, 0], [40, 1, 0]]
    ])
    expect(s.byData).toEqual([[10, 0.1, 5], [90, 90 / 140, 0]])
    expect(s.byCode).toEqual([[60, 0.3, 5], [40, 1, 0]])
    expect(s.total).toEqual([100, 100 / 240, 5])
    expect(s.derived).toEqual([false, true, false])
  })

  it('counts a fact once when code regions overlap (function and one of its lines)', () => {
    const s = computeQuerySlice(parseSliceQuery('[{A},{foo,k.c:12},{loads}]'), 'sum', facts, ctx)
    expect(s.cells[0]).toEqual([[100], [100]])
    expect(s.total).toEqual([100])
  })

  it('reduces cells with min and max', () => {
    const q = parseSliceQuery('[{A,B},{foo,bar},{misses,miss_ratio}]')
    expect(computeQuerySlice(q, 'max', facts, ctx).total).toEqual([50, 1])
    expect(computeQuerySlice(q, 'min', facts, ctx).byData).toEqual([[0, 0.1], [40, 0.5]])
  })

  it('expands * to every data structure (busiest first, unknown included) and every function', () => {
    const s = computeQuerySlice(parseSliceQuery('[{*},{*},{loads}]'), 'sum', facts, ctx)
    expect(s.data).toEqual(['B', 'A', 'unknown'])
    expect(s.code).toEqual(['bar', 'foo'])
    expect(s.query).toBe('[{*},{*},{loads}]')
  })

  it('selects a loop with its nested loops, and files by their last path components', () => {
    expect(computeQuerySlice(parseSliceQuery('[{*},{loop@k.c:10},{loads}]'), 'sum', facts, ctx).total).toEqual([200])
    expect(computeQuerySlice(parseSliceQuery('[{*},{src/k.c},{loads}]'), 'sum', facts, ctx).total).toEqual([248])
    expect(() => computeQuerySlice(parseSliceQuery('[{*},{loop@k.c:99},{loads}]'), 'sum', facts, ctx)).toThrow(/No loop has its header at k.c:99/)
  })

  it('names the levels a run has when a metric asks for another, and refuses TLB metrics without a TLB', () => {
    expect(() => computeQuerySlice(parseSliceQuery('[{A},{foo},{L3.misses}]'), 'sum', facts, ctx)).toThrow(/no level "L3"; its levels are L1, L2/)
    expect(() => computeQuerySlice(parseSliceQuery('[{A},{foo},{tlb_misses}]'), 'sum', facts, ctx)).toThrow(/--tlb/)
  })
})

// A 4 x 4 array of doubles at 0x10000, read row by row three times by point 0, with a cache
// too small to hold it (2 lines of 32 bytes): rows miss, then hit within the line.
const M = { name: 'M', start: 0x10000, size: 128, group: 'g', dims: [4, 4], elementSize: 8 }
const config = { levels: [level(64, 2, 32)], cachegrindCompatible: false }
const sweep = batch(Array.from({ length: 48 }, (_, i) => [0, 0x10000 + (i % 16) * 8, 8] as [number, number, number]))

function sectionFacts(text: string) {
  const q = parseSliceQuery(text)
  const sim = new SectionSimulation(config, Uint8Array.from([0]), new SectionClassifier(q, [M]))
  sim.feed(sweep)
  return sim.facts([{ function: 'f', file: 'k.c', line: 3, loop: null }], () => 'M')
}

describe('array sections by re-simulation', () => {
  it('counts the loads of one column and one row', () => {
    const col = sectionFacts('[{M[*,1]},{f},{loads}]')
    expect(col.map((f) => [f.sections, f.reads])).toEqual([[1, 12]])
    const rows = sectionFacts('[{M[0:1,*]},{f},{loads}]')
    expect(rows.map((f) => f.reads)).toEqual([24])
  })

  it('splits a point exactly: the columns add up to the plain simulation', () => {
    const plain = new Hierarchy(config, Uint8Array.from([0]))
    plain.run(sweep)
    plain.finish()
    const r = plain.pointResults()
    const f = sectionFacts('[{M[*,0],M[*,1],M[*,2],M[*,3]},{f},{misses}]')
    const sum = (k: 'reads' | 'readMisses') => f.reduce((a, x) => a + x[k], 0)
    expect(sum('reads')).toBe(r[STAT_READS])
    expect(sum('readMisses')).toBe(r[STAT_READ_MISSES])
    expect(r[STAT_READ_MISSES]).toBeGreaterThan(0)
    // Column 0 starts each 32-byte line (4 doubles): it takes every miss.
    expect(f.find((x) => x.sections === 1)!.readMisses).toBe(r[STAT_READ_MISSES])
  })

  it('refuses sections that do not fit the array, naming its shape', () => {
    expect(() => new SectionClassifier(parseSliceQuery('[{M[1]},{f},{loads}]'), [M])).toThrow(/2 dimensions \[4\]\[4\]; .*M\[\*,\*\]/)
    expect(() => new SectionClassifier(parseSliceQuery('[{M[4,*]},{f},{loads}]'), [M])).toThrow(/out of bounds for dimension 1/)
    expect(() => new SectionClassifier(parseSliceQuery('[{Q[1]},{f},{loads}]'), [M])).toThrow(/"Q" is not a data structure/)
    // A heap block's shape taken from its strides says so.
    expect(() => new SectionClassifier(parseSliceQuery('[{M[1]},{f},{loads}]'), [{ ...M, dimsFrom: 'strides' }])).toThrow(/2 dimensions \[4\]\[4\] \(inferred from strides\); /)
  })

  it('refuses a run with a stride prefetcher instead of answering approximately', () => {
    const q = parseSliceQuery('[{M[*,1]},{f},{loads}]')
    expect(() => new SectionSimulation({ levels: [level(64, 2, 32, { prefetch: 'stride' })], cachegrindCompatible: false }, Uint8Array.from([0]), new SectionClassifier(q, [M]))).toThrow(/stride prefetcher/)
  })
})
