/**
 * A run's per-point rows and evictor rows as its report reads them, in the statements' column
 * order (thousands of rows: an object per row cost 3x). The store keeps the same rows, flat,
 * as it stores a run, so the worker that stored it (or the CLI's main thread it hands them to)
 * can build its report without reading them back (session-statics.ts keeps the last few).
 */
import type { TupleOf } from './rows'

export const RUN_POINT_COLUMNS = [
  ['point', 'int'],
  ['level', 'int'],
  ['reads', 'number'],
  ['writes', 'number'],
  ['read_misses', 'number'],
  ['write_misses', 'number'],
  ['temporal_hits', 'number?'],
  ['spatial_hits', 'number?'],
  ['used_bytes', 'number?'],
  ['line_ends', 'number?']
] as const
export type RunPointRow = TupleOf<typeof RUN_POINT_COLUMNS>

export const EVICTOR_COLUMNS = [
  ['level', 'number'],
  ['evictee', 'number'],
  ['evictor', 'number'],
  ['count', 'number']
] as const
export type EvictorRow = TupleOf<typeof EVICTOR_COLUMNS>

/** Numbers per row in a kept run's flat arrays. */
export const POINT_WIDTH = RUN_POINT_COLUMNS.length
export const EVICTOR_WIDTH = EVICTOR_COLUMNS.length

/** A run's totals at one level as run_levels holds them, with its run_level_metrics row (null: none, a run stored before them). */
export interface KeptLevel {
  level: number
  name: string
  reads: number
  writes: number
  readMisses: number
  writeMisses: number
  metrics: { writebacks: number; prefetches: number; usefulPrefetches: number; backInvalidations: number; evictions: number } | null
}

/** One cell of a run's per-data-structure miss timeline, as run_timeline holds it. */
export interface KeptTimelineCell {
  level: number
  variable: string
  interval: number
  misses: number
}

/**
 * Everything a run's report reads of the stored run, with what identifies it (its creation
 * time and configuration text): what the store writes, kept in memory as it writes it. The
 * per-point and evictor rows are flat: one Float64Array per table, a row's numbers in the
 * columns' order, NaN for NULL. Thousands of rows as arrays of arrays were an allocation per
 * row when stored, reported and handed from the worker that stored them to the CLI's main
 * thread; flat, they cross as one copy (~0.4 MB for 5,000 points).
 */
export interface KeptRun {
  createdAt: string
  config: string
  /** Per level in order, caches then TLB levels. */
  levels: KeptLevel[]
  /** Accesses per timeline interval (null: no timeline). */
  timelineInterval: number | null
  /** Ordered by level, variable (as SQLite orders text), interval: the report statement's order. */
  timeline: KeptTimelineCell[]
  /** POINT_WIDTH numbers a row, ordered by point, then level (the report statement's order). */
  points: Float64Array
  /** EVICTOR_WIDTH numbers a row, ordered by level, count (most first), evictor (the report statement's order). */
  evictors: Float64Array
  /**
   * Per (point, data structure, level) as counted (run-touches.ts TOUCH_WIDTH rows) for points
   * on several structures; null: the run has none (its roll-ups split by access shares).
   */
  touches: Float64Array | null
}

/** Text in SQLite's BINARY order (UTF-8 bytes, which is code point order; JavaScript's `<` compares UTF-16 units). */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // Only a surrogate against a unit above the surrogates orders differently by code point.
    const hx = x >= 0xd800 && x <= 0xdfff
    const hy = y >= 0xd800 && y <= 0xdfff
    if (hx !== hy && (hx ? y : x) >= 0xe000) return hx ? 1 : -1
    return x - y
  }
  return a.length - b.length
}

/** Rows read back from the session, flattened like a kept run's (NULL as NaN). */
export function flatRows(rows: ReadonlyArray<ReadonlyArray<number | null>>, width: number): Float64Array {
  const out = new Float64Array(rows.length * width)
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    for (let c = 0; c < width; c++) out[i * width + c] = row[c] ?? NaN
  }
  return out
}

/** A flat cell as the column's value: NaN is NULL. */
export const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v)
