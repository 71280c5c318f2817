/**
 * Mohan's per-function stream statistics kept while a trace runs: the session writer hands
 * every sealed chunk here (SessionWriter.feedChunks), in trace order, and the native detectors
 * take it on Node's thread pool, so once the trace ends only `finish` remains instead of
 * re-decoding the stored trace (computeFunctionStreams, 0.8 s for 15.6 M accesses).
 *
 * A chunk is fed once the functions of all its points are known (`functionsOf`: each point's
 * object's symbols, read while the program runs). `finish` returns the rows only when they are
 * exactly those computeFunctionStreams would store: every stored access fed, and each point's
 * function the one named after the trace; otherwise null, and the caller computes them from
 * the stored trace as before.
 */
import { NativeStreamDetectors } from '../compress/native-streams'
import { grownFor } from '../typed-arrays'
import { DEFAULT_WINDOW } from '../compress/stream-detector'
import type { PointRecord } from './session-writer'
import { functionGroups, functionRows, UNKNOWN_FUNCTION, type FunctionStreams } from './stream-store'

/** The functions of points[from..] (null: in no readable object). */
export type FunctionsOf = (points: readonly PointRecord[], from: number) => Promise<Array<string | null>>

export class LiveFunctionStreams {
  private readonly detectors: NativeStreamDetectors
  /** Point -> group, for the points known so far (grown by doubling). */
  private groupOf = new Int32Array(256)
  private readonly functions: Array<string | null> = []
  private readonly groups = new Map<string, number>()
  /** The last chunk's feed: each waits for the one before (trace order, one add at a time). */
  private tail: Promise<void> = Promise.resolve()
  private fed = 0
  private failure: string | null = null
  /** Why finish returned null (for the log). */
  reason: string | null = null

  constructor(
    private readonly functionsOf: FunctionsOf,
    private readonly window = DEFAULT_WINDOW
  ) {
    this.detectors = new NativeStreamDetectors(new Int32Array(0), 0, window)
  }

  /**
   * Queues one chunk; `table` holds every point it names. Resolves once the detectors are done
   * with the arrays (they must not change before); never rejects: a failure only means the
   * statistics are computed after the trace instead.
   */
  feed(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, table: readonly PointRecord[]): Promise<void> {
    this.tail = this.tail.then(() => this.feedNow(count, points, addresses, sizes, table))
    return this.tail
  }

  private async feedNow(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, table: readonly PointRecord[]): Promise<void> {
    if (this.failure) return
    try {
      if (table.length > this.functions.length) this.addPoints(table.length, await this.functionsOf(table, this.functions.length))
      await this.detectors.addAsync(count, points.subarray(0, count), addresses.subarray(0, count), sizes.subarray(0, count))
      this.fed += count
    } catch (e) {
      this.failure = e instanceof Error ? e.message : String(e)
    }
  }

  private addPoints(known: number, functions: Array<string | null>): void {
    if (known > 0) this.groupOf = grownFor(this.groupOf, known - 1)
    for (const f of functions) {
      const name = f ?? UNKNOWN_FUNCTION
      let g = this.groups.get(name)
      if (g === undefined) this.groups.set(name, (g = this.groups.size))
      this.groupOf[this.functions.length] = g
      this.functions.push(f)
    }
    // A view of the known points: an access of a later point is refused, never misfiled.
    this.detectors.grow(this.groupOf.subarray(0, known), this.groups.size)
  }

  /**
   * The stored rows, once every queued chunk is fed: those of computeFunctionStreams over the
   * stored trace of `events` accesses whose points' functions are `pointFunction`, or null when
   * this run's cannot be trusted to equal them (then why, in `reason`).
   */
  async finish(pointFunction: ReadonlyArray<string | null>, events: number): Promise<FunctionStreams[] | null> {
    await this.tail
    this.reason = this.mismatch(pointFunction, events)
    if (this.reason) return null
    const stats = this.detectors.finish()
    // Groups were numbered as functions appeared; the rows go in the post-run order (a function
    // only of points never accessed has no group here, and no row there).
    const names = functionGroups(pointFunction).filter((n) => this.groups.has(n))
    return functionRows(names, names.map((n) => stats[this.groups.get(n)!]!))
  }

  private mismatch(pointFunction: ReadonlyArray<string | null>, events: number): string | null {
    if (this.failure) return this.failure
    if (this.fed !== events) return `${this.fed} of ${events} accesses were fed`
    if (this.functions.length > pointFunction.length) return 'more points were fed than the trace has'
    for (let p = 0; p < this.functions.length; p++)
      if (this.functions[p] !== pointFunction[p]) return `point ${p} was in ${this.functions[p]} while the trace ran, in ${pointFunction[p]} after`
    return null
  }
}
