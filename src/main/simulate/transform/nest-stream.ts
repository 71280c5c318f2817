/**
 * A loop transform applied to a stream of decoded batches: accesses of the nest's points are
 * held until the run of them ends (an access of another point, or the end of the trace), then
 * handed on in the new order (nest-plan.ts); every other access passes unchanged and in place.
 * A run that cannot be transformed throws NestRefusal: nothing else is simulated instead.
 */
import type { AccessBatch } from '../hierarchy'
import { NestRefusal, planNest, type NestOrder, type NestShape, type PointName } from './nest-plan'

/** The most accesses one run of a nest may hold to be reordered (about 2 GB with its plan). */
export const MAX_NEST_ACCESSES = 100_000_000

export class NestStream {
  private points = new Uint32Array(1024)
  private addresses = new Float64Array(1024)
  private sizes = new Uint16Array(1024)
  private held = 0
  /** Runs transformed so far, with their shapes (for the report of what was simulated). */
  readonly shapes: NestShape[] = []

  /**
   * `inNest[p]`: whether point p is one of the nest's; `writes[p]`: whether it writes.
   */
  constructor(
    private readonly inNest: Uint8Array,
    private readonly writes: Uint8Array,
    private readonly order: NestOrder,
    private readonly name: PointName,
    private readonly limit = MAX_NEST_ACCESSES
  ) {}

  /**
   * The batches to simulate for `batch`, in order. They may view `batch`'s arrays (valid as
   * long as they are) or this stream's own (valid until the next call).
   */
  push(batch: AccessBatch): AccessBatch[] {
    const out: AccessBatch[] = []
    const { points, count } = batch
    const inNest = this.inNest
    let from = 0 // first access of batch not yet handed on or held
    for (let k = 0; k < count; k++) {
      const p = points[k]!
      const nest = p < inNest.length && inNest[p] === 1
      if (nest) continue
      // An access outside the nest: what precedes it since `from` belongs to the current run.
      if (k > from) this.hold(batch, from, k)
      if (this.held > 0) out.push(this.flushRun())
      // Pass the outside accesses through up to the next nest access.
      let e = k + 1
      while (e < count && !(points[e]! < inNest.length && inNest[points[e]!] === 1)) e++
      out.push(slice(batch, k, e))
      from = e
      k = e - 1
    }
    if (from < count) this.hold(batch, from, count)
    return out
  }

  /** The last run, if the trace ends inside the nest. */
  finish(): AccessBatch[] {
    return this.held > 0 ? [this.flushRun()] : []
  }

  private hold(batch: AccessBatch, from: number, to: number): void {
    const n = to - from
    if (this.held + n > this.limit)
      throw new NestRefusal(`the nest runs more than ${this.limit.toLocaleString('en-US')} accesses without a break, more than Stride holds in memory to reorder them; trace the program on a smaller input`)
    if (this.held + n > this.points.length) {
      const size = Math.max(this.held + n, this.points.length * 2)
      this.points = grow(this.points, new Uint32Array(size), this.held)
      this.addresses = grow(this.addresses, new Float64Array(size), this.held)
      this.sizes = grow(this.sizes, new Uint16Array(size), this.held)
    }
    this.points.set(batch.points.subarray(from, to), this.held)
    this.addresses.set(batch.addresses.subarray(from, to), this.held)
    this.sizes.set(batch.sizes.subarray(from, to), this.held)
    this.held += n
  }

  private flushRun(): AccessBatch {
    const count = this.held
    const run = { count, points: this.points, addresses: this.addresses, sizes: this.sizes }
    const plan = planNest(run, (p) => this.writes[p] === 1, this.order, this.name)
    this.shapes.push(plan.shape)
    const out = { count, points: new Uint32Array(count), addresses: new Float64Array(count), sizes: new Uint16Array(count) }
    for (let k = 0; k < count; k++) {
      const from = plan.order[k]!
      out.points[k] = run.points[from]!
      out.addresses[k] = run.addresses[from]!
      out.sizes[k] = run.sizes[from]!
    }
    this.held = 0
    return out
  }
}

function slice(batch: AccessBatch, from: number, to: number): AccessBatch {
  return { count: to - from, points: batch.points.subarray(from, to), addresses: batch.addresses.subarray(from, to), sizes: batch.sizes.subarray(from, to) }
}

function grow<T extends Uint32Array | Float64Array | Uint16Array>(old: T, into: T, used: number): T {
  into.set(old.subarray(0, used) as never)
  return into
}
