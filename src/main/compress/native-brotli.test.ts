/**
 * The native core's second stage (codecBrotli, resources/native/core/src/codec/brotli.c)
 * against Node's zlib, the reference: the same bytes for every setting brotli-params.ts can
 * choose and any input (fast-check), synchronously and on the thread pool with calls in
 * flight together; settings outside brotli's ranges refused; the memory it keeps bounded.
 */
import fc from 'fast-check'
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { nativeCore } from '../native/core'
import { brotliParams, brotliSetting, type BrotliSetting } from './brotli-params'

interface BrotliExports {
  codecBrotli(data: Uint8Array, quality: number, lgwin: number, lgblock: number): Buffer
  codecBrotliAsync(data: Uint8Array, quality: number, lgwin: number, lgblock: number): Promise<Buffer>
  codecScratchKept(): [number, number]
}
const core = (): BrotliExports => nativeCore() as unknown as BrotliExports
const native = (data: Uint8Array, s: BrotliSetting): Buffer => core().codecBrotli(data, s.quality, s.lgwin, s.lgblock)

/** Bytes with the structure of a codec stream: runs, repeats at any distance, and noise. */
const streamArb = fc
  .array(
    fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 64 }),
      fc.record({ byte: fc.integer({ min: 0, max: 255 }), n: fc.integer({ min: 1, max: 3000 }) }).map(({ byte, n }) => new Uint8Array(n).fill(byte)),
      fc.record({ seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }), n: fc.integer({ min: 1, max: 40_000 }) }).map(({ seed, n }) => noise(n, seed))
    ),
    { maxLength: 12 }
  )
  .chain((parts) => fc.array(fc.nat({ max: Math.max(0, parts.length - 1) }), { maxLength: 20 }).map((order) => concat(order.length && parts.length ? order.map((i) => parts[i]!) : parts)))

function noise(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n)
  let s = seed >>> 0
  for (let i = 0; i < n; i++) out[i] = (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 24
  return out
}

/** A residue as the codec lays it out: eight byte planes of n random addresses in 8 MiB. */
function residue(n: number, seed: number): Uint8Array {
  const low = noise(3 * n, seed)
  const out = new Uint8Array(8 * n)
  for (let i = 0; i < n; i++) {
    out[i] = low[3 * i]! & 0xf8
    out[n + i] = low[3 * i + 1]!
    out[2 * n + i] = 0x40 | (low[3 * i + 2]! & 0x7f)
    out[3 * n + i] = 0x55
    out[4 * n + i] = 0x7f
  }
  return out
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) out.set(p, (at += p.length) - p.length)
  return out
}

describe('the native second stage writes zlib brotli bytes', () => {
  it('for every quality brotli-params.ts chooses from, on codec-like streams (fast-check)', () => {
    fc.assert(
      fc.property(streamArb, fc.constantFrom(4, 5, 6, 8, 9, 10), (data, quality) => {
        const s = brotliSetting(data, quality)
        expect(native(data, s).equals(brotliCompressSync(data, brotliParams(data, quality)))).toBe(true)
      }),
      { numRuns: 60 }
    )
  })

  it('at every quality 0-11, the empty stream, both windows, and a residue past 1 MiB in large input blocks', () => {
    // A random residue of a full chunk: quality 4 with 1 MiB blocks, and past 1 MiB brotli's
    // hint picks another match finder.
    const big = residue(150_000, 7)
    for (const data of [new Uint8Array(0), noise(100, 3), concat([noise(70_000, 5), noise(70_000, 5)])])
      for (let quality = 0; quality <= 11; quality++) expect(native(data, brotliSetting(data, quality)).equals(brotliCompressSync(data, brotliParams(data, quality)))).toBe(true)
    expect(brotliSetting(big, 4).lgblock).toBe(20)
    expect(native(big, brotliSetting(big, 4)).equals(brotliCompressSync(big, brotliParams(big, 4)))).toBe(true)
  })

  it('on the thread pool, with calls in flight together, each its own stream', async () => {
    const inputs = Array.from({ length: 12 }, (_, i) => concat([noise(1000 + 20_000 * (i % 4), i + 1), new Uint8Array(3000).fill(i)]))
    const out = await Promise.all(inputs.map((d, i) => core().codecBrotliAsync(d, 4 + (i % 6), 22, 0)))
    out.forEach((c, i) => expect(brotliDecompressSync(c).equals(Buffer.from(inputs[i]!))).toBe(true))
    out.forEach((c, i) => expect(c.equals(core().codecBrotli(inputs[i]!, 4 + (i % 6), 22, 0))).toBe(true))
  })
})

describe('the native second stage refuses what brotli cannot take', () => {
  it.each([
    [[new Uint8Array(4), 12, 22, 0], /quality must be in \[0, 11\]/],
    [[new Uint8Array(4), 5, 9, 0], /lgwin must be in \[10, 24\]/],
    [[new Uint8Array(4), 5, 25, 0], /lgwin must be in \[10, 24\]/],
    [[new Uint8Array(4), 5, 22, 15], /lgblock must be 0 or in \[16, 24\]/],
    [[new Uint8Array(4), -1, 22, 0], /quality/],
    [[[1, 2, 3], 5, 22, 0], /data/]
  ] as Array<[unknown[], RegExp]>)('%j', (args, message) => {
    const call = core().codecBrotli as (...a: unknown[]) => Buffer
    expect(() => call(...args)).toThrow(message)
    expect(() => (core().codecBrotliAsync as (...a: unknown[]) => Promise<Buffer>)(...args)).toThrow(message)
  })
})

describe("the second stage's kept memory", () => {
  it('is reused call after call, and stays under 64 MiB whatever the sizes', () => {
    const data = noise(200_000, 11)
    native(data, brotliSetting(data, 5))
    const [blocks, bytes] = core().codecScratchKept()
    expect(blocks).toBeGreaterThan(0)
    for (let i = 0; i < 5; i++) native(data, brotliSetting(data, 5))
    // The same stream again takes the blocks it left: nothing more is kept.
    expect(core().codecScratchKept()).toEqual([blocks, bytes])
    for (let i = 0; i < 40; i++) {
      const d = noise(1000 + ((i * 977_231) % 900_000), i)
      native(d, brotliSetting(d, 4 + (i % 7)))
    }
    const [, after] = core().codecScratchKept()
    expect(after).toBeLessThanOrEqual(64 << 20)
  })
})
