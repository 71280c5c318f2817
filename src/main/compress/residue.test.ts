/** v4's residue: the form a chunk takes, both forms back exactly, and damage to either named. */
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ByteWriter } from './bytes'
import { decodePrsdSequiturChunkNative, NativePrsdSequiturEncoder } from './native-codec'
import { decodePrsdSequiturChunk, framed, PrsdSequiturEncoder, splitChunk } from './prsd-codec'
import { deltasOf, readResidue, RESIDUE_DELTAS, RESIDUE_PLANES } from './residue'

/** Random-looking values of one generator, reproducible. */
function lcg(seed: number): () => number {
  let x = seed >>> 0
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32
}

/** `n` accesses of point 0 at `address(i)`, through both encoders (v4); the chunk and its residue's form. */
function encode(n: number, address: (i: number) => number): { chunk: Buffer; form: number; addresses: Float64Array } {
  const points = new Uint32Array(n)
  const addresses = Float64Array.from({ length: n }, (_, i) => address(i))
  const sizes = new Uint16Array(n).fill(8)
  const chunk = new NativePrsdSequiturEncoder(n).encode(n, points, addresses, sizes, 1)
  expect(chunk.equals(new PrsdSequiturEncoder(n).encode(n, points, addresses, sizes, 1))).toBe(true)
  const residue = brotliDecompressSync(splitChunk(chunk, 4).residue)
  return { chunk, form: residue[0]!, addresses }
}

describe('v4 residue', () => {
  it('takes delta varints for a pointer chase through nearby nodes, planes for picks at random over megabytes', () => {
    const near = lcg(1)
    let node = 0x55550000
    const chase = encode(20_000, () => (node += 32 + Math.floor(near() * 8) * 16 - 48))
    expect(chase.form).toBe(RESIDUE_DELTAS)
    const far = lcg(2)
    const random = encode(20_000, () => 0x7f0000000000 + Math.floor(far() * 262_144) * 8)
    expect(random.form).toBe(RESIDUE_PLANES)
    for (const { chunk, addresses } of [chase, random]) {
      expect(decodePrsdSequiturChunkNative(chunk, 1, addresses.length, 4).addresses).toEqual(addresses)
      expect(decodePrsdSequiturChunk(chunk, 1, addresses.length, 4).addresses).toEqual(addresses)
    }
  })

  it('a residue of a few hundred addresses takes deltas untried, random or not', () => {
    const far = lcg(3)
    expect(encode(400, () => 0x7f0000000000 + Math.floor(far() * 262_144) * 8).form).toBe(RESIDUE_DELTAS)
  })

  it('delta varints give back any addresses below 2^53, far jumps included (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 2 ** 20 }), fc.constantFrom(0, 2 ** 52, 2 ** 53 - 1, 2 ** 47 + 8)), { minLength: 1, maxLength: 60 }), (list) => {
        const residue = Uint8Array.of(RESIDUE_DELTAS, ...deltasOf(list, list.length))
        expect(Array.from(readResidue(residue, 4, list.length))).toEqual(list)
      })
    )
  })

  // `n` accesses of point 0, all irregular (structure: count n, no markers, grammar [0 x n], the
  // point with n irregular addresses and no descriptor, no size exceptions), and a residue as given.
  const withResidue = (residue: number[], n = 1): Buffer => {
    const w = new ByteWriter()
    for (const v of [n, 1, 0, 1, n, ...new Array<number>(n).fill(0), 1, 0, 8, n, 0, 0]) w.uint(v)
    return framed(brotliCompressSync(w.view()), brotliCompressSync(Uint8Array.from(residue)), 4).data
  }

  it('decodes a hand-written chunk of each form, natively and in the reference', () => {
    for (const residue of [[RESIDUE_DELTAS, 0x80, 0x02], [RESIDUE_PLANES, 0x40, 0, 0, 0, 0, 0, 0, 0]]) {
      expect(Array.from(decodePrsdSequiturChunkNative(withResidue(residue), 1, 1, 4).addresses)).toEqual([residue[0] === RESIDUE_DELTAS ? 128 : 64])
      expect(Array.from(decodePrsdSequiturChunk(withResidue(residue), 1, 1, 4).addresses)).toEqual([residue[0] === RESIDUE_DELTAS ? 128 : 64])
    }
  })

  it.each([
    ['an unknown form', [2, 0x80, 0x02], /unknown form/],
    ['a varint cut short', [RESIDUE_DELTAS, 0x80], /inside a varint/],
    // Eleven bytes for one access: the core's decoder refuses the stream as larger than a chunk of one holds.
    ['a varint too long', [RESIDUE_DELTAS, ...new Array<number>(9).fill(0xff), 0x01], /too long|brotli stream/],
    ['a delta below address 0', [RESIDUE_DELTAS, 0x03], /not below 2\^53|not a valid address/],
    ['planes not whole', [RESIDUE_PLANES, 1, 2, 3], /not whole/],
    ['more addresses than accesses', [RESIDUE_DELTAS, 0x10, 0x10], /more irregular addresses than/]
  ])('a residue with %s is damage, natively and in the reference', (_, residue, reason) => {
    expect(() => decodePrsdSequiturChunkNative(withResidue(residue), 1, 1, 4)).toThrow(/trace chunk is damaged/)
    expect(() => decodePrsdSequiturChunkNative(withResidue(residue), 1, 1, 4)).toThrow(reason)
    expect(() => decodePrsdSequiturChunk(withResidue(residue), 1, 1, 4)).toThrow(reason)
  })

  it('a varint too long is damage in the core too, where the chunk has room for its bytes', () => {
    const chunk = withResidue([RESIDUE_DELTAS, ...new Array<number>(9).fill(0xff), 0x01], 2)
    expect(() => decodePrsdSequiturChunkNative(chunk, 1, 2, 4)).toThrow(/too long/)
    expect(() => decodePrsdSequiturChunk(chunk, 1, 2, 4)).toThrow(/too long/)
  })
})
