/**
 * A second, deliberately naive reading of Mohan et al. section 3 (Figure 1), for tests only:
 * the pool is scanned pair by pair (the nearest unmarked c first, then the nearest unmarked e
 * before it with x - c = c - e), streams sit in plain arrays keyed by their expected successor
 * (most recently extended first), and every stream not extended within `window` references
 * retires. O(w^2) per reference and no hash chains, so it shares no structure with the
 * production detector (../stream-detector.ts) that the differential test compares it with.
 */
import { DEFAULT_WINDOW, MIN_STREAM_LENGTH, StreamTally, type StreamStatistics } from '../stream-detector'

interface Stream {
  start: number
  stride: number
  length: number
  size: number
  last: number
}

export class StreamDetectorReference {
  private readonly addr: number[] = []
  private readonly time: number[] = []
  private readonly marked: boolean[] = []
  /** Expected successor -> the streams expecting it, most recently extended first. */
  private readonly table = new Map<number, Stream[]>()
  private readonly live = new Set<Stream>()
  private readonly tally = new StreamTally()
  private t = 0

  constructor(readonly window = DEFAULT_WINDOW) {}

  add(address: number, size: number): void {
    const t = this.t++
    const w = this.window
    for (const s of [...this.live]) if (s.last <= t - w) this.retire(s)
    const col = t % w
    this.addr[col] = address
    this.time[col] = t
    this.marked[col] = false

    const waiting = this.table.get(address)
    if (waiting && waiting.length > 0) {
      const s = waiting[0]!
      this.unlink(s)
      s.length++
      s.last = t
      this.link(s)
      this.marked[col] = true
      return
    }
    const inPool = (p: number) => p > t - w && p >= 0 && this.time[p % w] === p
    for (let tc = t - 1; inPool(tc); tc--) {
      if (this.marked[tc % w]) continue
      const c = this.addr[tc % w]!
      for (let te = tc - 1; inPool(te); te--) {
        if (this.marked[te % w] || this.addr[te % w] !== 2 * c - address) continue
        this.marked[te % w] = this.marked[tc % w] = this.marked[col] = true
        const s: Stream = { start: 2 * c - address, stride: address - c, length: MIN_STREAM_LENGTH, size, last: t }
        this.live.add(s)
        this.link(s)
        return
      }
    }
  }

  private key(s: Stream): number {
    return s.start + s.length * s.stride
  }

  private link(s: Stream): void {
    const k = this.key(s)
    this.table.set(k, [s, ...(this.table.get(k) ?? [])])
  }

  private unlink(s: Stream): void {
    const k = this.key(s)
    const rest = (this.table.get(k) ?? []).filter((x) => x !== s)
    if (rest.length > 0) this.table.set(k, rest)
    else this.table.delete(k)
  }

  private retire(s: Stream): void {
    this.unlink(s)
    this.live.delete(s)
    this.tally.add(s.length, s.stride, s.size)
  }

  finish(): StreamStatistics {
    for (const s of [...this.live]) this.retire(s)
    return this.tally.result(this.t, this.window)
  }
}
