import { describe, expect, it } from 'vitest'
import { NwaySearch } from './nway-search'
import { ObjectTable, type DataObject } from './object-table'

/** Objects laid out like Buck's Figure 2: arrays A..F with the miss shares given. */
function layout(shares: number[], gap = 4096, size = 1 << 16): { table: ObjectTable; pick: (r: number) => number } {
  const objects: DataObject[] = shares.map((_, i) => ({ name: String.fromCharCode(65 + i), kind: 'global', start: 0x400000 + i * (size + gap), end: 0x400000 + i * (size + gap) + size }))
  const table = new ObjectTable(objects)
  const cumulative = shares.map((_, i) => shares.slice(0, i + 1).reduce((a, b) => a + b, 0))
  // Deterministic interleaving: miss m goes to the object whose cumulative share covers (m * phi) mod 1.
  return { table, pick: (r) => 0x400000 + cumulative.findIndex((c) => r < c) * (size + gap) + 64 }
}

function runSearch(shares: number[], ways: number, misses = 2_000_000, interval = 5000): ReturnType<NwaySearch['result']> & { table: ObjectTable } {
  const { table, pick } = layout(shares)
  const search = new NwaySearch(table, { ways, intervalAccesses: interval })
  const phi = (Math.sqrt(5) - 1) / 2
  for (let m = 1; m <= misses && !search.done; m++) {
    search.observe(table.segment(pick((m * phi) % 1)))
    search.clock(m)
  }
  return { ...search.result(), table }
}

describe('n-way search (Buck 2.2)', () => {
  it('object extents become segments; regions never cut an object', () => {
    const { table } = layout([0.5, 0.5])
    expect(table.segmentCount).toBe(5)
    expect(table.segment(0x400000 + 64)).toBe(1)
    expect(table.segment(0x400000 + (1 << 16) + 10)).toBe(2) // the gap between A and B
    expect(table.segment(0)).toBe(0)
    expect(table.segment(2 ** 47)).toBe(4)
  })

  it('finds the top objects in order with their shares (10-way)', () => {
    const shares = [0.05, 0.3, 0.02, 0.2, 0.15, 0.1, 0.08, 0.06, 0.04]
    const r = runSearch(shares, 10)
    expect(r.converged).toBe(true)
    const found = r.objects.map((o) => r.table.objects[o.object]!.name)
    expect(found.slice(0, 5)).toEqual(['B', 'D', 'E', 'F', 'G'])
    for (const o of r.objects) expect(Math.abs(o.fraction - shares[o.object]!)).toBeLessThan(0.01)
    expect(r.interrupts).toBeGreaterThan(1)
  })

  it("backs up to the region it left behind (the priority queue, Buck's Figure 2)", () => {
    // A 2-way search: the first half holds 60% spread over four arrays, the second half one
    // array with 40%. Without backtracking the search would end in the first half.
    const shares = [0.15, 0.15, 0.15, 0.15, 0.4]
    const r = runSearch(shares, 2)
    expect(r.objects[0] && r.table.objects[r.objects[0].object]!.name).toBe('E')
    expect(r.objects[0]!.fraction).toBeCloseTo(0.4, 2)
  })

  it('stops on the threshold when fewer than n-1 objects matter', () => {
    const r = runSearch([0.7, 0.3], 10)
    expect(r.converged).toBe(true)
    expect(r.reason).toBe('threshold')
    expect(r.objects.map((o) => o.object)).toEqual([0, 1])
  })

  it('keeps a found object through a phase without misses, lengthening the interval', () => {
    const { table } = layout([0.5, 0.5])
    const search = new NwaySearch(table, { ways: 4, intervalAccesses: 1000, threshold: 0 })
    const a = table.segment(0x400000 + 8)
    const b = table.segment(0x400000 + (1 << 16) + 4096 + 8)
    let t = 0
    // Phase 1: both objects miss; then B stops missing for a while.
    for (; t < 20_000; t++) {
      search.observe(t % 2 ? a : b)
      search.clock(t + 1)
    }
    const before = search.result()
    expect(before.objects.map((o) => o.object).sort()).toEqual([0, 1])
    for (; t < 23_000 && !search.done; t++) {
      search.observe(a)
      search.clock(t + 1)
    }
    const after = search.result()
    expect(after.objects.map((o) => o.object)).toContain(1)
    expect(after.intervalAccesses).toBeGreaterThan(1000)
  })

  it('finds arrays untouched during start-up: dropped regions come back when the remainder grows', () => {
    // 9 objects; start-up misses only in the last (say, the loader's data), then the kernel
    // misses in objects 1 and 4 only.
    const objects: DataObject[] = Array.from({ length: 9 }, (_, i) => ({ name: `o${i}`, kind: 'global' as const, start: 0x10000 * (i + 1), end: 0x10000 * (i + 1) + 0x8000 }))
    const table = new ObjectTable(objects)
    const search = new NwaySearch(table, { ways: 4, intervalAccesses: 1000, minAccesses: 40_000 })
    const seg = (k: number) => table.segment(objects[k]!.start + 8)
    let t = 0
    for (; t < 5000; t++) {
      search.observe(seg(8))
      search.clock(t + 1)
    }
    for (; t < 400_000 && !search.done; t++) {
      search.observe(seg(t % 3 === 0 ? 4 : 1))
      search.clock(t + 1)
    }
    const r = search.result()
    expect(r.converged).toBe(true)
    const found = r.objects.map((o) => o.object)
    expect(found.slice(0, 2)).toEqual([1, 4])
    expect(r.objects[0]!.fraction).toBeCloseTo(2 / 3, 1)
  })

  it('phased arrays (swept in long phases one after another) rank by their whole-run misses: it keeps measuring and reopens', () => {
    // A, B, C and six quiet arrays; A misses for 20% of the run, then B for 50%, then C for 30%.
    const { table } = layout([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.2])
    const total = 500_000
    const search = new NwaySearch(table, { ways: 10, intervalAccesses: total / 50, minAccesses: total / 10 })
    const at = (k: number) => table.segment(0x400000 + k * ((1 << 16) + 4096) + 64 + ((t * 7919) % 1000 << 4))
    const phases: Array<[object: number, share: number]> = [[2, 0.2], [5, 0.5], [7, 0.3]]
    let t = 0
    for (const [object, share] of phases)
      for (const end = t + share * total; t < end; t++) {
        search.observe(at(object))
        search.clock(t + 1)
      }
    const r = search.result()
    expect(r.objects.slice(0, 3).map((o) => o.object)).toEqual([5, 7, 2])
    for (const [i, share] of [0.5, 0.3, 0.2].entries()) expect(Math.abs(r.objects[i]!.fraction - share)).toBeLessThan(0.05)
    expect(r.reopened).toBeGreaterThanOrEqual(2)
    expect(r.convergedAt).not.toBeNull()
    expect(r.measuredAccesses).toBe(total)
  })
})
