/**
 * Reads a run's statistics as slice facts with one prepared statement over indexed tables:
 * points (indexes on variable and function, v8; on file, v1) drive the join, and each
 * point's run_points rows come by their primary key (run, point, level), one fact per point
 * and level. When the query names its data structures,
 * functions or files, the statement reads only the matching points through an index
 * instead of the whole run. When the code axis names only functions and loops (or `*`), the
 * run's roll-up answers instead: a few rows per data structure x function x loop. The
 * statement text is assembled from constant fragments; every value is bound.
 *
 * Each access counts for the data structure it touched: a point whose accesses fell in
 * several (one function called on a heap block and a global, two threads on two arrays) is
 * split into one fact per structure, its figures divided by the correlator's exact counts with
 * the report model's `apportion` (so a slice by data structure equals `report --by variable`).
 */
import type { SliceQuery } from '../../shared/slice-notation'
import { apportion } from '../../shared/report-model'
import { hasTable, type Db } from './open-db'
import { readTouches, type Touches } from './touches'
import { exactSplits, readRunTouches, variableNames, type ExactSplits } from './run-touches'
import type { SliceFact } from '../analysis/query/slice-reduce'
import { allTuples } from './rows'
import { orNull } from './run-rows'

export interface FactFilter {
  /** Only these data structures (null: all). `unknown` (points without one) disables the filter. */
  variables: string[] | null
  /** Only these functions (null: all). */
  functions: string[] | null
  /** Only these source files, as the session spells them (null: all). */
  files: string[] | null
  /** Read temporal/spatial hits and evictions (run_point_metrics); false leaves them null. */
  withMetrics: boolean
  /** Read each point's innermost loop (point_loops); false leaves it null. */
  withLoops: boolean
  /** The code axis names no files or lines: the run's roll-up (store/rollup.ts) has all it needs. */
  rollup: boolean
}

/** Columns of the statement, read as arrays (raw mode: no object per row on large runs). */
type FactRow = [
  variable: string | null,
  fn: string | null,
  file: string | null,
  line: number | null,
  loop: number | null,
  level: number,
  reads: number,
  writes: number,
  readMisses: number,
  writeMisses: number,
  temporalHits: number | null,
  spatialHits: number | null,
  evictions: number | null,
  point: number
]

function statement(filter: FactFilter, variables: boolean, loops: boolean): string {
  const metrics = filter.withMetrics
  const where = [
    // The named structures' points: those they dominate and those that touched them at all.
    variables
      ? `(p.variable IN (SELECT value FROM json_each(@variables)) OR p.idx IN (SELECT pv.point FROM point_variables pv JOIN variables v ON v.id = pv.variable
           WHERE v.name IN (SELECT value FROM json_each(@variables))))`
      : null,
    filter.functions ? 'p.function IN (SELECT value FROM json_each(@functions))' : null,
    filter.files ? 'p.file IN (SELECT value FROM json_each(@files))' : null
  ].filter((w) => w !== null)
  // CROSS JOIN keeps points as the outer loop, so a filter on points uses its index
  // (without statistics the planner would scan all of the run's rows first).
  // One row per point and level, no GROUP BY: a temporary B-tree over text keys costs more
  // than summing the rows in JS (computeQuerySlice adds facts up anyway).
  return `SELECT p.variable, p.function, p.file, p.line, ${loops ? 'pl.loop' : 'NULL'}, rp.level,
       rp.reads, rp.writes, rp.read_misses, rp.write_misses,
       ${metrics ? 'm.temporal_hits, m.spatial_hits, m.evictions' : 'NULL, NULL, NULL'}, p.idx
  FROM points p
  CROSS JOIN run_points rp ON rp.run = @run AND rp.point = p.idx
  ${metrics ? 'LEFT JOIN run_point_metrics m ON m.run = rp.run AND m.point = rp.point AND m.level = rp.level' : ''}
  ${loops ? 'LEFT JOIN point_loops pl ON pl.point = p.idx' : ''}
  ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}`
}

/** Source files of the session whose path is `name` or ends with `/name`. */
export function resolveFiles(db: Db, names: string[]): string[] {
  // Distinct files by seeking the (file, line) index once per file, not scanning every point.
  const next = db.prepare('SELECT file FROM points WHERE file > ? ORDER BY file LIMIT 1').pluck()
  const out: string[] = []
  for (let f = next.get('') as string | undefined; f !== undefined; f = next.get(f) as string | undefined)
    if (names.some((n) => f === n || f.endsWith('/' + n))) out.push(f)
  return out
}

/** What the statement must read: only the named data structures, functions or files, and only the columns the metrics need. */
export function factFilter(db: Db, query: SliceQuery): FactFilter {
  const whole = query.data.filter((d) => d.section === null)
  const code = query.code
  // `unknown` (points without a function) cannot go through the index.
  const functions = code.every((c) => c.kind === 'function' && c.name !== 'unknown') ? code.map((c) => (c.kind === 'function' ? c.name : '')) : null
  const fileItems = code.every((c) => c.kind === 'file' || c.kind === 'lines') ? code.map((c) => (c.kind === 'file' || c.kind === 'lines' ? c.file : '')) : null
  return {
    variables: whole.every((d) => d.name !== '*') ? whole.map((d) => d.name) : null,
    functions,
    files: fileItems ? resolveFiles(db, fileItems) : null,
    withMetrics: query.metrics.some((m) => m.name === 'temporal_hits' || m.name === 'spatial_hits' || m.name === 'evictions'),
    withLoops: code.some((c) => c.kind === 'loop'),
    rollup: code.every((c) => c.kind === 'all' || c.kind === 'function' || c.kind === 'loop')
  }
}

/** The roll-up's rows as facts (no file or line): a few rows per data structure, function and loop. */
function rollupStatement(variables: boolean, functions: boolean): string {
  const where = [
    'run = @run',
    variables ? 'variable IN (SELECT value FROM json_each(@variables))' : null,
    functions ? 'function IN (SELECT value FROM json_each(@functions))' : null
  ].filter((w) => w !== null)
  return `SELECT variable, function, NULL, NULL, loop, level, reads, writes, read_misses, write_misses, temporal_hits, spatial_hits, evictions, -1
  FROM run_rollup WHERE ${where.join(' AND ')}`
}

export function hasRollup(db: Db, run: number): boolean {
  return hasTable(db, 'run_rollup') && db.prepare('SELECT 1 FROM run_rollup WHERE run = ? LIMIT 1').get(run) !== undefined
}

const factOf = (r: FactRow, variable: string | null): SliceFact => ({
  variable,
  function: r[1],
  file: r[2],
  line: r[3],
  loop: r[4],
  sections: 0,
  level: r[5],
  reads: r[6],
  writes: r[7],
  readMisses: r[8],
  writeMisses: r[9],
  temporalHits: r[10],
  spatialHits: r[11],
  evictions: r[12]
})

/**
 * One point's row as facts: one, or one per data structure it touched, with each one's figures
 * as the simulator counted them (`exact`, the run's), else divided by access shares.
 */
function factsOfRow(r: FactRow, touches: Touches, out: (fact: SliceFact) => void, exact?: ExactSplits | null): void {
  const parts = r[13] >= 0 ? exact?.get(r[13])?.get(r[5]) : undefined
  if (parts) {
    for (const part of parts) {
      const f = factOf(r, part.variable)
      f.reads = part.reads
      f.writes = part.writes
      f.readMisses = part.readMisses
      f.writeMisses = part.writeMisses
      // The row's metrics are null where the run kept none (no metrics asked, a TLB level).
      f.temporalHits = r[10] === null ? null : part.temporalHits
      f.spatialHits = r[11] === null ? null : part.spatialHits
      f.evictions = r[12] === null ? null : part.evictions
      out(f)
    }
    return
  }
  const touched = r[13] >= 0 ? touches.get(r[13]) : undefined
  // Most points touch one structure: nothing to divide.
  if (touched?.length === 1) {
    out(factOf(r, touched[0]!.variable))
    return
  }
  const weights = touched?.map((t) => t.accesses) ?? []
  if (!touched || weights.reduce((a, w) => a + w, 0) <= 0) {
    out(factOf(r, r[0]))
    return
  }
  const split = (n: number) => apportion(n, weights)
  const splitNullable = (n: number | null) => (n === null ? null : split(n))
  const shares = { reads: split(r[6]), writes: split(r[7]), readMisses: split(r[8]), writeMisses: split(r[9]), temporal: splitNullable(r[10]), spatial: splitNullable(r[11]), evictions: splitNullable(r[12]) }
  touched.forEach((t, i) => {
    const f = factOf(r, t.variable)
    f.reads = shares.reads[i]!
    f.writes = shares.writes[i]!
    f.readMisses = shares.readMisses[i]!
    f.writeMisses = shares.writeMisses[i]!
    f.temporalHits = shares.temporal?.[i] ?? null
    f.spatialHits = shares.spatial?.[i] ?? null
    f.evictions = shares.evictions?.[i] ?? null
    out(f)
  })
}

/** Every fact of the filter, each handed to `out` (the roll-up sums them without keeping them). */
export function eachSliceFact(db: Db, run: number, filter: FactFilter, out: (fact: SliceFact) => void): void {
  const variables = filter.variables && !filter.variables.includes('unknown') ? filter.variables : null
  const loops = filter.withLoops && hasTable(db, 'point_loops')
  const params: Record<string, unknown> = { run }
  if (variables) params.variables = JSON.stringify(variables)
  if (filter.functions) params.functions = JSON.stringify(filter.functions)
  if (filter.files) params.files = JSON.stringify(filter.files)
  const fromRollup = filter.rollup && hasRollup(db, run)
  const sql = fromRollup ? rollupStatement(variables !== null, filter.functions !== null) : statement(filter, variables !== null, loops)
  // Roll-up rows are already per touched structure.
  const touches: Touches = fromRollup ? new Map() : readTouches(db)
  const counted = fromRollup ? null : readRunTouches(db, run)
  const exact = counted ? exactSplits(counted, variableNames(db)) : null
  const rows = db.prepare(sql).raw(true).all(params) as FactRow[]
  for (const r of rows) factsOfRow(r, touches, out, exact)
}

/** Per point (by index), the columns the statement joins from points and point_loops. */
export interface PointFactColumns {
  variable: Array<string | null>
  function: Array<string | null>
  file: Array<string | null>
  line: Array<number | null>
  loop: Array<number | null>
}

/**
 * One stored run row (the report's tuple, and the row's evictions) as the facts eachSliceFact
 * reads back for it: the roll-up of a run is built from the rows in memory as it is stored,
 * not re-read.
 */
export function eachRowFact(columns: PointFactColumns, touches: Touches, rows: Float64Array, at: number, evictions: number, out: (fact: SliceFact) => void, exact?: ExactSplits): void {
  // The row at `at` of a kept run's flat rows (run-rows.ts: NaN is NULL).
  const p = rows[at]!
  const r: FactRow = [
    columns.variable[p] ?? null,
    columns.function[p] ?? null,
    columns.file[p] ?? null,
    columns.line[p] ?? null,
    columns.loop[p] ?? null,
    rows[at + 1]!,
    rows[at + 2]!,
    rows[at + 3]!,
    rows[at + 4]!,
    rows[at + 5]!,
    orNull(rows[at + 6]!),
    orNull(rows[at + 7]!),
    evictions,
    p
  ]
  factsOfRow(r, touches, out, exact)
}

export function readSliceFacts(db: Db, run: number, filter: FactFilter): SliceFact[] {
  const facts: SliceFact[] = []
  eachSliceFact(db, run, filter, (f) => facts.push(f))
  return facts
}
