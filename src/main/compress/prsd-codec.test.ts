import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { loopTraceArb, traceArb, type Trace } from '../testing/trace-arbitrary'
import type { ChunkDecoder, ChunkEncoder } from './chunk-encoder'
import { decodePrsdSequiturChunkNative, NativePrsdSequiturEncoder } from './native-codec'
import { decodePrsdSequiturChunk, PrsdSequiturEncoder } from './prsd-codec'

/** Both implementations (the native production codec and the TypeScript reference), both versions. */
const codecs: Array<[string, (max?: number) => ChunkEncoder, ChunkDecoder]> = ([1, 2] as const).flatMap((version): Array<[string, (max?: number) => ChunkEncoder, ChunkDecoder]> => [
  [`v${version}, native`, (max) => new NativePrsdSequiturEncoder(max, { version }), decodePrsdSequiturChunkNative],
  [`v${version}, typescript`, (max) => new PrsdSequiturEncoder(max, { version }), decodePrsdSequiturChunk]
])

function roundTrip(t: Trace, encoder: ChunkEncoder, decode: ChunkDecoder): void {
  const points = Uint32Array.from(t.points)
  const addresses = Float64Array.from(t.addresses)
  const sizes = Uint16Array.from(t.sizes)
  const data = encoder.encode(t.points.length, points, addresses, sizes, t.pointCount)
  const back = decode(data, t.pointCount)
  expect(back.count).toBe(t.points.length)
  expect(Array.from(back.points)).toEqual(t.points)
  expect(Array.from(back.addresses)).toEqual(t.addresses)
  expect(Array.from(back.sizes)).toEqual(t.sizes)
}

describe.each(codecs)('prsd-sequitur chunks are lossless (%s)', (_, makeEncoder, decode) => {
  it('round trips mixes of strided, nested, random and interleaved points, and loop programs (fast-check)', () => {
    const encoder = makeEncoder(8192)
    fc.assert(fc.property(fc.oneof(traceArb, loopTraceArb), (t) => roundTrip(t, encoder, decode)), { numRuns: 200 })
  })

  it('round trips an empty chunk, one access, and addresses near 2^48', () => {
    const encoder = makeEncoder()
    roundTrip({ points: [], addresses: [], sizes: [], pointCount: 0 }, encoder, decode)
    roundTrip({ points: [0], addresses: [2 ** 48 - 8], sizes: [8], pointCount: 1 }, encoder, decode)
    roundTrip({ points: [1, 0, 1, 0], addresses: [2 ** 48 - 1, 0, 2 ** 47, 2 ** 48 - 2], sizes: [1, 2, 4, 8], pointCount: 2 }, encoder, decode)
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
    const enc = makeEncoder()
    const data = enc.encode(n, points, addresses, sizes, 3)
    expect(data.length).toBeLessThan(400)
    const back = decode(data, 3)
    expect(Array.from(back.addresses)).toEqual(Array.from(addresses))
  })
})
