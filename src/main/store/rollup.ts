/**
 * Per run, the statistics summed by data structure x function x innermost loop x level
 * (`run_rollup`): what slice queries over the whole run read instead of one row per point
 * and level. Written with the run from the run's own slice facts, so each access counts for
 * the data structure it touched exactly as the per-point path counts it (a point on several
 * structures split by the correlator's counts). Runs stored before schema v10 lost their
 * roll-up (it credited the dominant structure) and are answered from the points.
 */
import type { SliceFact } from '../analysis/query/slice-reduce'
import type { Db } from './open-db'
import { eachRowFact, eachSliceFact, type PointFactColumns } from './slice-facts'
import type { Touches } from './touches'
import type { ExactSplits } from './run-touches'
import { orNull } from './run-rows'
import { BatchInsert } from './batch-insert'

/** Kept only when it is this many times smaller than the run's rows; else the indexed per-point path is as fast. */
const MIN_SHRINK = 4

export interface RollUpGroup {
  variable: string | null
  function: string | null
  loop: number | null
  level: number
  sums: [reads: number, writes: number, readMisses: number, writeMisses: number]
  metrics: [temporal: number | null, spatial: number | null, evictions: number | null]
}

const plus = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b)

/** One run, right after its per-point rows are stored, read back from them. */
export function rollUpRun(db: Db, run: number, minShrink = MIN_SHRINK): void {
  rollUpFacts(db, run, (add) => eachSliceFact(db, run, { variables: null, functions: null, files: null, withMetrics: true, withLoops: true, rollup: false }, add), minShrink)
}

/** One run's roll-up from its facts, however they come (read back, or from the rows as they are stored). */
export function rollUpFacts(db: Db, run: number, eachFact: (add: (f: SliceFact) => void) => void, minShrink = MIN_SHRINK): void {
  const rollup = new RollUp()
  eachFact((f) => rollup.add(f))
  rollup.store(db, run, minShrink)
}

/**
 * The groups of a roll-up, in first-seen order. A group per data structure x function x loop x
 * level, found through a map per part rather than one text key built and hashed per fact (most
 * of the roll-up's time). Each part is keyed by its text (`${v}`: a name as it is, null as
 * "null"), so facts group exactly as by the joined text key they used to.
 */
export class RollUp {
  private readonly groups: RollUpGroup[] = []
  private readonly index = new Map<string, Map<string, Map<string, RollUpGroup[]>>>()
  /** Facts added, for the size test in `store`. */
  facts = 0

  /** The groups of one data structure, function and loop, by level (filled as levels are met). */
  levelsOf(variable: string | null, fn: string | null, loop: number | null): RollUpGroup[] {
    const v = `${variable}`
    const f = `${fn}`
    const l = `${loop}`
    let byFunction = this.index.get(v)
    if (!byFunction) this.index.set(v, (byFunction = new Map()))
    let byLoop = byFunction.get(f)
    if (!byLoop) byFunction.set(f, (byLoop = new Map()))
    let byLevel = byLoop.get(l)
    if (!byLevel) byLoop.set(l, (byLevel = []))
    return byLevel
  }

  /**
   * One fact's figures into its group at `level` of `byLevel` (from levelsOf): a caller with
   * many facts of one structure, function and loop finds their groups once.
   */
  addTo(byLevel: RollUpGroup[], variable: string | null, fn: string | null, loop: number | null, level: number, reads: number, writes: number, readMisses: number, writeMisses: number, temporalHits: number | null, spatialHits: number | null, evictions: number | null): void {
    this.facts++
    let g = byLevel[level]
    if (!g) this.groups.push((g = byLevel[level] = { variable, function: fn, loop, level, sums: [0, 0, 0, 0], metrics: [null, null, null] }))
    g.sums[0] += reads
    g.sums[1] += writes
    g.sums[2] += readMisses
    g.sums[3] += writeMisses
    g.metrics[0] = plus(g.metrics[0], temporalHits)
    g.metrics[1] = plus(g.metrics[1], spatialHits)
    g.metrics[2] = plus(g.metrics[2], evictions)
  }

  add(f: SliceFact): void {
    this.addTo(this.levelsOf(f.variable, f.function, f.loop), f.variable, f.function, f.loop, f.level, f.reads, f.writes, f.readMisses, f.writeMisses, f.temporalHits, f.spatialHits, f.evictions)
  }

  /** Stored as run `run`'s roll-up, unless it is not `minShrink` times smaller than its facts. */
  store(db: Db, run: number, minShrink = MIN_SHRINK): void {
    // Programs whose every point touches its own data structure in its own function gain nothing.
    if (this.groups.length * minShrink > this.facts) return
    db.transaction(() => {
      const insert = new BatchInsert(db, 'run_rollup', ['run', 'level', 'variable', 'function', 'loop', 'reads', 'writes', 'read_misses', 'write_misses', 'temporal_hits', 'spatial_hits', 'evictions'])
      for (const g of this.groups) insert.add(run, g.level, g.variable, g.function, g.loop, g.sums[0], g.sums[1], g.sums[2], g.sums[3], g.metrics[0], g.metrics[1], g.metrics[2])
      insert.finish()
    })()
  }
}

/** Per point, where rollUpRow puts its rows: its groups by level, or null for a point split over several structures. */
export interface RowRollUp {
  rollup: RollUp
  points: Array<PointGroups | null | undefined>
}
interface PointGroups {
  byLevel: RollUpGroup[]
  variable: string | null
  fn: string | null
  loop: number | null
}

/**
 * A stored row into a roll-up exactly as eachRowFact's facts would go, without a fact per row:
 * a point on one data structure (most) goes straight into its groups, found once per point;
 * a point split over several (factsOfRow's apportioned case) goes through its facts.
 */
export function rollUpRow(into: RowRollUp, columns: PointFactColumns, touches: Touches, rows: Float64Array, at: number, evictions: number, exact?: ExactSplits): void {
  const p = rows[at]!
  let groups = into.points[p]
  if (groups === undefined) {
    // factsOfRow's choice of the fact's data structure, made once for the point.
    const touched = touches.get(p)
    const split = touched !== undefined && touched.length > 1 && touched.reduce((a, t) => a + t.accesses, 0) > 0
    const variable = touched?.length === 1 ? touched[0]!.variable : (columns.variable[p] ?? null)
    const fn = columns.function[p] ?? null
    const loop = columns.loop[p] ?? null
    groups = into.points[p] = split ? null : { byLevel: into.rollup.levelsOf(variable, fn, loop), variable, fn, loop }
  }
  if (groups === null) {
    eachRowFact(columns, touches, rows, at, evictions, (f) => into.rollup.add(f), exact)
    return
  }
  into.rollup.addTo(groups.byLevel, groups.variable, groups.fn, groups.loop, rows[at + 1]!, rows[at + 2]!, rows[at + 3]!, rows[at + 4]!, rows[at + 5]!, orNull(rows[at + 6]!), orNull(rows[at + 7]!), evictions)
}
