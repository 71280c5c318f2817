import { brotliCompressSync, brotliDecompressSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { brotliParams, lgwin, residueQuality, residueQualityV4, structureQuality } from './brotli-params'

/** n addresses as the codec lays them out: eight byte planes. */
function planes(addresses: number[]): Uint8Array {
  const n = addresses.length
  const out = new Uint8Array(n * 8)
  addresses.forEach((a, i) => {
    for (let b = 0; b < 8; b++, a = Math.floor(a / 256)) out[b * n + i] = a % 256
  })
  return out
}

/** A deterministic generator (the test must not depend on Math.random). */
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32
}

const base = 0x7f00_0000_0000
const random = (n: number, seed: number): number[] => {
  const r = lcg(seed)
  return Array.from({ length: n }, () => base + 8 * Math.floor(r() * (1 << 20)))
}

describe('brotli parameters', () => {
  it('chooses quality by size: 4 for the large streams of irregular programs', () => {
    expect(structureQuality(512, 1 << 18)).toBe(9)
    expect(structureQuality(513, 1 << 18)).toBe(10)
    // Small for its events (a loop kernel's): 10. Large for its events (an irregular trace): 4.
    expect(structureQuality(8192, 1000)).toBe(10)
    expect(structureQuality(16384, 16384 * 16)).toBe(10)
    expect(structureQuality(16385, 16384 * 16)).toBe(4)
    expect(structureQuality(230_000, 1 << 18)).toBe(4)
    expect(residueQuality(planes(random(30_000, 3)))).toBe(6)
    expect(residueQuality(planes(random(40_000, 4)))).toBe(4)
    expect(residueQualityV4(new Uint8Array(1 << 18))).toBe(6)
    expect(residueQualityV4(new Uint8Array((1 << 18) + 1))).toBe(4)
  })

  it('keeps a window that holds the whole stream up to 2^16, else 2^22', () => {
    expect(lgwin(65_520)).toBe(16)
    expect(lgwin(65_521)).toBe(22)
    const data = planes(random(10_000, 6))
    for (const q of [4, 6, 9, 11]) expect(brotliDecompressSync(brotliCompressSync(data, brotliParams(data, q))).equals(data)).toBe(true)
  })
})
