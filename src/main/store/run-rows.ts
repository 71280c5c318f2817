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

/**
 * A kept run packed into flat arrays (10 numbers a point row, 4 an evictor row; NaN for
 * NULL), for the worker that stored a run to hand its rows to the thread that reports it
 * (the CLI's main thread), which then need not read back thousands of rows just written.
 */
export interface PackedRun {
  createdAt: string
  config: string
  points: Float64Array
  evictors: Float64Array
}

const POINT_WIDTH = RUN_POINT_COLUMNS.length
const EVICTOR_WIDTH = EVICTOR_COLUMNS.length

export function packRun(kept: KeptRun): PackedRun {
  const points = new Float64Array(kept.points.length * POINT_WIDTH)
  kept.points.forEach((row, i) => row.forEach((v, c) => (points[i * POINT_WIDTH + c] = v ?? NaN)))
  const evictors = new Float64Array(kept.evictors.length * EVICTOR_WIDTH)
  kept.evictors.forEach((row, i) => row.forEach((v, c) => (evictors[i * EVICTOR_WIDTH + c] = v)))
  return { createdAt: kept.createdAt, config: kept.config, points, evictors }
}

export function unpackRun(packed: PackedRun): KeptRun {
  const orNull = (v: number) => (Number.isNaN(v) ? null : v)
  const points: RunPointRow[] = []
  for (let at = 0; at < packed.points.length; at += POINT_WIDTH) {
    const r = packed.points
    points.push([r[at]!, r[at + 1]!, r[at + 2]!, r[at + 3]!, r[at + 4]!, r[at + 5]!, orNull(r[at + 6]!), orNull(r[at + 7]!), orNull(r[at + 8]!), orNull(r[at + 9]!)])
  }
  const evictors: EvictorRow[] = []
  for (let at = 0; at < packed.evictors.length; at += EVICTOR_WIDTH) {
    const r = packed.evictors
    evictors.push([r[at]!, r[at + 1]!, r[at + 2]!, r[at + 3]!])
  }
  return { createdAt: packed.createdAt, config: packed.config, points, evictors }
}
