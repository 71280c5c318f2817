/**
 * A run's per-point rows and evictor rows as its report reads them: arrays in the statements'
 * column order (thousands of rows: an object per row cost 3x). The store writes the same
 * tuples as it stores a run, so the worker that stored it can build its report without reading
 * them back (session-statics.ts keeps the last few).
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

/** A stored run's rows, with what identifies the stored run (its creation time and configuration text). */
export interface KeptRun {
  createdAt: string
  config: string
  /** Ordered by point, then level (the report statement's order). */
  points: RunPointRow[]
  /** Ordered by level, count (most first), evictor (the report statement's order). */
  evictors: EvictorRow[]
}
