/**
 * The access records of Stride's Valgrind tool, copied into the tracer's batch by the native
 * core (resources/native/core/src/trace/scan.c): no JavaScript runs per access on the way in.
 */
import { StrideError } from '../../../shared/errors'
import { nativeCore } from '../../native/core'

/** The tracer's batch: accesses in stream order, with the session point and thread of each. */
export interface AccessBatch {
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
  threads: Uint16Array
}

/**
 * The first simulation's batch of a trace with whole-program context: the recorded accesses
 * (session points) and the context records (SIM_CONTEXT | flags, native-hierarchy.ts) in stream
 * order. `state` = [used, capacity, outEnd]: the scan adds at `used` and stops when it reaches
 * capacity; `outEnd` is where the tracer's batch ends after a scan.
 */
export interface SimBatch {
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
  state: Uint32Array
}

/**
 * The frames the naming keeps, for the scan to pass over function entries and returns that
 * change none: `entries`, ascending, are the functions with kept locals; `top[thread]` is the
 * CFA of the thread's innermost kept frame (Infinity: none). The owner keeps both current and
 * replaces `entries` (a new array) when it changes.
 */
export interface FrameFilter {
  entries: Float64Array
  top: Float64Array
}

const NO_FRAME_FILTER: FrameFilter = { entries: new Float64Array(0), top: new Float64Array(0) }

/** No simulator batch (its state still takes outEnd). */
export const noSimBatch = (): SimBatch => ({ points: new Uint32Array(0), addresses: new Float64Array(0), sizes: new Uint16Array(0), state: new Uint32Array(3) })

type Bound = object
type BindScan = (
  binding: Bound | null,
  stage: Uint8Array,
  toolPoints: Int32Array,
  points: Uint32Array,
  addresses: Float64Array,
  sizes: Uint16Array,
  threads: Uint16Array,
  counts: Float64Array,
  simPoints: Uint32Array,
  simAddresses: Float64Array,
  simSizes: Uint16Array,
  simState: Uint32Array,
  args: Uint32Array,
  frameEntries: Float64Array,
  frameTop: Float64Array
) => Bound
/** Reads [from, end, defined, outAt, outCap] from the bound args and writes where it stopped into args[5]. */
type RunScan = (binding: Bound) => void

/**
 * The scan, its seven arrays bound once (traceScanBind) and bound again only when one is
 * replaced: a C++ program's trace scans once per run of accesses between two control records,
 * millions of times, and looking up twelve arguments per call cost most of each (jsoncpp: 2.8 s).
 */
export class NativeScan {
  private readonly bindScan: BindScan
  private readonly runScan: RunScan
  private binding: Bound | null = null
  private readonly noSim = noSimBatch()
  /** The run's numbers, through an array bound with the rest: a call converts no argument (scan.c). */
  private readonly args = new Uint32Array(6)
  private bound: { stage: Uint8Array; toolPoints: Int32Array; batch: AccessBatch; points: Uint32Array; counts: Float64Array; sim: SimBatch; simPoints: Uint32Array; entries: Float64Array; top: Float64Array } | null = null

  constructor() {
    const core = nativeCore() as { traceScanBind?: unknown; traceScanRun?: unknown }
    if (typeof core.traceScanBind !== 'function' || typeof core.traceScanRun !== 'function')
      throw new StrideError('Stride\'s native core predates the bound record scan: run "npm install" (or "node scripts/build-native.mjs") to rebuild it.', 'tool-missing')
    this.bindScan = core.traceScanBind as BindScan
    this.runScan = core.traceScanRun as RunScan
  }

  /**
   * Copies access records from `stage` (byte offsets `from`..`end`, whole records) into `batch`
   * at `outAt` until a control record, an access of an undefined tool point (>= `defined`) or of
   * one without a session point yet (`toolPoints` -1), or `outCap`; `counts[point]` grows by
   * each access. Returns the byte offset it stopped at. With `sim`, every access and context
   * record also goes there (and the scan stops when it is full); without, context records are
   * passed over. `sim.state[2]` is then the batch index after the last access copied. With
   * `frames`, entries and returns that change no kept frame are passed over too (FrameFilter).
   */
  scan(stage: Uint8Array, from: number, end: number, toolPoints: Int32Array, defined: number, batch: AccessBatch, outAt: number, outCap: number, counts: Float64Array, sim: SimBatch = this.noSim, frames: FrameFilter = NO_FRAME_FILTER): number {
    const b = this.bound
    if (
      b === null || b.stage !== stage || b.toolPoints !== toolPoints || b.batch !== batch || b.points !== batch.points || b.counts !== counts ||
      b.sim !== sim || b.simPoints !== sim.points || b.entries !== frames.entries || b.top !== frames.top
    ) {
      this.binding = this.bindScan(this.binding, stage, toolPoints, batch.points, batch.addresses, batch.sizes, batch.threads, counts, sim.points, sim.addresses, sim.sizes, sim.state, this.args, frames.entries, frames.top)
      this.bound = { stage, toolPoints, batch, points: batch.points, counts, sim, simPoints: sim.points, entries: frames.entries, top: frames.top }
    }
    const a = this.args
    // Below 2^32 (the stage's and batch's sizes are): a Uint32Array would wrap others silently.
    if (!(from >= 0 && end <= 0xffffffff && defined >= 0 && defined <= 0xffffffff && outAt >= 0 && outCap <= 0xffffffff))
      throw new Error(`traceScan: offsets and counts must be below 2^32 (${from}, ${end}, ${defined}, ${outAt}, ${outCap})`)
    a[0] = from
    a[1] = end
    a[2] = defined
    a[3] = outAt
    a[4] = outCap
    this.runScan(this.binding!)
    return a[5]!
  }
}
