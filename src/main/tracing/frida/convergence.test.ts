import { describe, expect, it } from 'vitest'
import { ConvergenceTracker, fractionalChange } from './convergence'

function sample(t: ConvergenceTracker, fn: string, addresses: number[]) {
  t.begin(fn)
  for (const a of addresses) t.access(fn, a, 8)
  return t.end(fn)
}
const stride = (start: number, n: number, step: number) => Array.from({ length: n }, (_, i) => start + i * step)

describe('fractionalChange', () => {
  it('is the largest relative change of the three measures', () => {
    expect(fractionalChange({ spatialRegularity: 1, meanLength: 100, meanStrideElements: 1 }, { spatialRegularity: 1, meanLength: 110, meanStrideElements: 1 })).toBeCloseTo(0.1)
    expect(fractionalChange({ spatialRegularity: 0.5, meanLength: 10, meanStrideElements: 2 }, { spatialRegularity: 0.25, meanLength: 10, meanStrideElements: 2 })).toBeCloseTo(0.5)
    expect(fractionalChange({ spatialRegularity: 0, meanLength: 0, meanStrideElements: 0 }, { spatialRegularity: 0, meanLength: 0, meanStrideElements: 0 })).toBe(0)
    expect(fractionalChange({ spatialRegularity: 0, meanLength: 0, meanStrideElements: 0 }, { spatialRegularity: 1, meanLength: 5, meanStrideElements: 1 })).toBe(Infinity)
  })
})

describe('ConvergenceTracker (Mohan section 4)', () => {
  it('converges once two successive calls show the same streams', () => {
    const t = new ConvergenceTracker(0.05)
    expect(sample(t, 'f', stride(0x1000, 500, 8))!.converged).toBe(false) // nothing to compare with
    const second = sample(t, 'f', stride(0x9000, 500, 8))!
    expect(second.change).toBeCloseTo(0)
    expect(second.converged).toBe(true)
    expect(t.isDone('f')).toBe(true)
    expect(sample(t, 'f', stride(0, 10, 8))).toBeNull() // no more samples once converged
  })

  it('keeps sampling while the behaviour changes between calls', () => {
    const t = new ConvergenceTracker(0.05)
    sample(t, 'g', stride(0, 400, 8))
    const d = sample(t, 'g', stride(0, 40, 8).concat(stride(1 << 20, 40, 4096)))!
    expect(d.change).toBeGreaterThan(0.05)
    expect(d.converged).toBe(false)
    // Random addresses: no streams at all, a large change again.
    const random = Array.from({ length: 400 }, (_, i) => ((i * 2654435761) % 1000003) * 64)
    expect(sample(t, 'g', random)!.converged).toBe(false)
  })

  it('honours minSamples and ignores calls that touched no memory', () => {
    const t = new ConvergenceTracker(0.5, 4)
    for (let i = 0; i < 3; i++) expect(sample(t, 'h', stride(0, 300, 8))!.converged).toBe(false)
    expect(sample(t, 'h', [])).toBeNull()
    expect(sample(t, 'h', stride(0, 300, 8))!.converged).toBe(true)
  })

  it('functions converge independently', () => {
    const t = new ConvergenceTracker(0.05)
    sample(t, 'a', stride(0, 300, 8))
    sample(t, 'b', stride(0, 300, 8))
    expect(sample(t, 'a', stride(0, 300, 8))!.converged).toBe(true)
    expect(t.isDone('b')).toBe(false)
  })
})
