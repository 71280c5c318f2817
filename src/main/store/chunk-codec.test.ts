import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeChunk, encodeChunk } from './chunk-codec'

describe('delta-deflate-v1 chunks', () => {
  it('round-trips any trace exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(
          fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2 ** 47 }), fc.constantFrom(1, 2, 4, 8, 16, 32, 512)),
          { maxLength: 300 }
        ),
        (pointCount, events) => {
          const points = Uint32Array.from(events.map((e) => e[0] % pointCount))
          const addresses = Float64Array.from(events.map((e) => e[1]))
          const sizes = Uint16Array.from(events.map((e) => e[2]))
          const out = decodeChunk(encodeChunk(events.length, points, addresses, sizes, pointCount), pointCount)
          expect(out.count).toBe(events.length)
          expect(Array.from(out.points)).toEqual(Array.from(points))
          expect(Array.from(out.addresses)).toEqual(Array.from(addresses))
          expect(Array.from(out.sizes)).toEqual(Array.from(sizes))
        }
      )
    )
  })

  it('stores a strided loop in far fewer bytes than raw records', () => {
    const n = 65536
    const points = new Uint32Array(n).map((_, i) => i % 3)
    const addresses = new Float64Array(n).map((_, i) => 0x10000 * (i % 3) + 8 * Math.floor(i / 3))
    const sizes = new Uint16Array(n).fill(8)
    const data = encodeChunk(n, points, addresses, sizes, 3)
    expect(data.length * 50).toBeLessThan(n * 24)
  })

  it('rejects a chunk that names points the session does not have', () => {
    const data = encodeChunk(1, Uint32Array.of(5), Float64Array.of(8), Uint16Array.of(8), 6)
    expect(() => decodeChunk(data, 2)).toThrow(/access point 5/)
  })
})
