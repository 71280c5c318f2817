/**
 * Per run, the statistics summed by data structure x function x innermost loop x level
 * (`run_rollup`): what slice queries over the whole run read instead of one row per point
 * and level. Written with the run (older runs were backfilled by the frozen migration 7 -> 8 in schema.ts),
 * in SQL, so a million-point run rolls up inside SQLite once rather than in every query.
 */
import type { Db } from './open-db'

export const ROLLUP_SELECT = `
  SELECT rp.run, rp.level, p.variable, p.function, pl.loop,
         SUM(rp.reads), SUM(rp.writes), SUM(rp.read_misses), SUM(rp.write_misses),
         SUM(m.temporal_hits), SUM(m.spatial_hits), SUM(m.evictions)
    FROM run_points rp
    JOIN points p ON p.idx = rp.point
    LEFT JOIN point_loops pl ON pl.point = rp.point
    LEFT JOIN run_point_metrics m ON m.run = rp.run AND m.point = rp.point AND m.level = rp.level`

const GROUP = 'GROUP BY rp.run, rp.level, p.variable, p.function, pl.loop'

/** Kept only when it is this many times smaller than the run's rows; else the indexed per-point path is as fast. */
const MIN_SHRINK = 4

/** One run, right after its per-point rows are stored. */
export function rollUpRun(db: Db, run: number, minShrink = MIN_SHRINK): void {
  const rows = db.prepare(`INSERT INTO run_rollup ${ROLLUP_SELECT} WHERE rp.run = ? ${GROUP}`).run(run).changes
  const perPoint = (db.prepare('SELECT COUNT(*) AS n FROM run_points WHERE run = ?').get(run) as { n: number }).n
  // Programs whose every point touches its own data structure in its own function gain nothing.
  if (rows * minShrink > perPoint) db.prepare('DELETE FROM run_rollup WHERE run = ?').run(run)
}

export function hasRollup(db: Db, run: number): boolean {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='run_rollup'").get()
  return table !== undefined && db.prepare('SELECT 1 FROM run_rollup WHERE run = ? LIMIT 1').get(run) !== undefined
}
