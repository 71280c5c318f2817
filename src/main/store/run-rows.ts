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

/**
 * A stored run's rows, with what identifies the stored run (its creation time and
 * configuration text). The rows are flat: one Float64Array per table, a row's numbers in the
 * columns' order, NaN for NULL. Thousands of rows as arrays of arrays were an allocation per
 * row when stored, reported and handed from the worker that stored them to the CLI's main
 * thread; flat, they cross as one copy (~0.4 MB for 5,000 points).
 */
export interface KeptRun {
  createdAt: string
  config: string
  /** POINT_WIDTH numbers a row, ordered by point, then level (the report statement's order). */
  points: Float64Array
  /** EVICTOR_WIDTH numbers a row, ordered by level, count (most first), evictor (the report statement's order). */
  evictors: Float64Array
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
