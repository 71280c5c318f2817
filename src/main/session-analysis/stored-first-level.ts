/**
 * A trace's first run keeps its first cache level (store/first-level-store.ts): the stream of
 * what left it and its state at the end. A what-if that changes only the levels below (another
 * L2 or LL, the same first level, TLB levels and mode) then runs its lower levels over that
 * stream and takes the first level's figures from the state (simulate/first-level-group.ts has
 * the rules): it reads a twentieth of the accesses instead of decoding and replaying the trace,
 * and stores the run a replay would (stored-first-level.integration.test.ts). Anything that
 * does not match, or a block that does not read back, leaves the what-if to the replay.
 */
import type { HierarchyConfig } from '../../shared/domain'
import { firstLevelAlone, firstLevelOf, shareableFirstLevel } from '../simulate/first-level-group'
import { STAT_FIELDS, type TimelineCell } from '../simulate/hierarchy'
import { NativeHierarchy } from '../simulate/native-hierarchy'
import { TouchHierarchy } from '../simulate/touch-hierarchy'
import type { FirstLevelState, StoredFirstLevel } from '../store/first-level-store'
import { atInterval } from './session-simulation'

/**
 * The state of a finished first level (a FirstLevelGroup's, after its members adopted it), as
 * stored. `interval`: the run's; `cellsByPoint`: its timeline variables are points (a trace's live
 * run), else the session's timeline variables (a replay's).
 */
export function firstLevelStateOf(first: NativeHierarchy | TouchHierarchy, config: HierarchyConfig, interval: number, cellsByPoint: boolean): FirstLevelState {
  const native = first instanceof TouchHierarchy ? first.native : first
  const { raw, refs } = native.firstLevelState()
  const nFirst = native.names.length
  const touches = first instanceof TouchHierarchy ? first.touchResults() : null
  // Live runs close narrower intervals that merge into the run's.
  const cells = summedCells(atInterval(native.timelineCells(), native.timelineInterval, interval))
  return {
    first: firstLevelAlone(config),
    accesses: native.accesses,
    interval,
    byTouch: touches !== null,
    points: raw.length / (nFirst * STAT_FIELDS),
    raw,
    refs,
    extras: native.levelExtras(),
    evictors: native.evictorEntries().map((level) => Float64Array.from(level.flatMap((e) => [e.evictee, e.evictor, e.count]))),
    cells: Float64Array.from(cells.flatMap((c) => [c.level, c.variable, c.interval, c.misses])),
    cellsByPoint,
    touchPoint: touches ? Float64Array.from(touches.points) : new Float64Array(0),
    touchVariable: touches ? Float64Array.from(touches.variables) : new Float64Array(0)
  }
}

/** Whether `config`'s run can follow the stored first level of a trace of `total` accesses, at `interval`, per touch or not. */
export function followsStored(stored: StoredFirstLevel, config: HierarchyConfig, total: number, interval: number, byTouch: boolean): boolean {
  const s = stored.state
  if (shareableFirstLevel(config) !== firstLevelOf(s.first)) return false
  return s.accesses === total && s.interval === interval && s.byTouch === byTouch
}

export interface FollowedRun {
  hierarchy: NativeHierarchy | TouchHierarchy
  /** The run's timeline: the lower levels' cells and the stored first level's, as a replay closes them. */
  timeline: TimelineCell[]
}

/**
 * Each config's run over the stored first level (followsStored holds for each), every block read
 * once for all of them: `kinds` and the options' timeline variables are the session's per
 * point. `between(done)` between blocks: false stops (null is returned, as for a block that does
 * not read back or a state that does not fit).
 */
export function followStored(
  stored: StoredFirstLevel,
  configs: readonly HierarchyConfig[],
  kinds: Uint8Array,
  options: { pointVariables: Int32Array; variableCount: number; timelineInterval: number },
  between: (done: number) => boolean
): FollowedRun[] | null {
  const s = stored.state
  const unsplit = { ...options, tlbThread: false }
  if (s.byTouch ? s.touchPoint.some((p) => p >= kinds.length) || s.touchPoint.length !== s.points : s.points !== kinds.length) return null
  const hierarchies = configs.map((config) => {
    if (!s.byTouch) return new NativeHierarchy(config, kinds, unsplit)
    const touches = new TouchHierarchy(config, kinds, unsplit)
    touches.setTouches(Uint32Array.from(s.touchPoint), Int32Array.from(s.touchVariable))
    return touches
  })
  const natives = hierarchies.map((h) => (h instanceof TouchHierarchy ? h.native : h))
  try {
    for (let i = 0; i < stored.blocks; i++) {
      const block = stored.block(i)
      if (!block || !between(Math.round((s.accesses * i) / stored.blocks))) return null
      for (const n of natives) n.followStored(block)
    }
    hierarchies.forEach((h, k) => {
      natives[k]!.followedTo(s.accesses)
      h.finish()
      natives[k]!.loadFirstLevel(s.raw, s.refs, s.extras, s.evictors)
    })
  } catch {
    return null
  }
  // A replay's cells are by the session's timeline variables already (the same for every what-if of it).
  const groupVariable = s.cellsByPoint ? options.pointVariables : null
  return hierarchies.map((hierarchy, k) => ({ hierarchy, timeline: mergedTimeline(natives[k]!.timelineCells(), s.cells, natives[k]!.names.length - (s.first.tlb?.length ?? 0), groupVariable) }))
}

/**
 * The lower levels' cells (levels 1.. of `nCaches`) and the stored first level's (level 0 and
 * TLB levels; per point, each then to its data structure's variable, `groupVariable`, or per
 * variable already: null), summed per (interval, level, variable) and in that order, as one
 * simulation closes them.
 */
function mergedTimeline(lower: readonly TimelineCell[], stored: Float64Array, nCaches: number, groupVariable: Int32Array | null): TimelineCell[] {
  const cells = [...lower]
  for (let i = 0; i < stored.length; i += 4) {
    const level = stored[i]! === 0 ? 0 : nCaches + stored[i]! - 1
    const variable = groupVariable ? groupVariable[stored[i + 1]!] : stored[i + 1]!
    // A point without a timeline variable counts in no cell (as in the simulator).
    if (variable === undefined || variable < 0) continue
    cells.push({ level, variable, interval: stored[i + 2]!, misses: stored[i + 3]! })
  }
  return summedCells(cells)
}

/** Cells summed per (interval, level, variable), in that order: as one simulation closes them. */
function summedCells(cells: Iterable<TimelineCell>): TimelineCell[] {
  const sums = new Map<string, TimelineCell>()
  for (const c of cells) {
    const key = `${c.interval} ${c.level} ${c.variable}`
    const s = sums.get(key)
    if (s) s.misses += c.misses
    else sums.set(key, { ...c })
  }
  return [...sums.values()].sort((a, b) => a.interval - b.interval || a.level - b.level || a.variable - b.variable)
}
