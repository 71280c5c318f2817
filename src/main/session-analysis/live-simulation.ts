/**
 * A trace's first simulation fed while the program runs: the session writer hands it every
 * sealed chunk (SessionWriter.feedChunks), in trace order, and the native hierarchy simulates it
 * on Node's thread pool, so once the program ends the run is (nearly) simulated instead of the
 * stored trace being read again beside the naming.
 *
 * The trace's length is not known yet, nor the data structures its points fall in: the timeline
 * is kept per point, at adaptive intervals (exact: they merge to the interval a simulation of the
 * stored trace takes, `timelineIntervalOf`), and folded to names once the points are named.
 * `finish` hands the hierarchy over only when it simulated exactly the stored trace; otherwise
 * it says why and the caller simulates the stored trace as before. It never fails a trace.
 *
 * Given a stream writer, it keeps the first cache level for what-ifs below it
 * (store/first-level-store.ts): that level runs on its own and the hierarchy follows it
 * (simulate/first-level-group.ts: the same run, no second simulation). A run warmed by the rest
 * of the program keeps none (what-ifs are cold replays: the first replays and keeps it).
 */
import type { HierarchyConfig } from '../../shared/domain'
import type { TimelineCell } from '../simulate/hierarchy'
import { NativeHierarchy } from '../simulate/native-hierarchy'
import { TouchHierarchy } from '../simulate/touch-hierarchy'
import { NativeMissClassifier } from '../simulate/native-miss-classes'
import { tlbThreadPays } from '../simulate/tlb-thread'
import type { ChunkFeed, PointRecord } from '../store/session-writer'
import { grownFor } from '../typed-arrays'
import { atInterval, DEFAULT_INTERVALS, timelineIntervalOf } from './session-simulation'
import { FirstLevelGroup, shareableFirstLevel } from '../simulate/first-level-group'
import type { FirstLevelState, FirstLevelStreamWriter } from '../store/first-level-store'
import { firstLevelStateOf } from './stored-first-level'

/**
 * The hierarchy's C memory past which the live run is dropped (the stored trace is simulated
 * after the trace instead): per-point timeline cells grow with points x intervals x levels,
 * which a whole-program trace of a large program could make large.
 */
export const LIVE_MAX_BYTES = 256 << 20

/** A finished live run: its hierarchy, the run's interval, and its cells (per point) at that interval. */
export interface LiveRun {
  /** Per (point, data structure) when every chunk came with its data structures. */
  hierarchy: NativeHierarchy | TouchHierarchy
  interval: number
  cells: TimelineCell[]
  /** The first level's fully associative shadow, fed the same accesses (the advisor's three Cs). */
  shadow: NativeMissClassifier | null
  /** The first cache level's state, when its stream was kept for what-ifs below it (store/first-level-store.ts). */
  firstLevel: FirstLevelState | null
}

export class LiveSimulation implements ChunkFeed {
  private hierarchy: NativeHierarchy | TouchHierarchy | null = null
  /** Where the first cache level runs on its own, its stream kept (`stream`): the hierarchy above is its member. */
  private group: FirstLevelGroup | null = null
  /** Whether the chunks come with their data structures (decided by the first). */
  private byTouch: boolean | null = null
  private shadow: NativeMissClassifier | null = null
  private kinds = new Uint8Array(256)
  /** Point p's timeline variable is p: named and folded after the trace. */
  private variables = new Int32Array(256)
  private known = 0
  private fed = 0
  private tail: Promise<void> = Promise.resolve()
  private failure: string | null = null

  /**
   * With whole-program context the tracer feeds the rest of the program's accesses too
   * (feedContext), not chunk by chunk through the writer; the first level's shadow takes them as
   * the hierarchy does (they move its lines and count for no reference), so the advisor's
   * classes are the warmed run's.
   */
  constructor(
    private readonly config: HierarchyConfig,
    private readonly maxBytes = LIVE_MAX_BYTES,
    /**
     * Keeps the first cache level's stream for later what-ifs below it (a trace without the rest
     * of the program's context: a warmed first level is not the one a what-if replays).
     */
    private readonly stream: FirstLevelStreamWriter | null = null
  ) {}

  /** Queues one chunk (`table`: every point it names); resolves once done with the arrays, never rejects. */
  feed(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, table: readonly PointRecord[], variables: Int32Array | null = null): Promise<void> {
    this.tail = this.tail.then(() => this.feedNow(count, points, addresses, sizes, table, variables))
    return this.tail
  }

  /** Stops simulating (a stop after the recording, or the run is not wanted); the chunks fed so far settle. */
  feedContext(count: number, recorded: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, table: readonly PointRecord[], variables: Int32Array | null = null): Promise<void> {
    this.tail = this.tail.then(() => this.feedNow(count, points, addresses, sizes, table, variables, recorded))
    return this.tail
  }

  drop(why: string): void {
    this.failure ??= why
    this.hierarchy = null
    this.group = null
    this.shadow = null
    this.stream?.drop()
  }

  private async feedNow(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, table: readonly PointRecord[], variables: Int32Array | null, recorded = count): Promise<void> {
    if (this.failure) return
    try {
      this.byTouch ??= variables !== null
      // The stored trace then lacks that chunk's column too: simulated after the trace, by point.
      if (this.byTouch && !variables) return this.drop('a chunk came without its data structures')
      // A batch of context alone (the program before its first traced access) makes the hierarchy too.
      if (table.length > this.known || !this.hierarchy) this.addPoints(table)
      const batch = { count, points: points.subarray(0, count), addresses: addresses.subarray(0, count), sizes: sizes.subarray(0, count) }
      const h = this.hierarchy!
      const columns = variables ? variables.subarray(0, count) : null
      const run = this.group ? this.group.runAsync(batch, columns, recorded) : h instanceof TouchHierarchy ? h.runAsync(batch, columns!, recorded) : h.runAsync(batch, recorded)
      // The shadow beside the hierarchy, each on a thread of the pool (they only read the batch).
      await Promise.all([run, this.shadow?.runAsync(batch, this.kinds.subarray(0, this.known))])
      this.fed += recorded
      const bytes = this.group ? this.group.bytes : (this.hierarchy?.bytes ?? 0)
      if (bytes > this.maxBytes) this.drop(`its per-point timeline outgrew ${this.maxBytes >> 20} MiB`)
    } catch (e) {
      this.drop(e instanceof Error ? e.message : String(e))
    }
  }

  private addPoints(table: readonly PointRecord[]): void {
    const n = table.length
    this.kinds = grownFor(this.kinds, n - 1)
    this.variables = grownFor(this.variables, n - 1)
    for (let p = this.known; p < n; p++) {
      this.kinds[p] = table[p]!.kind
      this.variables[p] = p
    }
    this.known = n
    const kinds = this.kinds.subarray(0, n)
    const variables = this.variables.subarray(0, n)
    if (this.group) this.group.setPointKinds(kinds, variables)
    else if (this.hierarchy) this.hierarchy.setPointKinds(kinds, variables)
    else {
      // The user's interval as it is; else from one access on, doubling (at most 2 x the
      // default count of intervals kept), to merge into timelineIntervalOf's at the end.
      const fixed = this.config.timelineInterval ?? null
      const options = { pointVariables: variables, variableCount: n, timelineInterval: fixed ?? 1, ...(fixed ? {} : { adaptiveIntervals: DEFAULT_INTERVALS }) }
      if (this.stream && shareableFirstLevel(this.config) !== null) {
        // The first level on its own, its stream kept, and the hierarchy following it (unsplit).
        this.group = new FirstLevelGroup([this.config], kinds, options, this.byTouch!)
        const stream = this.stream
        this.group.onStream = (block) => stream.block(block)
        this.hierarchy = this.group.members[0]!
      } else {
        // The recording keeps two cores busy (the tool and this worker): a TLB thread would take
        // CPU from it, not add any.
        this.hierarchy = new (this.byTouch ? TouchHierarchy : NativeHierarchy)(this.config, kinds, { ...options, tlbThread: tlbThreadPays(3) })
      }
      this.shadow = firstLevelShadow(this.config)
    }
  }

  /**
   * Once every chunk is fed: the finished run when it simulated exactly the stored trace
   * (`kinds`: its point table; `total`: its accesses), else why not.
   */
  async finish(kinds: Uint8Array, total: number): Promise<LiveRun | string> {
    await this.tail
    const h = this.hierarchy
    if (this.failure || !h) return this.failure ?? 'no chunk was fed'
    if (this.fed !== total) return `${this.fed} of ${total} accesses were fed`
    if (this.known > kinds.length) return 'more points were fed than the trace has'
    for (let p = 0; p < this.known; p++) if (this.kinds[p] !== kinds[p]) return `point ${p} changed its kind after it was fed`
    // Points stored with no access fed (none, normally) simply count nothing, as in a simulation of the stored trace.
    const group = this.group
    if (kinds.length > this.known) (group ?? h).setPointKinds(kinds, Int32Array.from({ length: kinds.length }, (_, p) => p))
    if (group) group.finish()
    else h.finish()
    const shadow = this.shadow
    this.hierarchy = null
    this.group = null
    this.shadow = null
    const interval = timelineIntervalOf(this.config, total)
    // The first level's own figures after its member took them (a timeline read drops unkept cells).
    const firstLevel = group ? firstLevelStateOf(group.firstLevel, this.config, interval, true) : null
    return { hierarchy: h, interval, cells: atInterval(h.timelineCells(), h.timelineInterval, interval), shadow, firstLevel }
  }
}

/**
 * The shadow of the first cache level that a first simulation feeds (null: none, for a
 * hierarchy without a cache level, or with a layout filter, whose addresses the shadow would
 * need mapped; the advisor then replays the trace as before).
 */
export function firstLevelShadow(config: HierarchyConfig): NativeMissClassifier | null {
  const first = config.levels[0]
  if (!first || (config.layout && config.layout.length > 0) || (config.transforms && config.transforms.length > 0)) return null
  return new NativeMissClassifier(first)
}
