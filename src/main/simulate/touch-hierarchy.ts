/**
 * The native hierarchy run over *touches*: a touch is one (access point, data structure) pair,
 * and each access is simulated as its touch, so every per-point count the simulator keeps
 * (reads, writes, misses, temporal and spatial hits, used bytes, line ends, evictions) comes
 * out per data structure too, counted access by access. A reference that touched several
 * data structures has exact figures for each: nothing is apportioned.
 *
 * The rules do not look at point ids except to own lines (evictors, line ends: still per
 * touch, folded to points exactly) and the stride prefetcher's per-point detector, which a
 * touch shares with its point's first touch (`pointParents`). So the folded per-point results
 * equal a simulation of the same accesses by point, number for number (touch-hierarchy.test.ts).
 * Touches are numbered in order of first access: the same trace gives the same numbering.
 * The per-access cost is one look-up of the point's last touch, in the native core
 * (resources/native/core/src/trace/column.c `touchRemap`).
 */
import type { HierarchyConfig, LevelTotals } from '../../shared/domain'
import type { EvictorCount } from './evictor-matrix'
import { STAT_FIELDS, sumLevelTotals, type AccessBatch, type TimelineCell } from './hierarchy'
import { NativeHierarchy, type NativeHierarchyOptions } from './native-hierarchy'
import { grownFor } from '../typed-arrays'
import { nativeCore } from '../native/core'
import { StrideError } from '../../shared/errors'

type RemapExports = {
  touchRemap: (points: Uint32Array, variables: Int32Array, count: number, lastVariable: Int32Array, lastTouch: Int32Array, firstTouch: Int32Array, nextTouch: Int32Array, touchVariable: Int32Array, touchPoint: Uint32Array, state: Float64Array, out: Uint32Array) => number
}

function remapExport(): RemapExports['touchRemap'] {
  const core = nativeCore() as unknown as Partial<RemapExports>
  if (typeof core.touchRemap !== 'function') throw new StrideError('Stride\'s native core predates per-data-structure simulation: run "npm install" (or "node scripts/build-native.mjs") to rebuild it.', 'tool-missing')
  return core.touchRemap
}

/** Per touch: its point, its data structure (the correlator's variable id) and per level x STAT_* counts. */
export interface TouchResults {
  count: number
  points: Uint32Array
  variables: Int32Array
  stats: Float64Array
}

export class TouchHierarchy {
  readonly names: string[]
  private readonly inner: NativeHierarchy
  private pointKinds: Uint8Array
  private pointVariables: Int32Array | null
  /** Per point: its last touch and that touch's variable (-1: none yet). */
  private lastTouch = new Int32Array(0)
  private lastVariable = new Int32Array(0)
  /** Per point: its first touch (the prefetcher state's owner), then each touch's next of the same point (-1: none). */
  private firstTouch = new Int32Array(0)
  private nextTouch = new Int32Array(256)
  private touchPoint = new Uint32Array(256)
  private touchVariable = new Int32Array(256)
  /** [touches made so far, recorded accesses the last call passed], shared with the native loop. */
  private readonly made = new Float64Array(2)
  private readonly remapNative = remapExport()
  /** Touches the inner hierarchy knows. */
  private known = 0
  private mapped = new Uint32Array(0)

  constructor(config: HierarchyConfig, pointKinds: Uint8Array, options: Omit<NativeHierarchyOptions, 'pointParents'> = {}) {
    this.pointKinds = pointKinds
    this.pointVariables = options.pointVariables ?? null
    this.growPoints(pointKinds.length)
    // No touch yet: the table grows as accesses meet them.
    this.inner = new NativeHierarchy(config, new Uint8Array(0), { ...options, pointVariables: this.pointVariables ? new Int32Array(0) : undefined })
    this.names = this.inner.names
  }

  get accesses(): number {
    return this.inner.accesses
  }

  /** The native hierarchy the touches run through (a first level shared by others: first-level-group.ts). */
  get native(): NativeHierarchy {
    return this.inner
  }

  /** Called with each touch table given to the simulator: hierarchies that follow this one's first level take it too. */
  onPublish: ((kinds: Uint8Array, timeline: Int32Array | undefined, parents: Uint32Array) => void) | null = null

  /**
   * The touch table as a stored first level numbered it (session-analysis/stored-first-level.ts):
   * a run that follows that level's stream has no batch to number touches from.
   */
  setTouches(points: Uint32Array, variables: Int32Array): void {
    const n = points.length
    this.touchPoint = points.slice()
    this.touchVariable = variables.slice()
    this.nextTouch = new Int32Array(Math.max(n, 1)).fill(-1)
    this.firstTouch.fill(-1)
    for (let t = 0; t < n; t++) if (this.firstTouch[points[t]!]! < 0) this.firstTouch[points[t]!] = t
    this.made[0] = n
    this.publish()
  }

  /**
   * The touches of the hierarchy whose first level this one followed (its accesses were those,
   * touch for touch): the table its counts are folded to points with.
   */
  takeTouches(first: TouchHierarchy): void {
    this.pointKinds = first.pointKinds
    this.touchPoint = first.touchPoint
    this.touchVariable = first.touchVariable
    this.known = first.known
  }

  /** The point table grew (its kinds, and timeline variables, are the points'). */
  setPointKinds(pointKinds: Uint8Array, pointVariables?: Int32Array): void {
    this.pointKinds = pointKinds
    if (pointVariables) this.pointVariables = pointVariables
    this.growPoints(pointKinds.length)
    // Kinds or timeline variables of known touches may have been given again.
    if (this.known > 0) this.publish()
  }

  /** Simulates one batch; `variables[i]` is access i's data structure (a batch of recorded accesses only). */
  run(batch: AccessBatch, variables: Int32Array): number {
    return this.inner.run(this.remap(batch, variables))
  }

  /**
   * run on Node's thread pool (the batch's arrays must not change until it settles). A batch
   * with whole-program context (live-simulation.ts) holds `recorded` accesses and context
   * records (SIM_CONTEXT | flags), which keep their code: they belong to no touch, and have no
   * entry in `variables` (the recorded accesses' data structures, in order).
   */
  runAsync(batch: AccessBatch, variables: Int32Array, recorded = batch.count): Promise<number> {
    return this.inner.runAsync(this.remap(batch, variables), recorded)
  }

  lastMisses(): Uint32Array {
    return this.inner.lastMisses()
  }

  finish(): void {
    this.inner.finish()
  }

  /** Per point x level x STAT_* counts: the touches' summed. */
  pointResults(): Float64Array {
    const levels = this.names.length
    const width = levels * STAT_FIELDS
    const byTouch = this.inner.pointResults()
    const out = new Float64Array(this.pointKinds.length * width)
    for (let t = 0; t < this.known; t++) {
      const to = this.touchPoint[t]! * width
      const from = t * width
      for (let k = 0; k < width; k++) out[to + k]! += byTouch[from + k]!
    }
    return out
  }

  touchResults(): TouchResults {
    return { count: this.known, points: this.touchPoint.slice(0, this.known), variables: this.touchVariable.slice(0, this.known), stats: this.inner.pointResults().slice(0, this.known * this.names.length * STAT_FIELDS) }
  }

  levelExtras(): Float64Array {
    return this.inner.levelExtras()
  }

  timelineCells(): TimelineCell[] {
    return this.inner.timelineCells()
  }

  get timelineInterval(): number {
    return this.inner.timelineInterval
  }

  get bytes(): number {
    return this.inner.bytes + this.touchPoint.byteLength + this.touchVariable.byteLength + this.nextTouch.byteLength
  }

  levelTotals(): LevelTotals[] {
    return sumLevelTotals(this.names, this.pointResults(), this.pointKinds.length)
  }

  /** Evictee x evictor counts per level, by point, in (evictee, evictor) order. */
  evictorEntries(): EvictorCount[][] {
    return this.inner.evictorEntries().map((entries) => {
      const sums = new Map<number, EvictorCount>()
      const pointOf = (t: number) => (t >= 0 ? this.touchPoint[t]! : t)
      for (const e of entries) {
        const evictee = pointOf(e.evictee)
        const evictor = pointOf(e.evictor)
        // Owners are -3 and up: the key keeps them apart and sorts as (evictee, evictor).
        const key = (evictee + 4) * 2 ** 26 + (evictor + 4)
        const s = sums.get(key)
        if (s) s.count += e.count
        else sums.set(key, { evictee, evictor, count: e.count })
      }
      return [...sums.entries()].sort((a, b) => a[0] - b[0]).map(([, e]) => e)
    })
  }

  private growPoints(n: number): void {
    if (n <= this.lastTouch.length) return
    this.lastTouch = grownFor(this.lastTouch, n - 1, -1)
    this.lastVariable = grownFor(this.lastVariable, n - 1, -1)
    this.firstTouch = grownFor(this.firstTouch, n - 1, -1)
  }

  /** The batch with each access's touch for its point; new touches are numbered and published. */
  private remap(batch: AccessBatch, variables: Int32Array): AccessBatch {
    const { count, points } = batch
    if (this.mapped.length < count) this.mapped = new Uint32Array(count)
    const out = this.mapped
    const n = this.pointKinds.length
    // Views of the point table's length: a point beyond it stops the loop, to be refused here.
    const lastVariable = this.lastVariable.subarray(0, n)
    const lastTouch = this.lastTouch.subarray(0, n)
    const firstTouch = this.firstTouch.subarray(0, n)
    // `variables` are the recorded accesses' (k: the next one's); context accesses have none.
    for (let i = 0, k = 0; i < count; ) {
      this.made[1] = -1
      const done = this.remapNative(points.subarray(i, count), variables.subarray(k), count - i, lastVariable, lastTouch, firstTouch, this.nextTouch, this.touchVariable, this.touchPoint, this.made, out.subarray(i, count))
      // A core built before the count was returned leaves it: rebuilt, not guessed.
      if (this.made[1]! < 0) throw new StrideError('Stride\'s native core predates this build: run "npm install" (or "node scripts/build-native.mjs") to rebuild it.', 'tool-missing')
      k += this.made[1]!
      i += done
      if (i === count) break
      if (points[i]! >= n) throw new Error(`access point ${points[i]} is outside the point table (${n})`)
      // The touch table is full: grown, and the loop goes on where it stopped.
      const size = this.touchPoint.length * 2
      this.touchPoint = grownFor(this.touchPoint, size - 1)
      this.touchVariable = grownFor(this.touchVariable, size - 1)
      this.nextTouch = grownFor(this.nextTouch, size - 1, -1)
    }
    if (this.made[0]! > this.known) this.publish()
    return { count, points: out.subarray(0, count), addresses: batch.addresses, sizes: batch.sizes }
  }

  /** The touch table to the simulator: kinds and timeline variables of their points, parents for the prefetcher. */
  private publish(): void {
    const n = this.made[0]!
    const kinds = new Uint8Array(n)
    const parents = new Uint32Array(n)
    const timeline = this.pointVariables ? new Int32Array(n) : undefined
    for (let t = 0; t < n; t++) {
      const p = this.touchPoint[t]!
      kinds[t] = this.pointKinds[p]!
      parents[t] = this.firstTouch[p]!
      if (timeline) timeline[t] = this.pointVariables![p] ?? -1
    }
    this.inner.setPointKinds(kinds, timeline, parents)
    this.onPublish?.(kinds, timeline, parents)
    this.known = n
  }
}
