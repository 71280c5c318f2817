/**
 * The correlator's per-access loop in the native core (resources/native/core/src/trace/
 * attribute.c): the accesses that a point's remembered span answers are counted there into
 * the point's run, a run that ends closed into PointCounts; the loop stops at the first it
 * cannot answer, for the correlator to handle. The arrays are bound once and bound again only
 * when one is replaced (a batch, a grown table): on a heap-heavy program the loop stops often,
 * and looking up thirteen arguments per call cost more than the loop. A span from an earlier
 * epoch that none of the changes logged since touched is brought up to date there
 * (AddressMap.untouched). An access its point's span does not answer is searched there too
 * when the map's last answer, a local of the thread's frames (FrameTable) or a heap block
 * holds it (MapState), or when nothing can (unknown, the gap around it the point's span): a
 * point walking a C++ map's nodes meets a new block at almost every step, and a program's
 * untraced functions' stack slots lie between its traced frames' locals.
 */
import { StrideError } from '../../shared/errors'
import { nativeCore } from '../native/core'
import type { Spans } from './address-map'
import type { PointCounts } from './point-counts'

type Bound = object
type Arrays = [Uint32Array, Float64Array, Float64Array, Float64Array, Float64Array, Int32Array, Uint8Array, Int32Array, Uint8Array, Float64Array, Float64Array, Float64Array, Uint16Array, Float64Array, Float64Array, Int32Array, Float64Array, Int32Array, Int32Array, Uint32Array, Int32Array, Uint8Array, Float64Array, Float64Array, Float64Array, Float64Array]
type AttributeExports = {
  traceAttributeBind: (binding: Bound | null, ...arrays: Arrays) => Bound
  traceAttributeRun: (binding: Bound, from: number, to: number, epoch: number) => number
}

function attributeExports(): AttributeExports {
  const core = nativeCore() as unknown as Partial<AttributeExports>
  if (typeof core.traceAttributeBind !== 'function' || typeof core.traceAttributeRun !== 'function')
    throw new StrideError('Stride\'s native core predates the correlator\'s loop: run "npm install" (or "node scripts/build-native.mjs") to rebuild it.', 'tool-missing')
  return core as AttributeExports
}

/** Per point, its current run: variable (-1: none), kind, accesses so far. */
export interface Runs {
  variable: Int32Array
  kind: Uint8Array
  count: Float64Array
}

/** The arrays a binding holds: the map's (Spans but its epoch, a number) and the batch's and runs'. */
type BoundArrays = Omit<Spans, 'epoch'> & {
  points: Uint32Array
  addresses: Float64Array
  threads: Uint16Array
  accessVariable: Int32Array
  kindOf: Uint8Array
  runVariable: Int32Array
  runKind: Uint8Array
  runCount: Float64Array
  countSlots: Int32Array
  countPoint: Uint32Array
  countVariable: Int32Array
  countKind: Uint8Array
  countCount: Float64Array
}

/** One correlator's loop: its arrays as last bound. */
export class NativeAttribution {
  private readonly native = attributeExports()
  private binding: Bound | null = null
  /** The arrays bound (compared one by one, no array built: this runs at every access the loop stops at). */
  private bound: BoundArrays | null = null

  /**
   * Counts accesses from..to-1 (of threads[from..to-1]) into their points' runs while spans,
   * the map's last answer, the thread's locals, its heap blocks or a gap answer them, each one's variable into
   * accessVariable[i], a run that ends closed into `counts` (a point's first run is the
   * correlator's); returns where it stopped. A point's span found there is stored as
   * AddressMap.resolveAt would store it.
   */
  countAnswered(points: Uint32Array, addresses: Float64Array, threads: Uint16Array, accessVariable: Int32Array, from: number, to: number, spans: Spans, kindOf: Uint8Array, runs: Runs, counts: PointCounts): number {
    const b = this.bound
    if (
      b === null ||
      b.points !== points ||
      b.addresses !== addresses ||
      b.threads !== threads ||
      b.accessVariable !== accessVariable ||
      b.epochs !== spans.epochs ||
      b.low !== spans.low ||
      b.high !== spans.high ||
      b.variable !== spans.variable ||
      b.kindOf !== kindOf ||
      b.runVariable !== runs.variable ||
      b.runKind !== runs.kind ||
      b.runCount !== runs.count ||
      b.changeLow !== spans.changeLow ||
      b.changeHigh !== spans.changeHigh ||
      b.heapStart !== spans.heapStart ||
      b.heapEnd !== spans.heapEnd ||
      b.heapVariable !== spans.heapVariable ||
      b.state !== spans.state ||
      b.frames !== spans.frames ||
      b.locals !== spans.locals ||
      b.countSlots !== counts.slots ||
      b.countPoint !== counts.point ||
      b.countVariable !== counts.variable ||
      b.countKind !== counts.kind ||
      b.countCount !== counts.count
    )
      this.bind(points, addresses, threads, accessVariable, spans, kindOf, runs, counts)
    return this.native.traceAttributeRun(this.binding!, from, to, spans.epoch)
  }

  private bind(points: Uint32Array, addresses: Float64Array, threads: Uint16Array, accessVariable: Int32Array, spans: Spans, kindOf: Uint8Array, runs: Runs, counts: PointCounts): void {
    const { epochs, low, high, variable, changeLow, changeHigh, heapStart, heapEnd, heapVariable, state, frames, locals } = spans
    this.binding = this.native.traceAttributeBind(this.binding, points, addresses, epochs, low, high, variable, kindOf, runs.variable, runs.kind, runs.count, changeLow, changeHigh, threads, heapStart, heapEnd, heapVariable, state, accessVariable, counts.slots, counts.point, counts.variable, counts.kind, counts.count, counts.used, frames, locals)
    this.bound = { points, addresses, threads, accessVariable, epochs, low, high, variable, kindOf, runVariable: runs.variable, runKind: runs.kind, runCount: runs.count, changeLow, changeHigh, heapStart, heapEnd, heapVariable, state, frames, locals, countSlots: counts.slots, countPoint: counts.point, countVariable: counts.variable, countKind: counts.kind, countCount: counts.count }
  }
}
