import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { PointCounts } from './point-counts'

describe('the closed runs’ counts', () => {
  it('sums per point, variable and kind, and hands the cells over in the order they were made', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(40), fc.nat(30), fc.nat(2), fc.integer({ min: 1, max: 1000 })), { maxLength: 3000 }), (adds) => {
        const counts = new PointCounts()
        // The reference: a Map in first-add order.
        const expected = new Map<string, number[]>()
        for (const [point, variable, kind, n] of adds) {
          counts.add(point, variable, kind, n)
          const key = `${point},${variable},${kind}`
          const cell = expected.get(key)
          if (cell) cell[3]! += n
          else expected.set(key, [point, variable, kind, n])
        }
        const got: number[][] = []
        counts.drain((point, variable, kind, n) => got.push([point, variable, kind, n]))
        expect(got).toEqual([...expected.values()])
        // Drained: empty, and usable again.
        counts.drain(() => expect.unreachable())
        counts.add(1, 2, 0, 3)
        got.length = 0
        counts.drain((point, variable, kind, n) => got.push([point, variable, kind, n]))
        expect(got).toEqual([[1, 2, 0, 3]])
      })
    )
  })

  it('grows past its first cells, keeping them in order', () => {
    const counts = new PointCounts()
    const first = counts.slots
    for (let k = 0; k < 6000; k++) counts.add(k % 2000, k % 5, 1, 1)
    expect(counts.slots).not.toBe(first)
    expect(counts.used[0]).toBeLessThanOrEqual(counts.slots.length / 2)
    const got: number[][] = []
    counts.drain((point, variable, kind, n) => got.push([point, variable, kind, n]))
    // k, k + 2000 and k + 4000 share a cell: 2000 cells, the first made first.
    expect(got.length).toBe(2000)
    expect(got.slice(0, 2)).toEqual([
      [0, 0, 1, 3],
      [1, 1, 1, 3]
    ])
    expect(got.every((c, k) => c[0] === k && c[3] === 3)).toBe(true)
  })
})
