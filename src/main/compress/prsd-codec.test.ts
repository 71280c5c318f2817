import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodePrsdSequiturChunk, PrsdSequiturEncoder } from './prsd-codec'

interface Trace {
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

const traceArb = fc
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

function roundTrip(t: Trace, encoder = new PrsdSequiturEncoder()): void {
  const points = Uint32Array.from(t.points)
  const addresses = Float64Array.from(t.addresses)
  const sizes = Uint16Array.from(t.sizes)
  const data = encoder.encode(t.points.length, points, addresses, sizes, t.pointCount)
  const back = decodePrsdSequiturChunk(data, t.pointCount)
  expect(back.count).toBe(t.points.length)
  expect(Array.from(back.points)).toEqual(t.points)
  expect(Array.from(back.addresses)).toEqual(t.addresses)
  expect(Array.from(back.sizes)).toEqual(t.sizes)
}

describe('prsd-sequitur-v1 chunks are lossless', () => {
  it('round trips mixes of strided, nested, random and interleaved points (fast-check)', () => {
    const encoder = new PrsdSequiturEncoder(4096)
    fc.assert(fc.property(traceArb, (t) => roundTrip(t, encoder)), { numRuns: 300 })
  })

  it('round trips an empty chunk, one access, and addresses near 2^48', () => {
    roundTrip({ points: [], addresses: [], sizes: [], pointCount: 0 })
    roundTrip({ points: [0], addresses: [2 ** 48 - 8], sizes: [8], pointCount: 1 })
    roundTrip({ points: [1, 0, 1, 0], addresses: [2 ** 48 - 1, 0, 2 ** 47, 2 ** 48 - 2], sizes: [1, 2, 4, 8], pointCount: 2 })
  })

  it('stores a 64K-access loop nest in a few hundred bytes', () => {
    const n = 3 * 21845
    const points = new Uint32Array(n)
    const addresses = new Float64Array(n)
    const sizes = new Uint16Array(n).fill(8)
    for (let k = 0; k < n / 3; k++) {
      const i = Math.floor(k / 1000)
      const j = k % 1000
      points.set([0, 1, 2], 3 * k)
      addresses.set([0x4000 + (i * 1000 + j) * 8, 0x800000 + (j * 1000 + i) * 8, 0x4000 + (i * 1000 + j) * 8], 3 * k)
    }
    const enc = new PrsdSequiturEncoder()
    const data = enc.encode(n, points, addresses, sizes, 3)
    expect(data.length).toBeLessThan(400)
    const back = decodePrsdSequiturChunk(data, 3)
    expect(Array.from(back.addresses)).toEqual(Array.from(addresses))
  })
})
