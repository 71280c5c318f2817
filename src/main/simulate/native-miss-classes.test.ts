import { describe, expect, it } from 'vitest'
import { MissClassifier } from '../analysis/advice/miss-classes'
import { NativeMissClassifier } from './native-miss-classes'

/** A deterministic pseudo-random sequence. */
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32
}

const MODIFY = 2

/** Accesses mixing a column walk, a hot set, random lines and line-crossing accesses. */
function trace(n: number, points: number, seed: number) {
  const r = lcg(seed)
  const p = new Uint32Array(n)
  const a = new Float64Array(n)
  const s = new Uint16Array(n)
  for (let i = 0; i < n; i++) {
    const mode = r()
    p[i] = Math.floor(r() * points)
    a[i] = mode < 0.3 ? 0x10000 + (i % 700) * 4096 : mode < 0.6 ? 0x800000 + Math.floor(r() * 40) * 8 : mode < 0.9 ? Math.floor(r() * 2 ** 30) : 0x4000 + (i % 300) * 64 + 60
    s[i] = mode >= 0.9 ? 8 : [1, 2, 4, 8, 16][Math.floor(r() * 5)]!
  }
  return { count: n, points: p, addresses: a, sizes: s }
}

function model(cache: { size: number; assoc: number; lineSize: number }, batch: ReturnType<typeof trace>, kinds: Uint8Array) {
  const m = new MissClassifier(cache, kinds.length)
  for (let i = 0; i < batch.count; i++) {
    const p = batch.points[i]!
    m.access(p, batch.addresses[i]!, batch.sizes[i]!)
    if (kinds[p] === MODIFY) m.access(p, batch.addresses[i]!, batch.sizes[i]!)
  }
  return m.counts()
}

describe('NativeMissClassifier', () => {
  for (const cache of [
    { size: 32768, assoc: 8, lineSize: 64 },
    { size: 512, assoc: 2, lineSize: 64 },
    { size: 4096, assoc: 64, lineSize: 32 },
    { size: 65536, assoc: 16, lineSize: 128 }
  ])
    it(`counts as the model does (${cache.size} B, ${cache.assoc}-way, ${cache.lineSize} B lines), fed in batches`, () => {
      const points = 37
      const kinds = Uint8Array.from({ length: points }, (_, p) => p % 3)
      const batch = trace(60_000, points, cache.size)
      const native = new NativeMissClassifier(cache)
      // Uneven batches, as chunks come.
      for (let from = 0; from < batch.count; ) {
        const n = Math.min(batch.count - from, 1 + (from % 9_000))
        native.run({ count: n, points: batch.points.subarray(from), addresses: batch.addresses.subarray(from), sizes: batch.sizes.subarray(from) }, kinds)
        from += n
      }
      const got = native.counts(points)
      const want = model(cache, batch, kinds)
      expect(got.setCount).toBe(want.setCount)
      expect(got.forgetful).toBe(want.forgetful)
      expect([...got.shadow]).toEqual([...want.shadow])
      expect([...got.cold]).toEqual([...want.cold])
      expect(got.sets && [...got.sets]).toEqual(want.sets && [...want.sets])
      expect(got.shadow.some((x) => x > 0) && got.cold.some((x) => x > 0)).toBe(true)
    })

  it('context accesses (SIM_CONTEXT | flags) move lines and mark them seen, and count for no point', () => {
    const cache = { size: 2048, assoc: 4, lineSize: 64 }
    const points = 9
    const kinds = Uint8Array.from({ length: points + 1 }, (_, p) => (p === points ? 0 : p % 3))
    const batch = trace(20_000, points + 1, 7)
    // Point `points` stands for the rest of the program: as context codes in one run, as a
    // read-only point of its own in the other; the other points' counts must agree.
    const withContext = { ...batch, points: batch.points.map((p, i) => (p === points ? (0xfffffff0 | (1 + (i % 15))) >>> 0 : p)) }
    const native = new NativeMissClassifier(cache)
    native.run(withContext, kinds.subarray(0, points))
    const asPoint = new NativeMissClassifier(cache)
    asPoint.run(batch, kinds)
    const got = native.counts(points)
    const want = asPoint.counts(points + 1)
    expect([...got.shadow]).toEqual([...want.shadow].slice(0, points))
    expect([...got.cold]).toEqual([...want.cold].slice(0, points))
    expect(got.sets && [...got.sets]).toEqual(want.sets && [...want.sets].slice(0, points))
    // The context mattered: without it the points see other misses.
    const alone = new NativeMissClassifier(cache)
    const kept = [...batch.points].flatMap((p, i) => (p === points ? [] : [i]))
    alone.run({ count: kept.length, points: Uint32Array.from(kept, (i) => batch.points[i]!), addresses: Float64Array.from(kept, (i) => batch.addresses[i]!), sizes: Uint16Array.from(kept, (i) => batch.sizes[i]!) }, kinds.subarray(0, points))
    expect([...alone.counts(points).cold]).not.toEqual([...got.cold])
  })

  it('the point table may grow between batches, and a larger final table counts nothing for the new points', async () => {
    const cache = { size: 1024, assoc: 4, lineSize: 64 }
    const batch = trace(5_000, 10, 3)
    const native = new NativeMissClassifier(cache)
    const half = 2_500
    // The first half names only points below 5; the rest any.
    const first = { count: half, points: batch.points.map((p) => p % 5).subarray(0, half), addresses: batch.addresses, sizes: batch.sizes }
    await native.runAsync(first, null)
    native.run({ count: batch.count - half, points: batch.points.subarray(half), addresses: batch.addresses.subarray(half), sizes: batch.sizes.subarray(half) }, null)
    const got = native.counts(12)
    const m = new MissClassifier(cache, 12)
    for (let i = 0; i < batch.count; i++) m.access(i < half ? batch.points[i]! % 5 : batch.points[i]!, batch.addresses[i]!, batch.sizes[i]!)
    const want = m.counts()
    expect([...got.shadow]).toEqual([...want.shadow])
    expect([...got.cold]).toEqual([...want.cold])
    expect(got.sets && [...got.sets]).toEqual(want.sets && [...want.sets])
    expect(got.shadow[11]).toBe(0)
    expect(() => native.counts(3)).toThrow(/fewer points/)
  })
})
