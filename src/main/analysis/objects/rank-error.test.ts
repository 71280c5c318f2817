import { describe, expect, it } from 'vitest'
import { averageRanks, spearmanTopK } from './rank-error'

const named = (values: number[]) => values.map((value, i) => ({ name: `v${i}`, value }))

describe("Spearman's rho over the reference's top k", () => {
  it('ranks ties by their average', () => {
    expect(averageRanks([5, 9, 5, 1])).toEqual([2.5, 1, 2.5, 4])
  })

  it('is 1 for the same order, -1 for the reverse, whatever the values', () => {
    const ref = named([10, 8, 6, 4, 2])
    expect(spearmanTopK(ref, named([100, 50, 40, 3, 1]))).toBeCloseTo(1, 12)
    expect(spearmanTopK(ref, named([1, 2, 3, 4, 5]))).toBeCloseTo(-1, 12)
  })

  it('one adjacent swap in ten: 1 - 6*2/(10*99)', () => {
    const ref = named([10, 9, 8, 7, 6, 5, 4, 3, 2, 1])
    const est = named([10, 9, 8, 7, 6, 5, 4, 3, 1, 2])
    expect(spearmanTopK(ref, est)).toBeCloseTo(1 - 12 / 990, 12)
  })

  it("ranks the top k in the estimate's whole list: an outlier on top costs rho (Rutar 4.3's ti)", () => {
    const ref = named([10, 9, 8, 1])
    const est = [{ name: 'v0', value: 5 }, { name: 'v1', value: 4 }, { name: 'v3', value: 100 }]
    // Top 3 of the reference: v0, v1, v2 (ranks 1, 2, 3); in the estimate v3 is first, so
    // v0, v1 rank 2, 3 and v2, absent, ranks 4: d = 1, 1, 1.
    expect(spearmanTopK(ref, est, 3)).toBeCloseTo(1 - 18 / 24, 12)
    expect(spearmanTopK(ref, [{ name: 'v0', value: 3 }, { name: 'v1', value: 2 }, { name: 'v2', value: 1 }], 3)).toBeCloseTo(1, 12)
  })

  it('is null with fewer than two objects that have misses', () => {
    expect(spearmanTopK(named([3, 0]), named([3, 0]))).toBeNull()
  })
})
