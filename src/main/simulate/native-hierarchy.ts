/**
 * The production simulator: the hierarchy of `hierarchy.ts` run by Stride's native core
 * (resources/native/core/src/sim, C behind Node-API). Batches cross as typed arrays, one
 * call per batch; results come back as the same typed layouts the reference model gives
 * (`pointResults`, `levelExtras`), so the store and the views do not know which ran.
 * `hierarchy.ts` stays as the readable reference model; `native-hierarchy.test.ts` holds the
 * two to identical counts, extras, evictors, timelines and miss streams.
 */
import { tlbThreadPays } from './tlb-thread'
import type { HierarchyConfig, LevelTotals } from '../../shared/domain'
import { nativeCore } from '../native/core'
import type { EvictorCount } from './evictor-matrix'
import { POLICY_CODE } from './cache-level'
import { checkHierarchy, PF_NONE, prefetchCode, sumLevelTotals, type AccessBatch, type HierarchyOptions, type TimelineCell } from './hierarchy'

type Handle = { readonly __sim: unique symbol }

interface SimExports {
  simCreate(specs: Float64Array, nCaches: number, nTlb: number, compatible: number, fastPath: number, interval: number, maxIntervals: number, nVars: number, missLevel: number, split: number): Handle
  simSetPoints(sim: Handle, kinds: Uint8Array, variables: Int32Array | null, parents: Uint32Array | null): void
  simRun(sim: Handle, count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array): number
  simRunAsync(sim: Handle, count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array): Promise<number>
  simMisses(sim: Handle): Uint32Array
  simFinish(sim: Handle): void
  simStats(sim: Handle): Float64Array
  simExtras(sim: Handle): Float64Array
  simTimeline(sim: Handle): Float64Array
  simEvictors(sim: Handle, level: number): Float64Array
  simInfo(sim: Handle): Float64Array
  simCapture(sim: Handle): void
  simCaptureClear(sim: Handle): void
  simFollow(sim: Handle, first: Handle): void
  simAdopt(sim: Handle, first: Handle): void
  simCapturedTake(sim: Handle): Uint8Array
  simFollowEncoded(sim: Handle, bytes: Uint8Array): void
  simAdvance(sim: Handle, accesses: number): void
  simRawStats(sim: Handle): Float64Array
  simRefs(sim: Handle): Float64Array
  simLoadFirst(sim: Handle, raw: Float64Array, refs: Float64Array, extras: Float64Array, evictors: Float64Array[]): void
}

const core = (): SimExports => nativeCore() as unknown as SimExports

/**
 * A batch's point SIM_CONTEXT | flags (resources/native/core/src/sim/context.h) is a context
 * access: the rest of the program's, warming a function-scoped trace's first simulation. It
 * changes the cache and TLB state as a demand access does and counts for no point; its
 * evictions are OWNER_CONTEXT's. The native simulator only (the reference model has no such
 * access); flags: 1 read, 2 a write before it, 4 a write after it, 8 a modify's write after it.
 */
export const SIM_CONTEXT = 0xfffffff0

/** Numbers per level in the spec array (see src/sim/register.c). */
const SPEC_FIELDS = 9

export interface NativeHierarchyOptions extends HierarchyOptions {
  /** Keep the batch index of every miss at this level (caches first, then TLBs): `lastMisses()`. */
  missLevel?: number
  /**
   * Adaptive timeline intervals, for a trace simulated while it is recorded (its length not yet
   * known): from `timelineInterval` on, the interval doubles, its cells merged pairwise, each time
   * twice this many intervals have closed. Exact: a run at the final `timelineInterval` would have
   * closed the same cells, since every interval boundary is one of the narrower widths too.
   */
  adaptiveIntervals?: number
  /**
   * Run the TLB levels on a thread of their own beside the caches (nothing crosses between them;
   * results identical). Split, a batch takes less time but more CPU in all (each part reads the
   * batch), so it pays only with a core to spare. Default: from three cores, since a stored trace
   * is read with the next chunk decoding on the thread pool, which takes the second (on two, a
   * what-if of heat with L1, L2 and a DTLB took 1.04 s in one thread and 1.08 s split). A sweep
   * passes whether its workers leave cores free.
   */
  tlbThread?: boolean
  /**
   * Per point, the point whose stride-prefetcher state it uses (default: its own): a reference
   * split into one point per data structure it touches (touch-hierarchy.ts) keeps one detector.
   */
  pointParents?: Uint32Array
}

export class NativeHierarchy {
  /** Level names, caches first then TLB levels (the stats' level order). */
  readonly names: string[]
  private readonly sim: Handle
  private pointCount: number
  private timeline: TimelineCell[] = []
  private readonly adaptive: boolean
  accesses = 0

  constructor(config: HierarchyConfig, pointKinds: Uint8Array, options: NativeHierarchyOptions = {}) {
    const { caches, tlb } = checkHierarchy(config)
    const specs = new Float64Array((caches.length + tlb.length) * SPEC_FIELDS)
    caches.forEach((l, i) =>
      specs.set([l.size, l.assoc, l.lineSize, POLICY_CODE[l.policy ?? 'lru'], (l.seed ?? 1) >>> 0, l.writePolicy === 'write-through' ? 1 : 0, l.writeAllocate === false ? 0 : 1, l.inclusive ? 1 : 0, prefetchCode(l)], i * SPEC_FIELDS)
    )
    tlb.forEach((t, i) => specs.set([t.size, t.assoc, t.lineSize, POLICY_CODE[t.policy], 1, 0, 1, 0, PF_NONE], (caches.length + i) * SPEC_FIELDS))
    this.names = [...caches, ...tlb].map((l) => l.name)
    const pointVariables = options.pointVariables ?? null
    const interval = pointVariables && options.timelineInterval && options.timelineInterval > 0 ? options.timelineInterval : 0
    const missLevel = options.missLevel ?? -1
    if (missLevel !== -1 && !(Number.isInteger(missLevel) && missLevel >= 0 && missLevel < this.names.length))
      throw new Error(`level ${missLevel} is not in this hierarchy (0..${this.names.length - 1})`)
    const adaptive = interval > 0 && options.adaptiveIntervals ? options.adaptiveIntervals : 0
    if (!(Number.isInteger(adaptive) && adaptive >= 0 && adaptive < 2 ** 31)) throw new Error(`adaptiveIntervals must be a whole number, not ${adaptive}`)
    this.adaptive = adaptive > 0
    const split = options.tlbThread ?? tlbThreadPays(2)
    this.sim = core().simCreate(specs, caches.length, tlb.length, config.cachegrindCompatible ? 1 : 0, options.fastPath === false ? 0 : 1, interval, adaptive, options.variableCount ?? 0, missLevel, split ? 1 : 0)
    core().simSetPoints(this.sim, pointKinds, pointVariables, options.pointParents ?? null)
    this.pointCount = pointKinds.length
  }

  /** The point table grew (streamed traces, virtual points): the counts so far are kept. */
  setPointKinds(pointKinds: Uint8Array, pointVariables?: Int32Array, pointParents?: Uint32Array): void {
    core().simSetPoints(this.sim, pointKinds, pointVariables ?? null, pointParents ?? null)
    this.pointCount = pointKinds.length
  }

  /** Simulates one batch; returns the number of misses at `missLevel` in it. */
  run(batch: AccessBatch): number {
    const n = core().simRun(this.sim, batch.count, batch.points, batch.addresses, batch.sizes)
    this.accesses += batch.count
    return n
  }

  /**
   * run on Node's thread pool: the caller's thread goes on meanwhile. The batch's arrays must
   * not change until it settles, and the hierarchy refuses every other call until then.
   * `recorded`: how many of the batch are accesses of points, the others being context
   * accesses (SIM_CONTEXT), which count for no point and not in `accesses`.
   */
  async runAsync(batch: AccessBatch, recorded = batch.count): Promise<number> {
    const n = await core().simRunAsync(this.sim, batch.count, batch.points, batch.addresses, batch.sizes)
    this.accesses += recorded
    return n
  }

  /** Batch indexes of the last batch's misses at `missLevel`, in order (a modify's read and write may both miss). */
  lastMisses(): Uint32Array {
    return core().simMisses(this.sim)
  }

  /** Ends the run: resident lines count as line ends, the last partial interval closes. Call once. */
  finish(): void {
    core().simFinish(this.sim)
  }

  /** Per point x level x STAT_* counts (a copy). */
  pointResults(): Float64Array {
    return core().simStats(this.sim)
  }

  /** Per level x EXTRA_* counters (a copy). */
  levelExtras(): Float64Array {
    return core().simExtras(this.sim)
  }

  /** Every timeline cell closed so far, in order (adaptive: at `timelineInterval` now). */
  timelineCells(): TimelineCell[] {
    const rows = core().simTimeline(this.sim)
    // Adaptive: the core keeps every cell, since later ones may merge them.
    if (this.adaptive) this.timeline = []
    for (let i = 0; i < rows.length; i += 4) this.timeline.push({ level: rows[i]!, variable: rows[i + 1]!, interval: rows[i + 2]!, misses: rows[i + 3]! })
    return this.timeline
  }

  /** Accesses per timeline interval now (adaptive intervals grow; 0: no timeline). */
  get timelineInterval(): number {
    return core().simInfo(this.sim)[0]!
  }

  /** Bytes of C memory the hierarchy holds (levels, counts, evictors, timeline). */
  get bytes(): number {
    return core().simInfo(this.sim)[2]!
  }

  levelTotals(): LevelTotals[] {
    return sumLevelTotals(this.names, this.pointResults(), this.pointCount)
  }

  /**
   * This hierarchy (one cache level, and TLB levels) keeps what leaves its cache level for the
   * level below, batch by batch, for hierarchies that share it (first-level-group.ts). It must
   * run unsplit (tlbThread false).
   */
  captureFirstLevel(): void {
    core().simCapture(this.sim)
  }

  /** Runs this hierarchy's lower cache levels over what `first`'s level let through in its last batch. */
  follow(first: NativeHierarchy): void {
    core().simFollow(this.sim, first.sim)
    this.accesses = first.accesses
  }

  /** The captured stream, emptied once every follower has followed it. */
  clearCaptured(): void {
    core().simCaptureClear(this.sim)
  }

  /** Both finished: the first level's and the TLB levels' counts, evictors and timeline from `first`, whose levels this hierarchy's are. */
  adopt(first: NativeHierarchy): void {
    core().simAdopt(this.sim, first.sim)
  }

  /** The stream captured since the last take, encoded (as stored with a trace's first run), and emptied. */
  takeCaptured(): Uint8Array {
    return core().simCapturedTake(this.sim)
  }

  /** Runs the lower cache levels over a stored block of a first level's stream (takeCaptured's bytes). */
  followStored(bytes: Uint8Array): void {
    core().simFollowEncoded(this.sim, bytes)
  }

  /** The followed run has reached its end: `accesses` in all. */
  followedTo(accesses: number): void {
    core().simAdvance(this.sim, accesses)
    this.accesses = accesses
  }

  /** The first level's state as stored (it is one: its cache level and TLB levels): raw rows per point x level x STAT_*, and per point x kind its references. */
  firstLevelState(): { raw: Float64Array; refs: Float64Array } {
    return { raw: core().simRawStats(this.sim), refs: core().simRefs(this.sim) }
  }

  /** A stored first level (firstLevelState, levelExtras, evictor triples per level) as this hierarchy's first and TLB levels. */
  loadFirstLevel(raw: Float64Array, refs: Float64Array, extras: Float64Array, evictors: Float64Array[]): void {
    core().simLoadFirst(this.sim, raw, refs, extras, evictors)
  }

  /** Evictee x evictor counts per level, in (evictee, evictor) order. */
  evictorEntries(): EvictorCount[][] {
    return this.names.map((_, l) => {
      const rows = core().simEvictors(this.sim, l)
      const out: EvictorCount[] = []
      for (let i = 0; i < rows.length; i += 3) out.push({ evictee: rows[i]!, evictor: rows[i + 1]!, count: rows[i + 2]! })
      return out
    })
  }
}
