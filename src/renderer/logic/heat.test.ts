import { describe, expect, it } from 'vitest'
import { bucketBounds, computeHeat, countsInStep } from './heat'

describe('heat legend steps', () => {
  it('labels each step with the whole counts the painter puts in it', () => {
    // Max 3 on log steps: 1, 2 and 3 land in the last three steps, the first two hold none.
    const steps = bucketBounds(3, 'log').map(countsInStep)
    expect(steps).toEqual([null, null, { lo: 1, hi: 1 }, { lo: 2, hi: 2 }, { lo: 3, hi: 3 }])
    const big = bucketBounds(10_000, 'log').map(countsInStep)
    expect(big[0]).toEqual({ lo: 1, hi: 5 }) // 10001^(1/5) - 1 = 5.3
    expect(big[4]!.hi).toBe(10_000)
    // Adjacent steps never overlap and leave no count out.
    for (let i = 1; i < big.length; i++) expect(big[i]!.lo).toBe(big[i - 1]!.hi + 1)
  })

  it('agrees with the painter: every count 1..max is painted in the step whose label holds it', () => {
    for (const max of [1, 2, 3, 7, 100, 12345]) {
      const lines = new Map(Array.from({ length: max }, (_, i) => [i + 1, i + 1] as [number, number]))
      const heat = computeHeat(lines, false, 'log')
      const steps = bucketBounds(max, 'log').map(countsInStep)
      for (const [count, h] of heat.lines) {
        const step = steps[h.bucket - 1]
        expect(step && count >= step.lo && count <= step.hi, `max ${max}: ${count} in step ${h.bucket}`).toBe(true)
      }
    }
  })
})
