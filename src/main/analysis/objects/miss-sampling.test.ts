import { describe, expect, it } from 'vitest'
import { isPrime, MissSampler, nextPrime } from './miss-sampling'

/** A loop whose misses cycle through `objects` in a fixed order (period = objects.length). */
function periodic(sampler: MissSampler, objects: number[], misses: number): void {
  for (let i = 0; i < misses; i++) sampler.observe(objects[i % objects.length]!)
}

describe('MissSampler (Buck 2.1, 3.1)', () => {
  it('primes', () => {
    expect([2, 3, 5, 7, 11, 13].every(isPrime)).toBe(true)
    expect([0, 1, 4, 9, 15, 49, 50000].some(isPrime)).toBe(false)
    expect(nextPrime(50000)).toBe(50021)
    expect(nextPrime(113)).toBe(113)
  })

  it('takes exactly one sample per N misses', () => {
    const s = new MissSampler(100, 'regular', 2)
    periodic(s, [0, 1], 100_000)
    expect(s.samples).toBe(1000)
  })

  it('a regular interval that is a multiple of the loop period samples one object only (aliasing)', () => {
    // Seven objects, the misses of one loop iteration cycle through them: N = 7 x 20.
    const s = new MissSampler(140, 'regular', 7)
    periodic(s, [0, 1, 2, 3, 4, 5, 6], 700_000)
    expect(s.counts[6]).toBe(s.samples)
    expect(s.counts.slice(0, 6).every((c) => c === 0)).toBe(true)
  })

  it('the next prime and pseudo-random intervals recover the true shares', () => {
    for (const kind of ['prime', 'random'] as const) {
      const s = new MissSampler(140, kind, 7)
      periodic(s, [0, 1, 2, 3, 4, 5, 6], 700_000)
      for (let k = 0; k < 7; k++) expect(Math.abs(s.counts[k]! / s.samples - 1 / 7)).toBeLessThan(0.02)
    }
  })

  it('misses in no object go to the unknown bucket', () => {
    const s = new MissSampler(1, 'regular', 2)
    s.observe(-1)
    s.observe(1)
    expect([...s.counts]).toEqual([0, 1, 1])
  })

  it('rejects an interval below 1', () => {
    expect(() => new MissSampler(0, 'prime', 1)).toThrow(/>= 1/)
  })
})
