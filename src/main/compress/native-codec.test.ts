/**
 * The native codec against its TypeScript reference model: identical chunk bytes, decoded
 * arrays, statistics and stream metrics on random and adversarial traces (fast-check), and
 * damaged chunks rejected with a clear error, quickly, without large allocations.
 */
import fc from 'fast-check'
import { brotliCompressSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { loopTraceArb, traceArb, type Trace } from '../testing/trace-arbitrary'
import { ByteWriter } from './bytes'
import { FOLD_MAX_BODY } from './fold'
import { decodePrsdSequiturChunkNative, decodePrsdSequiturChunkNativeAsync, NativePrsdSequiturEncoder, NativeRsdMetrics } from './native-codec'
import { CHAIN_SHAPE, decodePrsdSequiturChunk, frameChunk, framed, PrsdSequiturEncoder, type PrsdVersion } from './prsd-codec'
import { RsdMetrics } from './rsd-metrics'
import { SEQUITUR_LONGEST_ORDER } from './sequitur'

const arrays = (t: Trace) => ({ points: Uint32Array.from(t.points), addresses: Float64Array.from(t.addresses), sizes: Uint16Array.from(t.sizes) })

/** A point walking a loop nest 2-7 deep with small trip counts: fills every PRSD level. */
const nestArb = fc.record({
  trips: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 7 }),
  strides: fc.array(fc.integer({ min: -70000, max: 70000 }), { minLength: 7, maxLength: 7 }),
  base: fc.integer({ min: 2 ** 30, max: 2 ** 40 }),
  repeat: fc.integer({ min: 1, max: 5 }),
  glitch: fc.integer({ min: 0, max: 50 })
})
type Nest = typeof nestArb extends fc.Arbitrary<infer N> ? N : never

function nestTrace(nests: Array<Nest>): Trace {
  const t: Trace = { points: [], addresses: [], sizes: [], pointCount: nests.length }
  const walks = nests.map((n) => {
    const out: number[] = []
    for (let r = 0; r < n.repeat; r++) {
      const counter = new Array<number>(n.trips.length).fill(0)
      for (;;) {
        let a = n.base
        counter.forEach((c, l) => (a += c * n.strides[l]!))
        out.push(out.length === n.glitch ? n.base + 7 : Math.max(0, a))
        let l = 0
        while (l < n.trips.length && ++counter[l]! >= n.trips[l]!) counter[l++] = 0
        if (l === n.trips.length) break
      }
    }
    return out
  })
  const at = walks.map(() => 0)
  for (let more = true; more; ) {
    more = false
    walks.forEach((w, p) => {
      if (at[p]! < w.length) {
        t.points.push(p)
        t.addresses.push(w[at[p]!++]!)
        t.sizes.push(8)
        more = true
      }
    })
  }
  return t
}

/** Points over a small alphabet with addresses from a few extreme values (SEQUITUR and varint edges). */
const extremeArb = fc
  .record({
    pointCount: fc.integer({ min: 1, max: 4 }),
    steps: fc.array(fc.tuple(fc.nat(), fc.constantFrom(0, 1, 8, 2 ** 32 - 1, 2 ** 32, 2 ** 48, 2 ** 52 - 1, 2 ** 52 - 9), fc.integer({ min: -3, max: 3 })), { maxLength: 400 }),
    sizes: fc.constantFrom(1, 8, 65535)
  })
  .map(({ pointCount, steps, sizes }): Trace => ({
    pointCount,
    points: steps.map(([p]) => p % pointCount),
    addresses: steps.map(([, a, d]) => Math.min(2 ** 52 - 1, Math.max(0, a + d))),
    sizes: steps.map(([p]) => (p % 3 === 0 ? sizes : 8))
  }))

/**
 * Straight-line paths taken in a random order, as calls and branches take them: each path a
 * run of points (some shared between paths), so first successors predict long runs and
 * branches break them (v3's successor chains, chain.ts); addresses from a pointer chase.
 */
const pathArb = fc
  .record({
    paths: fc.array(fc.array(fc.nat({ max: 40 }), { minLength: 1, maxLength: 24 }), { minLength: 1, maxLength: 6 }),
    walk: fc.array(fc.nat(), { minLength: 1, maxLength: 300 }),
    seed: fc.nat()
  })
  .map(({ paths, walk, seed }): Trace => {
    const t: Trace = { points: [], addresses: [], sizes: [], pointCount: 41 }
    let a = seed
    for (const w of walk)
      for (const p of paths[w % paths.length]!) {
        a = (Math.imul(a, 1103515245) + 12345) >>> 0
        t.points.push(p)
        t.addresses.push(0x10000000 + (a % 4096) * 16)
        t.sizes.push(8)
      }
    return t
  })

/** Both encoders over the same chunks (one encoder each, metrics across chunks). */
function expectSameEncoding(chunks: Trace[], maxChunk: number, version: PrsdVersion): void {
  const ts = new PrsdSequiturEncoder(maxChunk, { version })
  const native = new NativePrsdSequiturEncoder(maxChunk, { version })
  expect(native.codec).toBe(ts.codec)
  const tsMetrics = new RsdMetrics()
  const nativeMetrics = new NativeRsdMetrics()
  for (const t of chunks) {
    const { points, addresses, sizes } = arrays(t)
    const a = ts.encode(points.length, points, addresses, sizes, t.pointCount)
    const b = native.encode(points.length, points, addresses, sizes, t.pointCount)
    expect(b[0]).toBe(version)
    expect(b.equals(a)).toBe(true)
    expect(native.lastStats).toEqual(ts.lastStats)
    const want = decodePrsdSequiturChunk(a, t.pointCount, points.length, version)
    const got = decodePrsdSequiturChunkNative(b, t.pointCount, points.length, version)
    expect(got.count).toBe(want.count)
    expect(Buffer.from(got.points.buffer).equals(Buffer.from(want.points.buffer))).toBe(true)
    expect(Array.from(got.addresses)).toEqual(t.addresses)
    expect(Array.from(got.addresses)).toEqual(Array.from(want.addresses))
    expect(Array.from(got.sizes)).toEqual(Array.from(want.sizes))
    tsMetrics.grow(t.pointCount)
    for (let i = 0; i < points.length; i++) tsMetrics.add(points[i]!, addresses[i]!)
    nativeMetrics.add(points.length, points, addresses, t.pointCount)
  }
  const want = ts.metrics.finish()
  expect(native.metrics.finish()).toEqual(want)
  expect(nativeMetrics.finish()).toEqual(tsMetrics.finish())
  expect(tsMetrics.finish()).toEqual(want)
}

describe.each([1, 2, 3, 4] as const)('native prsd-sequitur-v%i equals the TypeScript reference', (version) => {
  it('on random mixes of strided, nested, random and interleaved points', () => {
    fc.assert(fc.property(fc.array(traceArb, { minLength: 1, maxLength: 3 }), (chunks) => expectSameEncoding(chunks, 4096, version)), { numRuns: 100 })
  })

  it('on loop nests deep enough to overflow every PRSD level, with a glitch', () => {
    fc.assert(fc.property(fc.array(nestArb, { minLength: 1, maxLength: 3 }), (nests) => expectSameEncoding([nestTrace(nests)], 1 << 16, version)), { numRuns: 100 })
  })

  it('on straight-line paths taken in a random order (long successor chains, broken by branches)', () => {
    fc.assert(fc.property(fc.array(pathArb, { minLength: 1, maxLength: 2 }), (chunks) => expectSameEncoding(chunks, 1 << 14, version)), { numRuns: 100 })
  })

  it('on small alphabets, runs of one point and extreme addresses and sizes', () => {
    fc.assert(fc.property(fc.array(extremeArb, { minLength: 1, maxLength: 3 }), (chunks) => expectSameEncoding(chunks, 4096, version)), { numRuns: 150 })
  })

  it('on loop programs: nests four deep, loops left early, bodies past FOLD_MAX_BODY, chunks cut mid-loop', () => {
    fc.assert(
      fc.property(loopTraceArb, fc.integer({ min: 1, max: 3 * FOLD_MAX_BODY }), (t, cut) => {
        // Two chunks cut at an arbitrary point, so a run spans the boundary.
        const at = Math.min(cut * 7, t.points.length)
        const part = (from: number, to: number): Trace => ({ pointCount: t.pointCount, points: t.points.slice(from, to), addresses: t.addresses.slice(from, to), sizes: t.sizes.slice(from, to) })
        expectSameEncoding([part(0, at), part(at, t.points.length)], 8192, version)
      }),
      { numRuns: 150 }
    )
  })

  it('when the point table grows between chunks and chunks are full', () => {
    const chunk = (pointCount: number, n: number, seed: number): Trace => {
      const t: Trace = { points: [], addresses: [], sizes: [], pointCount }
      for (let i = 0; i < n; i++) {
        const p = (i * 7 + seed) % pointCount
        t.points.push(p)
        t.addresses.push(p * 2 ** 20 + ((i * seed) % 4099) * 8)
        t.sizes.push(4)
      }
      return t
    }
    expectSameEncoding([chunk(3, 4096, 1), chunk(50, 4096, 3), chunk(51, 100, 5), chunk(1000, 4096, 11)], 4096, version)
    // Chunks of very different sizes through one encoder: small, far larger, small again.
    expectSameEncoding([chunk(7, 300, 2), chunk(90, 40_000, 13), chunk(90, 100_000, 17), chunk(95, 5000, 19)], 1 << 17, version)
    // Point tables from 5,000 to 40,000 points: the per-point arrays move from malloc's heap to
    // pages of their own and grow by mremap (codec/pages.c), contents kept.
    expectSameEncoding([chunk(5000, 20_000, 23), chunk(12_000, 60_000, 29), chunk(40_000, 100_000, 31), chunk(40_000, 3000, 37)], 1 << 17, version)
    // Blocks of huge pages grown again (40,000 -> 120,000 points: 2 MB -> 6 MB arrays): a mapped
    // block is one mapping, header page included, or mremap refuses to move it.
    expectSameEncoding([chunk(40_000, 100_000, 31), chunk(120_000, 130_000, 41)], 1 << 17, version)
  })

  it('rejects what the format cannot hold, naming it', () => {
    const enc = new NativePrsdSequiturEncoder(16)
    const one = (a: number, p = 0) => enc.encode(1, Uint32Array.of(p), Float64Array.of(a), Uint16Array.of(8), 1)
    expect(() => one(2 ** 53)).toThrow(/not an integer in \[0, 2\^53\)/)
    expect(() => one(1.5)).toThrow(/not an integer/)
    expect(() => one(-8)).toThrow(/not an integer/)
    expect(() => one(8, 1)).toThrow(/outside the point table/)
    expect(() => enc.encode(17, new Uint32Array(17), new Float64Array(17), new Uint16Array(17), 1)).toThrow(/exceeds 16/)
  })
})

describe('the order of points in a chunk', () => {
  it('builds the grammar of an order up to SEQUITUR_LONGEST_ORDER symbols, and writes a longer one as one rule', () => {
    // Version 1 feeds the points to SEQUITUR as they come (no folding): the order is the chunk.
    // Pairs (k, 3), k cycling through 9 points: the grammar has rules; one symbol more, none.
    const order = (n: number): Trace => {
      const t: Trace = { points: [], addresses: [], sizes: [], pointCount: 9 }
      for (let i = 0; i < n; i++) {
        t.points.push(i % 2 === 0 ? (i >> 1) % 9 : 3)
        t.addresses.push(0x4000 + ((i * 2654435761) % 65521) * 8)
        t.sizes.push(8)
      }
      return t
    }
    const ts = new PrsdSequiturEncoder(1 << 14, { version: 1 })
    for (const [n, grammar] of [
      [SEQUITUR_LONGEST_ORDER, true],
      [SEQUITUR_LONGEST_ORDER + 1, false]
    ] as const) {
      const { points, addresses, sizes } = arrays(order(n))
      ts.encode(n, points, addresses, sizes, 9)
      expect(ts.lastStats!.rules > 1, `${n} symbols`).toBe(grammar)
      expectSameEncoding([order(n)], 1 << 14, 1)
    }
  })
})

/** A chunk from a hand-written structure: count, (v2, v3: markers,) grammar, points, exceptions. */
function chunk(structure: number[], planes: number[] = [], version: PrsdVersion = 1): Buffer {
  const w = new ByteWriter()
  for (const v of structure) w.uint(v)
  return frameChunk(w.view(), planes.length ? Uint8Array.from(planes) : null, structure[0] ?? 0, {}, version).data
}
const zigzag = (v: number) => (v < 0 ? -2 * v - 1 : 2 * v)

describe('the native decoder rejects damaged chunks', () => {
  const damaged = /trace chunk is damaged/
  // 4 accesses of point 0: grammar S = [0 0 0 0]; one RSD <start 64, length 4, stride 8>.
  const good = [4, 1, 4, 0, 0, 0, 0, 1, 0, 8, 0, 1, 0, 0, zigzag(64), 4, zigzag(8), 0]

  it('decodes the hand-written chunk it is checked against', () => {
    expect(Array.from(decodePrsdSequiturChunkNative(chunk(good), 1).addresses)).toEqual([64, 72, 80, 88])
  })

  it.each([
    ['a descriptor of length 0', [4, 1, 4, 0, 0, 0, 0, 1, 0, 8, 0, 1, 0, 0, zigzag(64), 0, zigzag(8), 0], /length 0/],
    ['counts that do not add up', [4, 1, 4, 0, 0, 0, 0, 1, 0, 8, 0, 1, 0, 0, zigzag(64), 3, zigzag(8), 0], /unaccounted/],
    ['more irregular addresses than accesses', [4, 1, 4, 0, 0, 0, 0, 1, 0, 8, 9, 0, 0], /do not add up/],
    ['a point outside the table', [4, 1, 4, 0, 0, 0, 2, 1, 0, 8, 0, 1, 0, 0, zigzag(64), 4, zigzag(8), 0], /access point 1 of 1/],
    ['addresses at 2^53', [4, 1, 4, 0, 0, 0, 0, 1, 0, 8, 0, 1, 0, 0, zigzag(2 ** 53 - 16), 4, zigzag(8), 0], /outside \[0, 2\^53\)/],
    ['negative addresses', [4, 1, 4, 0, 0, 0, 0, 1, 0, 8, 0, 1, 0, 0, zigzag(8), 4, zigzag(-8), 0], /outside \[0, 2\^53\)/],
    ['a grammar shorter than its count', [5, 1, 4, 0, 0, 0, 0, 1, 0, 8, 0, 1, 0, 0, zigzag(64), 4, zigzag(8), 0], /expands to 4 accesses, expected 5/],
    ['a grammar longer than its count', [3, 1, 4, 0, 0, 0, 0, 1, 0, 8, 0, 1, 0, 0, zigzag(64), 4, zigzag(8), 0], /more accesses than it declares/],
    ['a recursive grammar', [4, 2, 1, 3, 2, 3, 0], /recursive/],
    ['a rule of one symbol', [4, 2, 1, 3, 1, 0], /fewer than two symbols/],
    ['a size exception outside the chunk', [...good.slice(0, -1), 1, 4, 2], /outside the chunk/],
    ['an access size above 16 bits', [4, 1, 4, 0, 0, 0, 0, 1, 0, 70000, 0, 1, 0, 0, zigzag(64), 4, zigzag(8), 0], /16 bits/],
    ['a descriptor deeper than 16 levels', [4, 1, 4, 0, 0, 0, 0, 1, 0, 8, 0, 1, 0, 16, zigzag(64)], /too deep/],
    ['a truncated structure', good.slice(0, 12), /ends inside a number/]
  ])('%s', (_, structure, reason) => {
    expect(() => decodePrsdSequiturChunkNative(chunk(structure), 1)).toThrow(damaged)
    expect(() => decodePrsdSequiturChunkNative(chunk(structure), 1)).toThrow(reason)
  })

  it('an irregular address at 2^53 in the residue', () => {
    // 1 access of point 0, irregular; planes: byte 6 = 0x20 makes 2^53.
    expect(() => decodePrsdSequiturChunkNative(chunk([1, 1, 1, 0, 1, 0, 8, 1, 0, 0], [0, 0, 0, 0, 0, 0, 0x20, 0]), 1)).toThrow(/not below 2\^53/)
    expect(() => decodePrsdSequiturChunkNative(chunk([1, 1, 1, 0, 1, 0, 8, 1, 0, 0], [0, 0, 0, 0, 0, 0, 0x20]), 1)).toThrow(/not whole/)
  })

  it('a giant declared count or an exponential grammar fails fast without allocating', () => {
    const t = performance.now()
    expect(() => decodePrsdSequiturChunkNative(chunk([2 ** 40, 1, 0, 0, 0]), 1)).toThrow(/declares 1099511627776 events/)
    // Rule k = [k+1, k+1] for 40 rules: 2^40 accesses from a few bytes, declared 8.
    const rules: number[] = [8, 41]
    for (let k = 0; k < 40; k++) rules.push(2, 2 * (k + 1) + 1, 2 * (k + 1) + 1)
    rules.push(2, 0, 0)
    expect(() => decodePrsdSequiturChunkNative(chunk(rules), 1)).toThrow(/more accesses than it declares/)
    expect(() => decodePrsdSequiturChunkNative(chunk(good), 1, 5)).toThrow(/declares 4 events, the session 5/)
    expect(performance.now() - t).toBeLessThan(1000)
  })

  describe('in its brotli streams, decoded in the core with the store\'s count and without, here and on the thread pool', () => {
    const structure = (values: number[]): Buffer => {
      const w = new ByteWriter()
      for (const v of values) w.uint(v)
      return brotliCompressSync(w.view())
    }
    const whole = structure(good)
    it.each([
      ['a stream cut short', framed(whole.subarray(0, whole.length - 2), null, 1).data, /brotli stream is cut short/],
      ['bytes after a stream', framed(Buffer.concat([whole, Buffer.from([1, 2, 3])]), null, 1).data, /other bytes follow a brotli stream/],
      ['a stream that is not brotli', framed(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), null, 1).data, /brotli stream is damaged \(/],
      ['a residue that is not brotli', framed(whole, Buffer.from([0xff, 0xff, 0xff, 0xff]), 1).data, /brotli stream is damaged \(/],
      // 4 events may need at most 4 x 64 + 1024 bytes of structure.
      ['a structure past what its count may need', framed(structure([...good, ...new Array<number>(1300).fill(0)]), null, 1).data, /holds more than the 1280 bytes it may/]
    ])('%s', async (_, data, reason) => {
      for (const events of [4, undefined]) {
        // Without the store's count, the one the structure declares bounds it the same.
        const sync = (): unknown => decodePrsdSequiturChunkNative(data, 1, events)
        expect(sync).toThrow(reason)
        expect(sync).toThrow(damaged)
      }
      await expect(decodePrsdSequiturChunkNativeAsync(data, 1, 4)).rejects.toThrow(reason)
      await expect(decodePrsdSequiturChunkNativeAsync(data, 1, 4)).rejects.toThrow(damaged)
    })

    it('a count the session records that no chunk can hold', async () => {
      expect(() => decodePrsdSequiturChunkNative(chunk(good), 1, 2 ** 21)).toThrow(/the session records 2097152 events for it/)
      await expect(decodePrsdSequiturChunkNativeAsync(chunk(good), 1, 4.5)).rejects.toThrow(damaged)
      expect(Array.from((await decodePrsdSequiturChunkNativeAsync(chunk(good), 1, 4)).addresses)).toEqual([64, 72, 80, 88])
    })
  })

  it.each([1, 2, 3, 4] as const)('random corruption of real v%i chunks: the original back, or a damaged-chunk error (fast-check)', (version) => {
    fc.assert(
      fc.property(fc.oneof(traceArb, loopTraceArb), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), fc.nat(), (t, flips, cut) => {
        const { points, addresses, sizes } = arrays(t)
        const data = Buffer.from(new NativePrsdSequiturEncoder(8192, { version }).encode(points.length, points, addresses, sizes, t.pointCount))
        const bad = Buffer.from(data.subarray(0, cut % 3 === 0 ? cut % (data.length + 1) : data.length))
        for (const [at, v] of flips) if (bad.length) bad[at % bad.length] = v
        try {
          const d = decodePrsdSequiturChunkNative(bad, t.pointCount, undefined, version)
          expect(d.count).toBeLessThanOrEqual(2 ** 20)
          for (const a of d.addresses) expect(a >= 0 && a < 2 ** 53).toBe(true)
        } catch (e) {
          expect(String(e)).toMatch(damaged)
        }
      }),
      { numRuns: 300 }
    )
  })
})

describe('the native decoder rejects damaged v2 chunks', () => {
  const damaged = /trace chunk is damaged/
  // 4 accesses of point 0, folded: markers start at 1, marker 0 = level 0, k 1, r 4; the grammar
  // S = [point 0, marker 0]; one RSD <start 64, length 4, stride 8>.
  const rsd = [1, 0, 8, 0, 1, 0, 0, zigzag(64), 4, zigzag(8), 0]
  const v2 = (markers: number[], grammar: number[], count = 4) => chunk([count, ...markers, ...grammar, ...rsd], [], 2)
  const good = v2([1, 1, 0, 2], [1, 2, 0, 2])

  it('decodes the hand-written chunk it is checked against, natively and in the reference', () => {
    expect(Array.from(decodePrsdSequiturChunkNative(good, 1, 4, 2).addresses)).toEqual([64, 72, 80, 88])
    expect(Array.from(decodePrsdSequiturChunk(good, 1, 4, 2).points)).toEqual([0, 0, 0, 0])
    const encoded = new PrsdSequiturEncoder(16, { version: 2 }).encode(4, new Uint32Array(4), Float64Array.of(64, 72, 80, 88), new Uint16Array(4).fill(8), 1)
    expect(encoded.equals(good)).toBe(true)
  })

  it.each([
    ['a marker before any body', [1, 1, 0, 2], [1, 2, 2, 0], /no body before it/],
    ['repeats past the declared count', [1, 1, 0, 3], [1, 2, 0, 2], /more accesses than it declares/],
    ['repeats short of the declared count', [1, 1, 0, 1], [1, 2, 0, 2], /expands to 3 accesses, expected 4/],
    ['a marker the table does not hold', [1, 1, 0, 2], [1, 2, 0, 4], /repeat marker 1 of 1/],
    ['a marker body longer than FOLD_MAX_BODY', [1, 1, 3 * FOLD_MAX_BODY, 2], [1, 2, 0, 2], /out of range/],
    ['more markers than bytes', [1, 1000, 0, 2], [1, 2, 0, 2], /more repeat markers/],
    ['markers starting past 2^30', [2 ** 31, 1, 0, 2], [1, 2, 0, 2], /beyond 2\^30/],
    ['a point past the table below the markers', [2, 1, 0, 2], [1, 2, 2, 4], /access point 1 of 1/]
  ])('%s', (_, markers, grammar, reason) => {
    expect(() => decodePrsdSequiturChunkNative(v2(markers, grammar), 1)).toThrow(damaged)
    expect(() => decodePrsdSequiturChunkNative(v2(markers, grammar), 1)).toThrow(reason)
  })

  it('nested repeats that multiply past the count fail fast', () => {
    // Each level repeats 2^10 times, each alone within the 2^20 declared: 2^30 in all.
    const r = 2 ** 10 - 2
    const markers = [1, 3, 0, r, 3 * 1 + 1, r, 3 * 2 + 2, r]
    const t = performance.now()
    expect(() => decodePrsdSequiturChunkNative(v2(markers, [1, 4, 0, 2, 4, 6], 2 ** 20), 1)).toThrow(/more accesses than it declares/)
    expect(performance.now() - t).toBeLessThan(1000)
  })

  it('a chunk whose format is not the codec the store names', () => {
    expect(() => decodePrsdSequiturChunkNative(good, 1, 4, 1)).toThrow(/format 2, stored as prsd-sequitur-v1/)
    expect(() => decodePrsdSequiturChunkNative(chunk([4, 1, 4, 0, 0, 0, 0, ...rsd]), 1, 4, 2)).toThrow(/format 1, stored as prsd-sequitur-v2/)
  })
})

describe('the native decoder rejects damaged v3 chunks', () => {
  const damaged = /trace chunk is damaged/
  // Points 0..7, then 0..6 again (no square: the period of 8 breaks off), chained: markers
  // start at 8, marker 0 = a chain of 6; the grammar S = [0 .. 7, 0, marker 0]. Access i is
  // at 8 (i + 1), every address irregular (two or one per point), planes point by point.
  const order = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6]
  const addresses = order.map((_, i) => 8 * (i + 1))
  const points = [8, ...[0, 1, 1, 1, 1, 1, 1, 1].flatMap((delta, p) => [delta, 8, p < 7 ? 2 : 1, 0]), 0]
  const planes = [...[0, 1, 2, 3, 4, 5, 6].flatMap((p) => [8 * (p + 1), 8 * (p + 9)]), 64, ...new Array<number>(7 * 15).fill(0)]
  const grammar = (...symbols: number[]) => [1, symbols.length, ...symbols.map((t) => 2 * t)]
  const v3 = (markers: number[], rules: number[]) => chunk([15, ...markers, ...rules, ...points], planes, 3)
  const path = [0, 1, 2, 3, 4, 5, 6, 7]
  const good = v3([8, 1, CHAIN_SHAPE, 5], grammar(...path, 0, 8))

  it('decodes the hand-written chunk it is checked against, natively and in the reference', () => {
    const encoded = new PrsdSequiturEncoder(16, { version: 3 }).encode(15, Uint32Array.from(order), Float64Array.from(addresses), new Uint16Array(15).fill(8), 8)
    expect(encoded.equals(good)).toBe(true)
    expect(Array.from(decodePrsdSequiturChunkNative(good, 8, 15, 3).points)).toEqual(order)
    expect(Array.from(decodePrsdSequiturChunk(good, 8, 15, 3).addresses)).toEqual(addresses)
  })

  it.each([
    ['a chain with nothing before it', [8, 1, CHAIN_SHAPE, 5], grammar(8, ...path, 0), /no successor/],
    ['a chain after a symbol with no successor yet', [8, 1, CHAIN_SHAPE, 5], grammar(...path, 8, 0), /no successor/],
    ['chains past the declared count', [8, 1, CHAIN_SHAPE, 6], grammar(...path, 0, 8), /more accesses than it declares/],
    ['a chain longer than the chunk', [8, 1, CHAIN_SHAPE, 15], grammar(...path, 0, 8), /chain marker is out of range/],
    ['a shape past the chain\'s', [8, 1, CHAIN_SHAPE + 1, 5], grammar(...path, 0, 8), /repeat marker is out of range/]
  ])('%s', (_, markers, rules, reason) => {
    expect(() => decodePrsdSequiturChunkNative(v3(markers, rules), 8)).toThrow(damaged)
    expect(() => decodePrsdSequiturChunkNative(v3(markers, rules), 8)).toThrow(reason)
    expect(() => decodePrsdSequiturChunk(v3(markers, rules), 8)).toThrow(reason)
  })

  it('a chain marker in a v2 chunk, and a chunk whose format is not the codec the store names', () => {
    const v2 = chunk([15, 8, 1, CHAIN_SHAPE, 5, ...grammar(...path, 0, 8), ...points], planes, 2)
    expect(() => decodePrsdSequiturChunkNative(v2, 8)).toThrow(/repeat marker is out of range/)
    expect(() => decodePrsdSequiturChunk(v2, 8)).toThrow(/repeat marker is out of range/)
    expect(() => decodePrsdSequiturChunkNative(good, 8, 15, 2)).toThrow(/format 3, stored as prsd-sequitur-v2/)
  })
})

describe('the native decoder writes into lent arrays', () => {
  const t = nestTrace([
    { trips: [4, 3, 2], strides: [8, 4096, 65536, 0, 0, 0, 0], base: 2 ** 32, repeat: 3, glitch: 5 },
    { trips: [2, 2], strides: [-16, 512, 0, 0, 0, 0, 0], base: 2 ** 34, repeat: 2, glitch: 50 }
  ])
  const { points, addresses, sizes } = arrays(t)
  const n = points.length
  const chunk = new NativePrsdSequiturEncoder(n, { version: 2 }).encode(n, points, addresses, sizes, t.pointCount)

  it('the same accesses as a fresh decode, in views of the chunk length over arrays left longer and dirty', async () => {
    const into = { points: new Uint32Array(n + 9).fill(7), addresses: new Float64Array(n + 9).fill(3), sizes: new Uint16Array(n + 9).fill(5) }
    const got = await decodePrsdSequiturChunkNativeAsync(chunk, t.pointCount, n, 2, into)
    expect(got.count).toBe(n)
    expect(got.points.buffer).toBe(into.points.buffer)
    expect(Array.from(got.points)).toEqual(t.points)
    expect(Array.from(got.addresses)).toEqual(t.addresses)
    expect(Array.from(got.sizes)).toEqual(t.sizes)
    expect(into.points[n]).toBe(7)
  })

  it('refuses arrays shorter than the chunk, writing nothing', async () => {
    const into = { points: new Uint32Array(n - 1), addresses: new Float64Array(n), sizes: new Uint16Array(n) }
    await expect(decodePrsdSequiturChunkNativeAsync(chunk, t.pointCount, n, 2, into)).rejects.toThrow(/shorter than the chunk/)
    expect(into.addresses.every((a) => a === 0)).toBe(true)
  })
})
