/**
 * Mohan et al., "Identifying and Exploiting Spatial Regularity in Data Memory References",
 * section 3 (Figure 1): online stream detection over a window pool, and the function-level
 * statistics of section 2.
 *
 * - Pool: the last `window` references (default 100). A reference that extends no known
 *   stream is compared with the unmarked references before it: it forms a new stream with
 *   an earlier pair (e, c) when x - c = c - e (minimum length 3), the nearest c first, and
 *   then the nearest such e. The three are marked and take no further part in detection.
 *   Instead of the paper's w x w difference table this looks up the value 2c - x among the
 *   window's unmarked references by hash (address -> most recent position, chained to
 *   older ones), which finds the same pair in O(w) rather than O(w^2) per reference.
 * - Stream table: keyed by the stream's expected successor (start + length * stride), each
 *   key chaining the streams expecting it, most recently extended first. A reference that is
 *   a key extends the first stream on its chain and is marked in the pool.
 * - Aging: a stream not extended within `window` references leaves the table and is counted
 *   in the statistics; references leave the pool after `window` newer ones.
 *
 * Statistics: spatial regularity = (sum of stream lengths) / references; stream counts in
 * the length buckets [4-32), [32-128), [128-16384], > 16384; mean and standard deviation of
 * stream length; mean |stride| in bytes and in elements (stride / access size).
 *
 * It runs over every traced access at the end of a recording, so it keeps no per-reference
 * objects: streams live in typed arrays (at most about `window` are alive at once) and both
 * tables are open-addressing hashes over double keys (addresses above 2^31 made JavaScript
 * Maps allocate a heap number per lookup). `reference/stream-detector-reference.ts` is the
 * readable model the tests compare it with.
 */

export interface StreamStatistics {
  references: number
  /** Fraction of references that belong to a stream (Mohan's R_spatial). */
  spatialRegularity: number
  streams: number
  /** Streams with stride 0 (the same address again and again). */
  scalarStreams: number
  buckets: { '4-32': number; '32-128': number; '128-16384': number; '>16384': number }
  meanLength: number
  lengthDeviation: number
  /** Mean |stride| over the streams, in bytes. */
  meanStride: number
  /** Mean |stride| / access size over the streams (Table 1's strides are in elements). */
  meanStrideElements: number
  /** Long (>= 100) streams by element stride: < 10, 10-31, >= 32. */
  longStreams: { shortStride: number; moderateStride: number; largeStride: number }
  window: number
}

export const DEFAULT_WINDOW = 100
export const MIN_STREAM_LENGTH = 3
export const LONG_STREAM = 100

const NONE = -1

/** The running sums of retired streams (section 2), from which StreamStatistics follow. */
export interface StreamTotals {
  streams: number
  scalar: number
  inStreams: number
  lengthSq: number
  strideSum: number
  strideElemSum: number
  buckets: StreamStatistics['buckets']
  long: StreamStatistics['longStreams']
}

/** The statistics of `references` references whose retired streams summed to `totals`. */
export function streamStatistics(totals: StreamTotals, references: number, window: number): StreamStatistics {
  const n = totals.streams
  const mean = n ? totals.inStreams / n : 0
  return {
    references,
    spatialRegularity: references ? totals.inStreams / references : 0,
    streams: n,
    scalarStreams: totals.scalar,
    buckets: { ...totals.buckets },
    meanLength: mean,
    lengthDeviation: n ? Math.sqrt(Math.max(0, totals.lengthSq / n - mean * mean)) : 0,
    meanStride: n ? totals.strideSum / n : 0,
    meanStrideElements: n ? totals.strideElemSum / n : 0,
    longStreams: { ...totals.long },
    window
  }
}

/**
 * The statistics of retired streams (section 2), shared by the detector and its reference
 * model: each retired stream adds its length, stride and access size. (The native detector,
 * ../compress/native-streams.ts, sums the same way in C.)
 */
export class StreamTally {
  private readonly totals: StreamTotals = {
    streams: 0,
    scalar: 0,
    inStreams: 0,
    lengthSq: 0,
    strideSum: 0,
    strideElemSum: 0,
    buckets: { '4-32': 0, '32-128': 0, '128-16384': 0, '>16384': 0 },
    long: { shortStride: 0, moderateStride: 0, largeStride: 0 }
  }

  add(len: number, signedStride: number, size: number): void {
    const t = this.totals
    t.streams++
    t.inStreams += len
    t.lengthSq += len * len
    const stride = Math.abs(signedStride)
    t.strideSum += stride
    const elems = stride / Math.max(1, size)
    t.strideElemSum += elems
    if (stride === 0) t.scalar++
    if (len >= 4 && len < 32) t.buckets['4-32']++
    else if (len >= 32 && len < 128) t.buckets['32-128']++
    else if (len >= 128 && len <= 16384) t.buckets['128-16384']++
    else if (len > 16384) t.buckets['>16384']++
    if (len >= LONG_STREAM) {
      if (elems < 10) t.long.shortStride++
      else if (elems < 32) t.long.moderateStride++
      else t.long.largeStride++
    }
  }

  result(references: number, window: number): StreamStatistics {
    return streamStatistics(this.totals, references, window)
  }
}

/** Double key -> non-negative number, linear probing with backward-shift deletion. */
class NumberTable {
  private keys: Float64Array
  private values: Float64Array
  private used: Uint8Array
  private mask: number
  private bits: number
  private size = 0

  constructor(expected: number) {
    this.bits = Math.max(4, Math.ceil(Math.log2(expected * 4)))
    const n = 1 << this.bits
    this.keys = new Float64Array(n)
    this.values = new Float64Array(n)
    this.used = new Uint8Array(n)
    this.mask = n - 1
  }

  private slot(key: number): number {
    // Keys are integers below 2^53 in magnitude: mix both 32-bit halves.
    const lo = key >>> 0
    const hi = (key / 4294967296) | 0
    return (Math.imul(lo ^ Math.imul(hi, 0x27d4eb2d), 0x9e3779b1) >>> (32 - this.bits)) & this.mask
  }

  get(key: number): number {
    let i = this.slot(key)
    while (this.used[i]) {
      if (this.keys[i] === key) return this.values[i]!
      i = (i + 1) & this.mask
    }
    return NONE
  }

  set(key: number, value: number): void {
    let i = this.slot(key)
    while (this.used[i]) {
      if (this.keys[i] === key) {
        this.values[i] = value
        return
      }
      i = (i + 1) & this.mask
    }
    this.used[i] = 1
    this.keys[i] = key
    this.values[i] = value
    if (++this.size * 2 > this.mask) this.grow()
  }

  delete(key: number): void {
    let i = this.slot(key)
    while (this.used[i]) {
      if (this.keys[i] === key) break
      i = (i + 1) & this.mask
    }
    if (!this.used[i]) return
    this.used[i] = 0
    this.size--
    // Backward shift: move later entries of the probe run into the hole when their home allows.
    let j = (i + 1) & this.mask
    while (this.used[j]) {
      const home = this.slot(this.keys[j]!)
      if (((j - home) & this.mask) >= ((j - i) & this.mask)) {
        this.keys[i] = this.keys[j]!
        this.values[i] = this.values[j]!
        this.used[i] = 1
        this.used[j] = 0
        i = j
      }
      j = (j + 1) & this.mask
    }
  }

  private grow(): void {
    const { keys, values, used } = this
    this.bits++
    const n = 1 << this.bits
    this.keys = new Float64Array(n)
    this.values = new Float64Array(n)
    this.used = new Uint8Array(n)
    this.mask = n - 1
    this.size = 0
    for (let i = 0; i < used.length; i++) if (used[i]) this.set(keys[i]!, values[i]!)
  }
}

export class StreamDetector {
  private readonly addr: Float64Array
  private readonly time: Float64Array
  private readonly marked: Uint8Array
  /** Position of the previous unmarked-at-insert occurrence of the same address, or -1. */
  private readonly prevSame: Float64Array
  /** Address -> its most recent position in the pool. */
  private readonly latest: NumberTable
  /** Expected successor -> the first stream expecting it. */
  private readonly table: NumberTable
  // Streams, by index: start, stride, length, access size, last extension, the next stream
  // expecting the same successor, and the age list (most recently extended first).
  private sStart: Float64Array
  private sStride: Float64Array
  private sLength: Float64Array
  private sSize: Float64Array
  private sLast: Float64Array
  private sSameKey: Int32Array
  private sNewer: Int32Array
  private sOlder: Int32Array
  private free: number[] = []
  private allocated = 0
  private newest = NONE
  private oldest = NONE
  private t = 0
  private readonly tally = new StreamTally()

  constructor(readonly window = DEFAULT_WINDOW) {
    if (!(window >= 3)) throw new Error(`stream window must be at least 3, not ${window}`)
    this.addr = new Float64Array(window)
    this.time = new Float64Array(window).fill(-1)
    this.marked = new Uint8Array(window)
    this.prevSame = new Float64Array(window).fill(-1)
    this.latest = new NumberTable(window)
    this.table = new NumberTable(window)
    // At most one stream starts or is extended per reference, and one not extended within
    // `window` references retires: about `window` are alive. Grown if ever needed.
    const n = window + 8
    this.sStart = new Float64Array(n)
    this.sStride = new Float64Array(n)
    this.sLength = new Float64Array(n)
    this.sSize = new Float64Array(n)
    this.sLast = new Float64Array(n)
    this.sSameKey = new Int32Array(n)
    this.sNewer = new Int32Array(n)
    this.sOlder = new Int32Array(n)
  }

  add(address: number, size: number): void {
    const t = this.t++
    const w = this.window
    const col = t % w
    // The reference leaving the pool.
    if (this.time[col]! >= 0) {
      const old = this.addr[col]!
      if (this.latest.get(old) === this.time[col]) this.latest.delete(old)
    }
    this.age(t)
    this.addr[col] = address
    this.time[col] = t
    this.marked[col] = 0
    this.prevSame[col] = -1

    const s = this.table.get(address)
    if (s !== NONE) {
      // Extends a known stream: re-key it under its next expected successor.
      this.unlinkKey(address, s)
      this.sLength[s]!++
      this.sLast[s] = t
      this.touch(s)
      this.linkKey(s)
      this.marked[col] = 1
      return
    }
    // Search the pool for a pair (e, c) with x - c = c - e, nearest c first.
    const lo = t - w // positions > lo are in the pool
    for (let i = 1; i < w; i++) {
      const tc = t - i
      if (tc <= lo || tc < 0) break
      const cc = tc % w
      if (this.marked[cc]) continue
      const c = this.addr[cc]!
      const want = 2 * c - address
      let te = this.latest.get(want)
      while (te >= 0 && te > lo) {
        const ce = te % w
        if (te < tc && !this.marked[ce]) {
          this.marked[ce] = 1
          this.marked[cc] = 1
          this.marked[col] = 1
          const n = this.newStream(want, address - c, size, t)
          this.touch(n)
          this.linkKey(n)
          return
        }
        te = this.prevSame[ce]!
      }
    }
    // Not part of a stream (yet): index it for later searches.
    this.prevSame[col] = this.latest.get(address)
    this.latest.set(address, t)
  }

  private newStream(start: number, stride: number, size: number, t: number): number {
    let s = this.free.pop()
    if (s === undefined) {
      if (this.allocated === this.sStart.length) this.growStreams()
      s = this.allocated++
    }
    this.sStart[s] = start
    this.sStride[s] = stride
    this.sLength[s] = MIN_STREAM_LENGTH
    this.sSize[s] = size
    this.sLast[s] = t
    this.sSameKey[s] = NONE
    this.sNewer[s] = NONE
    this.sOlder[s] = NONE
    return s
  }

  private growStreams(): void {
    const n = this.sStart.length * 2
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(n)
      b.set(a)
      return b
    }
    const i32 = (a: Int32Array) => {
      const b = new Int32Array(n)
      b.set(a)
      return b
    }
    this.sStart = f64(this.sStart)
    this.sStride = f64(this.sStride)
    this.sLength = f64(this.sLength)
    this.sSize = f64(this.sSize)
    this.sLast = f64(this.sLast)
    this.sSameKey = i32(this.sSameKey)
    this.sNewer = i32(this.sNewer)
    this.sOlder = i32(this.sOlder)
  }

  private key(s: number): number {
    return this.sStart[s]! + this.sLength[s]! * this.sStride[s]!
  }

  private linkKey(s: number): void {
    const k = this.key(s)
    this.sSameKey[s] = this.table.get(k)
    this.table.set(k, s)
  }

  private unlinkKey(k: number, s: number): void {
    const head = this.table.get(k)
    if (head === s) {
      const next = this.sSameKey[s]!
      if (next !== NONE) this.table.set(k, next)
      else this.table.delete(k)
    } else {
      for (let c = head; c !== NONE; c = this.sSameKey[c]!)
        if (this.sSameKey[c] === s) {
          this.sSameKey[c] = this.sSameKey[s]!
          break
        }
    }
    this.sSameKey[s] = NONE
  }

  /** Moves a stream to the young end of the age list. */
  private touch(s: number): void {
    if (this.newest === s) return
    const newer = this.sNewer[s]!
    const older = this.sOlder[s]!
    if (newer !== NONE) this.sOlder[newer] = older
    if (older !== NONE) this.sNewer[older] = newer
    if (this.oldest === s) this.oldest = newer
    this.sNewer[s] = NONE
    this.sOlder[s] = this.newest
    if (this.newest !== NONE) this.sNewer[this.newest] = s
    this.newest = s
    if (this.oldest === NONE) this.oldest = s
  }

  private age(t: number): void {
    while (this.oldest !== NONE && this.sLast[this.oldest]! <= t - this.window) this.retire(this.oldest)
  }

  /** Retires the oldest stream (the only one ever retired) into the statistics. */
  private retire(s: number): void {
    this.unlinkKey(this.key(s), s)
    const newer = this.sNewer[s]!
    this.oldest = newer
    if (newer !== NONE) this.sOlder[newer] = NONE
    else this.newest = NONE
    this.sNewer[s] = this.sOlder[s] = NONE
    this.free.push(s)
    this.tally.add(this.sLength[s]!, this.sStride[s]!, this.sSize[s]!)
  }

  /** Retires every stream and returns the statistics. */
  finish(): StreamStatistics {
    while (this.oldest !== NONE) this.retire(this.oldest)
    return this.tally.result(this.t, this.window)
  }
}
