/**
 * `shadow_counts` (an optional table, no schema change): per run and cache level, what the
 * fully associative shadow of the level counted per point (analysis/advice/miss-classes.ts's
 * ShadowCounts), kept by the trace's first simulation, which fed the shadow the chunks it
 * simulated. The advisor turns them and the run's misses into the three Cs without replaying
 * the trace (advise on lz4: 4 s of replay before). Derived, never the only copy: a row that
 * does not hold together, or was counted for another level, point table or trace length, is
 * ignored and the trace is replayed as before; a session without the table is read as before,
 * and a Stride from before it ignores it.
 */
import { endianness } from 'node:os'
import type { ShadowCounts } from '../analysis/advice/miss-classes'
import { hasTable, type Db } from './open-db'
import { warmedRuns } from './run-context'
import { SHADOW_COUNTS_TABLE } from './optional-tables'

/** Typed arrays as this machine lays them out: a big-endian machine neither writes nor reads them. */
const usable = endianness() === 'LE'

/** The row's own layout; another is not read. */
const FORMAT = 1

const TABLE = SHADOW_COUNTS_TABLE

/** What the counts were taken of: a row is used only for the same. */
export interface ShadowKey {
  run: number
  level: string
  size: number
  assoc: number
  lineSize: number
  /** Accesses of the trace the shadow was fed. */
  events: number
}

const bytes = (a: Float64Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

export function writeShadowCounts(db: Db, key: ShadowKey, counts: ShadowCounts): void {
  if (!usable) return
  const points = counts.shadow.length
  if (counts.cold.length !== points || (counts.sets && counts.sets.length !== points)) throw new Error('internal: shadow counts of unequal lengths')
  db.transaction(() => {
    db.exec(TABLE)
    db.prepare(
      'INSERT OR REPLACE INTO shadow_counts (run, level, format, size, assoc, line_size, events, points, set_count, forgetful, shadow, cold, sets) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
    ).run(key.run, key.level, FORMAT, key.size, key.assoc, key.lineSize, key.events, points, counts.setCount, counts.forgetful ? 1 : 0, bytes(counts.shadow), bytes(counts.cold), counts.sets ? bytes(counts.sets) : null)
  })()
}

interface Row {
  run: number
  format: number
  size: number
  assoc: number
  line_size: number
  events: number
  points: number
  set_count: number
  forgetful: number
  shadow: unknown
  cold: unknown
  sets: unknown
}

/** A copy of a blob of `n` doubles, or null when it is not one. */
function doubles(blob: unknown, n: number): Float64Array | null {
  if (!(blob instanceof Uint8Array) || blob.byteLength !== n * 8) return null
  return new Float64Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength) as ArrayBuffer)
}

/** Counts whose values a shadow could have counted (non-negative whole numbers). */
const counted = (a: Float64Array, most: number): boolean => a.every((x) => Number.isInteger(x) && x >= 0 && x <= most)

/**
 * The counts kept for `key` over a table of `points` points, or null (none, or not usable). A
 * first level's shadow sees every access of the trace, so its counts depend only on the trace
 * and the level's size, ways and line size: with `firstLevel`, a row kept for another run of
 * the same geometry (a what-if of the deeper levels, a prefetcher, the same cache again) serves
 * too. Rows are kept only for runs without a layout filter, whose addresses are the trace's.
 */
export function readShadowCounts(db: Db, key: ShadowKey, points: number, { firstLevel = false, layout = false }: { firstLevel?: boolean; layout?: boolean } = {}): ShadowCounts | null {
  if (!usable || layout || !hasTable(db, 'shadow_counts')) return null
  const exact = db.prepare('SELECT * FROM shadow_counts WHERE run = ? AND level = ?').get(key.run, key.level) as Row | undefined
  // A run warmed by the whole program (run-context.ts) saw other accesses: its row serves it
  // alone, and another run's row never serves it.
  const warmed = warmedRuns(db)
  const row =
    exact ??
    (firstLevel && !warmed.has(key.run)
      ? (db
          .prepare('SELECT * FROM shadow_counts WHERE size = ? AND assoc = ? AND line_size = ? AND events = ? AND points = ? AND format = ? ORDER BY run')
          .all(key.size, key.assoc, key.lineSize, key.events, points, FORMAT) as Row[]).find((r) => !warmed.has(r.run))
      : undefined)
  if (!row || row.format !== FORMAT || row.points !== points) return null
  if (row.size !== key.size || row.assoc !== key.assoc || row.line_size !== key.lineSize || row.events !== key.events) return null
  const shadow = doubles(row.shadow, points)
  const cold = doubles(row.cold, points)
  const sets = row.sets === null ? null : doubles(row.sets, points)
  if (!shadow || !cold || (row.sets !== null && !sets)) return null
  // Each access counts at most twice (a modify); a point's sets are at most the level's.
  const most = 2 * key.events
  if (!counted(shadow, most) || !counted(cold, most) || (sets && !counted(sets, row.set_count))) return null
  if (!Number.isInteger(row.set_count) || row.set_count < 1) return null
  return { shadow, cold, sets, forgetful: row.forgetful === 1, setCount: row.set_count }
}
