/**
 * Reads a run's statistics as slice facts with one prepared statement over indexed tables:
 * run_points (PK run, point, level) joined to points (indexes on variable and function, v8)
 * and each point's innermost loop, grouped by data structure x source line x loop x level.
 * When the query names its data structures (or only functions), the statement filters on
 * them through the index instead of reading the whole run.
 */
import type { Db } from '../../store/open-db'
import type { SliceFact } from './slice-reduce'

const SELECT = `
SELECT p.variable AS variable, p.function AS function, p.file AS file, p.line AS line, pl.loop AS loop, rp.level AS level,
       SUM(rp.reads) AS reads, SUM(rp.writes) AS writes, SUM(rp.read_misses) AS rm, SUM(rp.write_misses) AS wm,
       SUM(m.temporal_hits) AS th, SUM(m.spatial_hits) AS sh, SUM(m.evictions) AS ev
  FROM points p
  JOIN run_points rp ON rp.run = @run AND rp.point = p.idx
  LEFT JOIN run_point_metrics m ON m.run = rp.run AND m.point = rp.point AND m.level = rp.level
  LEFT JOIN point_loops pl ON pl.point = p.idx`
const GROUP = `GROUP BY p.variable, p.function, p.file, p.line, pl.loop, rp.level`

// Constant statement texts (values are always bound): the filter decides which one runs.
const STATEMENTS = {
  all: `${SELECT} ${GROUP}`,
  variables: `${SELECT} WHERE p.variable IN (SELECT value FROM json_each(@variables)) ${GROUP}`,
  functions: `${SELECT} WHERE p.function IN (SELECT value FROM json_each(@functions)) ${GROUP}`,
  both: `${SELECT} WHERE p.variable IN (SELECT value FROM json_each(@variables)) AND p.function IN (SELECT value FROM json_each(@functions)) ${GROUP}`
} as const

export interface FactFilter {
  /** Only these data structures (null: all). `unknown` matches points without a variable. */
  variables: string[] | null
  /** Only these functions (null: all). */
  functions: string[] | null
}

interface FactRow {
  variable: string | null
  function: string | null
  file: string | null
  line: number | null
  loop: number | null
  level: number
  reads: number
  writes: number
  rm: number
  wm: number
  th: number | null
  sh: number | null
  ev: number | null
}

const hasTable = (db: Db, name: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?").get(name) !== undefined

export function readSliceFacts(db: Db, run: number, filter: FactFilter): SliceFact[] {
  // Points without a variable are named `unknown`: that name cannot go through the index.
  const variables = filter.variables && !filter.variables.includes('unknown') ? filter.variables : null
  const functions = filter.functions
  const key = variables && functions ? 'both' : variables ? 'variables' : functions ? 'functions' : 'all'
  let sql: string = STATEMENTS[key]
  // Sessions from before loop nests (v6) have no point_loops table.
  if (!hasTable(db, 'point_loops')) sql = sql.replace('LEFT JOIN point_loops pl ON pl.point = p.idx', 'LEFT JOIN (SELECT NULL AS point, NULL AS loop) pl ON 0')
  const rows = db.prepare(sql).all({ run, ...(variables ? { variables: JSON.stringify(variables) } : {}), ...(functions ? { functions: JSON.stringify(functions) } : {}) }) as FactRow[]
  return rows.map((r) => ({
    variable: r.variable,
    function: r.function,
    file: r.file,
    line: r.line,
    loop: r.loop,
    sections: 0,
    level: r.level,
    reads: r.reads,
    writes: r.writes,
    readMisses: r.rm,
    writeMisses: r.wm,
    temporalHits: r.th,
    spatialHits: r.sh,
    evictions: r.ev
  }))
}
