/**
 * The readable reference model of Mohan's detector (Map-keyed, object per stream): the test
 * compares the production detector (../stream-detector.ts, typed-array tables) against it on
 * random and adversarial reference strings. Not used by any run path.
 */
import { DEFAULT_WINDOW, LONG_STREAM, type StreamStatistics } from '../stream-detector'

interface Stream {
  start: number
  stride: number
  length: number
  size: number
  last: number
  /** Next stream expecting the same successor. */
  sameKey: Stream | null
  /** Age list (most recently extended first). */
  newer: Stream | null
  older: Stream | null
}

export class StreamDetectorReference {
  private readonly addr: Float64Array
  private readonly time: Float64Array
  private readonly marked: Uint8Array
  /** Position of the previous unmarked-at-insert occurrence of the same address, or -1. */
  private readonly prevSame: Float64Array
  private readonly latest = new Map<number, number>()
  private readonly table = new Map<number, Stream>()
  private newest: Stream | null = null
  private oldest: Stream | null = null
  private t = 0
  // Running statistics of retired streams.
  private streams = 0
  private scalar = 0
  private inStreams = 0
  private lengthSq = 0
  private strideSum = 0
  private strideElemSum = 0
  private readonly buckets = { '4-32': 0, '32-128': 0, '128-16384': 0, '>16384': 0 }
  private readonly long = { shortStride: 0, moderateStride: 0, largeStride: 0 }

  constructor(readonly window = DEFAULT_WINDOW) {
    if (!(window >= 3)) throw new Error(`stream window must be at least 3, not ${window}`)
    this.addr = new Float64Array(window)
    this.time = new Float64Array(window).fill(-1)
    this.marked = new Uint8Array(window)
    this.prevSame = new Float64Array(window).fill(-1)
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
    if (s) {
      // Extends a known stream: re-key it under its next expected successor.
      this.unlinkKey(address, s)
      s.length++
      s.last = t
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
      while (te !== undefined && te >= 0 && te > lo) {
        const ce = te % w
        if (te < tc && !this.marked[ce]) {
          this.marked[ce] = 1
          this.marked[cc] = 1
          this.marked[col] = 1
          const stream: Stream = { start: want, stride: address - c, length: 3, size, last: t, sameKey: null, newer: null, older: null }
          this.touch(stream)
          this.linkKey(stream)
          return
        }
        te = this.prevSame[ce]!
      }
    }
    // Not part of a stream (yet): index it for later searches.
    const prev = this.latest.get(address)
    this.prevSame[col] = prev ?? -1
    this.latest.set(address, t)
  }

  private key(s: Stream): number {
    return s.start + s.length * s.stride
  }

  private linkKey(s: Stream): void {
    const k = this.key(s)
    s.sameKey = this.table.get(k) ?? null
    this.table.set(k, s)
  }

  private unlinkKey(k: number, s: Stream): void {
    const head = this.table.get(k)
    if (head === s) {
      if (s.sameKey) this.table.set(k, s.sameKey)
      else this.table.delete(k)
    } else {
      for (let c: Stream | null | undefined = head; c; c = c.sameKey)
        if (c.sameKey === s) {
          c.sameKey = s.sameKey
          break
        }
    }
    s.sameKey = null
  }

  /** Moves a stream to the young end of the age list. */
  private touch(s: Stream): void {
    if (this.newest === s) return
    if (s.newer) s.newer.older = s.older
    if (s.older) s.older.newer = s.newer
    if (this.oldest === s) this.oldest = s.newer
    s.newer = null
    s.older = this.newest
    if (this.newest) this.newest.newer = s
    this.newest = s
    if (!this.oldest) this.oldest = s
  }

  private age(t: number): void {
    while (this.oldest && this.oldest.last <= t - this.window) this.retire(this.oldest)
  }

  /** Retires the oldest stream (the only one ever retired) into the statistics. */
  private retire(s: Stream): void {
    this.unlinkKey(this.key(s), s)
    this.oldest = s.newer
    if (s.newer) s.newer.older = null
    else this.newest = null
    s.newer = s.older = null
    const len = s.length
    this.streams++
    this.inStreams += len
    this.lengthSq += len * len
    const stride = Math.abs(s.stride)
    this.strideSum += stride
    const elems = stride / Math.max(1, s.size)
    this.strideElemSum += elems
    if (stride === 0) this.scalar++
    if (len >= 4 && len < 32) this.buckets['4-32']++
    else if (len >= 32 && len < 128) this.buckets['32-128']++
    else if (len >= 128 && len <= 16384) this.buckets['128-16384']++
    else if (len > 16384) this.buckets['>16384']++
    if (len >= LONG_STREAM) {
      if (elems < 10) this.long.shortStride++
      else if (elems < 32) this.long.moderateStride++
      else this.long.largeStride++
    }
  }

  /** Retires every stream and returns the statistics. */
  finish(): StreamStatistics {
    while (this.oldest) this.retire(this.oldest)
    const n = this.streams
    const mean = n ? this.inStreams / n : 0
    return {
      references: this.t,
      spatialRegularity: this.t ? this.inStreams / this.t : 0,
      streams: n,
      scalarStreams: this.scalar,
      buckets: { ...this.buckets },
      meanLength: mean,
      lengthDeviation: n ? Math.sqrt(Math.max(0, this.lengthSq / n - mean * mean)) : 0,
      meanStride: n ? this.strideSum / n : 0,
      meanStrideElements: n ? this.strideElemSum / n : 0,
      longStreams: { ...this.long },
      window: this.window
    }
  }
}
