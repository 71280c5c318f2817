/**
 * fast-check arbitraries for access traces (tests only): points with strided, nested, random
 * and mostly-strided address patterns, interleaved as a loop body or at random.
 */
import fc from 'fast-check'

export interface Trace {
  points: number[]
  addresses: number[]
  sizes: number[]
  pointCount: number
}

/** A point's address generator: strided, nested, random or constant. */
const pattern = fc.oneof(
  fc.record({ kind: fc.constant('strided' as const), base: fc.integer({ min: 0, max: 2 ** 47 }), stride: fc.integer({ min: -4096, max: 4096 }) }),
  fc.record({
    kind: fc.constant('nested' as const),
    base: fc.integer({ min: 0, max: 2 ** 40 }),
    inner: fc.integer({ min: 1, max: 9 }),
    stride: fc.constantFrom(1, 4, 8, 16),
    outer: fc.integer({ min: -100000, max: 100000 })
  }),
  fc.record({ kind: fc.constant('random' as const), base: fc.integer({ min: 0, max: 2 ** 47 }), span: fc.integer({ min: 1, max: 2 ** 24 }) }),
  fc.record({ kind: fc.constant('mostly' as const), base: fc.integer({ min: 0, max: 2 ** 30 }), stride: fc.constantFrom(4, 8), every: fc.integer({ min: 2, max: 20 }) })
)

export const traceArb = fc
  .record({
    patterns: fc.array(pattern, { minLength: 1, maxLength: 6 }),
    body: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
    interleave: fc.oneof(fc.constant('loop' as const), fc.constant('random' as const)),
    count: fc.integer({ min: 0, max: 3000 }),
    sizes: fc.array(fc.constantFrom(1, 2, 4, 8, 16), { minLength: 1, maxLength: 3 }),
    seed: fc.integer()
  })
  .map(({ patterns, body, interleave, count, sizes, seed }): Trace => {
    let rnd = seed >>> 0
    const next = () => (rnd = (Math.imul(rnd, 1103515245) + 12345) >>> 0)
    const n = patterns.length
    const seen = new Array<number>(n).fill(0)
    const t: Trace = { points: [], addresses: [], sizes: [], pointCount: n }
    for (let i = 0; i < count; i++) {
      const p = interleave === 'loop' ? body[i % body.length]! % n : next() % n
      const k = seen[p]!++
      const pat = patterns[p]!
      let a: number
      switch (pat.kind) {
        case 'strided': a = pat.base + k * pat.stride; break
        case 'nested': a = pat.base + Math.floor(k / pat.inner) * pat.outer + (k % pat.inner) * pat.stride; break
        case 'random': a = pat.base + (next() % pat.span); break
        case 'mostly': a = k % pat.every === 0 ? pat.base + (next() % 4096) : pat.base + k * pat.stride; break
      }
      t.points.push(p)
      t.addresses.push(Math.max(0, a))
      t.sizes.push(sizes[next() % sizes.length]!)
    }
    return t
  })
