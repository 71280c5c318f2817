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
import { eachSliceFact } from './slice-facts'

/** Kept only when it is this many times smaller than the run's rows; else the indexed per-point path is as fast. */
const MIN_SHRINK = 4

interface Group {
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
  // A group per data structure x function x loop x level, found through a map per part
  // rather than one text key built and hashed per fact (most of the roll-up's time). Each
  // part is keyed by its text (`${v}`: a name as it is, null as "null"), so facts group
  // exactly as by the joined text key they used to. Groups are kept in first-seen order.
  const groups: Group[] = []
  const index = new Map<string, Map<string, Map<string, Group[]>>>()
  let perPoint = 0
  eachFact((f) => {
    perPoint++
    const variable = `${f.variable}`
    const fn = `${f.function}`
    const loop = `${f.loop}`
    let byFunction = index.get(variable)
    if (!byFunction) index.set(variable, (byFunction = new Map()))
    let byLoop = byFunction.get(fn)
    if (!byLoop) byFunction.set(fn, (byLoop = new Map()))
    let byLevel = byLoop.get(loop)
    if (!byLevel) byLoop.set(loop, (byLevel = []))
    let g = byLevel[f.level]
    if (!g) groups.push((g = byLevel[f.level] = { variable: f.variable, function: f.function, loop: f.loop, level: f.level, sums: [0, 0, 0, 0], metrics: [null, null, null] }))
    g.sums[0] += f.reads
    g.sums[1] += f.writes
    g.sums[2] += f.readMisses
    g.sums[3] += f.writeMisses
    g.metrics[0] = plus(g.metrics[0], f.temporalHits)
    g.metrics[1] = plus(g.metrics[1], f.spatialHits)
    g.metrics[2] = plus(g.metrics[2], f.evictions)
  })
  // Programs whose every point touches its own data structure in its own function gain nothing.
  if (groups.length * minShrink > perPoint) return
  const insert = db.prepare(
    'INSERT INTO run_rollup (run, level, variable, function, loop, reads, writes, read_misses, write_misses, temporal_hits, spatial_hits, evictions) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)'
  )
  db.transaction(() => {
    for (const g of groups) insert.run(run, g.level, g.variable, g.function, g.loop, ...g.sums, ...g.metrics)
  })()
}
