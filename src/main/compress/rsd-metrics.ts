/**
 * METRIC section 9 stream metrics per access point, from the RSDs the PRSD detector forms at
 * level 0. Level 0 of the detector splits each point's address sequence greedily into RSDs
 * (two addresses start one; it grows while predicted), independently of the higher levels;
 * this tracker runs the same rule over the whole trace, across chunk boundaries, so the
 * metrics do not depend on how the trace was cut into chunks.
 *
 *   regularity          predictable accesses / accesses, predictable = inside an RSD of >= 3
 *   mean stream length  mean length of the RSDs (of >= 3)
 *   lengths, strides    distinct RSD lengths and strides, as fractions of the RSDs
 */
import { MIN_RSD_LENGTH } from './prsd'

export interface PointStreamMetrics {
  point: number
  accesses: number
  predictable: number
  /** RSDs of at least MIN_RSD_LENGTH. */
  streams: number
  lengthSum: number
  /** [length, count] and [stride, count], most frequent first, at most HISTOGRAM_LIMIT each. */
  lengths: Array<[number, number]>
  strides: Array<[number, number]>
  distinctLengths: number
  distinctStrides: number
}

export const HISTOGRAM_LIMIT = 32

export class RsdMetrics {
  private state: Uint8Array
  private start: Float64Array
  private stride: Float64Array
  private length: Float64Array
  private accesses: Float64Array
  private predictable: Float64Array
  private lengthHist: Array<Map<number, number> | undefined> = []
  private strideHist: Array<Map<number, number> | undefined> = []

  constructor(points = 0) {
    this.state = new Uint8Array(points)
    this.start = new Float64Array(points)
    this.stride = new Float64Array(points)
    this.length = new Float64Array(points)
    this.accesses = new Float64Array(points)
    this.predictable = new Float64Array(points)
  }

  grow(points: number): void {
    if (points <= this.state.length) return
    const cap = Math.max(points, this.state.length * 2)
    const f = <T extends Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap)
      b.set(a)
      return b
    }
    this.state = f(this.state, (n) => new Uint8Array(n))
    this.start = f(this.start, (n) => new Float64Array(n))
    this.stride = f(this.stride, (n) => new Float64Array(n))
    this.length = f(this.length, (n) => new Float64Array(n))
    this.accesses = f(this.accesses, (n) => new Float64Array(n))
    this.predictable = f(this.predictable, (n) => new Float64Array(n))
  }

  add(point: number, address: number): void {
    this.accesses[point]!++
    const s = this.state[point]!
    if (s === 2) {
      if (address === this.start[point]! + this.length[point]! * this.stride[point]!) {
        this.length[point]!++
        return
      }
      this.close(point)
      this.state[point] = 1
      this.start[point] = address
    } else if (s === 1) {
      this.stride[point] = address - this.start[point]!
      this.length[point] = 2
      this.state[point] = 2
    } else {
      this.state[point] = 1
      this.start[point] = address
    }
  }

  private close(point: number): void {
    const len = this.length[point]!
    if (len < MIN_RSD_LENGTH) return
    this.predictable[point]! += len
    const lh = (this.lengthHist[point] ??= new Map())
    lh.set(len, (lh.get(len) ?? 0) + 1)
    const sh = (this.strideHist[point] ??= new Map())
    const st = this.stride[point]!
    sh.set(st, (sh.get(st) ?? 0) + 1)
  }

  /** Ends every open RSD (end of trace) and returns the metrics of points with accesses. */
  finish(): PointStreamMetrics[] {
    const out: PointStreamMetrics[] = []
    for (let p = 0; p < this.state.length; p++) {
      if (this.state[p] === 2) this.close(p)
      this.state[p] = 0
      if (this.accesses[p] === 0) continue
      const lh = this.lengthHist[p] ?? new Map<number, number>()
      const sh = this.strideHist[p] ?? new Map<number, number>()
      let streams = 0
      let lengthSum = 0
      for (const [len, n] of lh) {
        streams += n
        lengthSum += len * n
      }
      const top = (m: Map<number, number>) => [...m].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, HISTOGRAM_LIMIT)
      out.push({
        point: p,
        accesses: this.accesses[p]!,
        predictable: this.predictable[p]!,
        streams,
        lengthSum,
        lengths: top(lh),
        strides: top(sh),
        distinctLengths: lh.size,
        distinctStrides: sh.size
      })
    }
    return out
  }
}
