/**
 * Reads a run's statistics as slice facts with one prepared statement over indexed tables:
 * points (indexes on variable and function, v8; on file, v1) drive the join, and each
 * point's run_points rows come by their primary key (run, point, level), one fact per point
 * and level. When the query names its data structures,
 * functions or files, the statement reads only the matching points through an index
 * instead of the whole run. When the code axis names only functions and loops (or `*`), the
 * run's roll-up answers instead: a few rows per data structure x function x loop. The
 * statement text is assembled from constant fragments; every value is bound.
 */
import type { SliceQuery } from '../../shared/slice-notation'
import type { Db } from './open-db'
import { hasRollup } from './rollup'
import type { SliceFact } from '../analysis/query/slice-reduce'

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
  evictions: number | null
]

const hasTable = (db: Db, name: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?").get(name) !== undefined

function statement(filter: FactFilter, variables: boolean, loops: boolean): string {
  const metrics = filter.withMetrics
  const where = [
    variables ? 'p.variable IN (SELECT value FROM json_each(@variables))' : null,
    filter.functions ? 'p.function IN (SELECT value FROM json_each(@functions))' : null,
    filter.files ? 'p.file IN (SELECT value FROM json_each(@files))' : null
  ].filter((w) => w !== null)
  // CROSS JOIN keeps points as the outer loop, so a filter on points uses its index
  // (without statistics the planner would scan all of the run's rows first).
  // One row per point and level, no GROUP BY: a temporary B-tree over text keys costs more
  // than summing the rows in JS (computeQuerySlice adds facts up anyway).
  return `SELECT p.variable, p.function, p.file, p.line, ${loops ? 'pl.loop' : 'NULL'}, rp.level,
       rp.reads, rp.writes, rp.read_misses, rp.write_misses,
       ${metrics ? 'm.temporal_hits, m.spatial_hits, m.evictions' : 'NULL, NULL, NULL'}
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
  return `SELECT variable, function, NULL, NULL, loop, level, reads, writes, read_misses, write_misses, temporal_hits, spatial_hits, evictions
  FROM run_rollup WHERE ${where.join(' AND ')}`
}

export function readSliceFacts(db: Db, run: number, filter: FactFilter): SliceFact[] {
  const variables = filter.variables && !filter.variables.includes('unknown') ? filter.variables : null
  const loops = filter.withLoops && hasTable(db, 'point_loops')
  const params: Record<string, unknown> = { run }
  if (variables) params.variables = JSON.stringify(variables)
  if (filter.functions) params.functions = JSON.stringify(filter.functions)
  if (filter.files) params.files = JSON.stringify(filter.files)
  const sql = filter.rollup && hasRollup(db, run) ? rollupStatement(variables !== null, filter.functions !== null) : statement(filter, variables !== null, loops)
  const rows = db.prepare(sql).raw(true).all(params) as FactRow[]
  const facts: SliceFact[] = new Array(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!
    facts[i] = {
      variable: r[0],
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
    }
  }
  return facts
}
