/**
 * Stream metrics stored in a session (schema v5): METRIC section 9 per access point, from the
 * compressor's RSDs, stored by every trace; and Mohan's function-level statistics with Table
 * 1's advice, computed on request (`functionStreamsOf`): Mohan's detector searches ~100 window
 * candidates for every access that extends no stream, a third of an irregular program's trace
 * CPU when it ran beside the recording, for one sidebar panel. A trace marks them
 * `on-request` in meta; the first request computes them from the stored trace and keeps them
 * when the session can be written. Sessions traced before stored them at the trace's end.
 */
import { adviseFromStreams, type Advice } from '../compress/advisor'
import type { StreamMetricsSource } from '../compress/chunk-encoder'
import { NativeRsdMetrics } from '../compress/native-codec'
import type { PointStreamMetrics } from '../compress/rsd-metrics'
import { NativeStreamDetectors } from '../compress/native-streams'
import { DEFAULT_WINDOW, type StreamStatistics } from '../compress/stream-detector'
import type { PointStreams as ApiPointStreams } from '../../shared/domain'
import { hasTable, type Db } from './open-db'
import { functionStreamsPending } from './function-streams-meta'
import { iterateChunksAhead, openSessionDb } from './session-reader'
import { lockSessionForRuns } from './session-lock'
import { resolve } from 'node:path'
import { allRows, storedJsonObject } from './rows'
import { BatchInsert } from './batch-insert'

/** The API's per-point stream metrics, as stored with their point and access count. */
export interface PointStreams extends ApiPointStreams {
  point: number
  accesses: number
}

export interface FunctionStreams extends StreamStatistics {
  function: string
  advice: Advice[]
}

function toPointStreams(m: PointStreamMetrics): PointStreams {
  const frac = (n: number) => (m.streams ? n / m.streams : 0)
  return {
    point: m.point,
    accesses: m.accesses,
    regularity: m.accesses ? m.predictable / m.accesses : 0,
    meanStreamLength: m.streams ? m.lengthSum / m.streams : 0,
    streams: m.streams,
    distinctLengths: m.distinctLengths,
    distinctStrides: m.distinctStrides,
    lengths: m.lengths.map(([length, n]) => ({ length, fraction: frac(n) })),
    strides: m.strides.map(([stride, n]) => ({ stride, fraction: frac(n) }))
  }
}

/**
 * Runs Mohan's detector (native) per function over the stored trace, the next chunk decoding
 * while this one is detected (at most two in memory), and returns its statistics; accesses
 * of points without a function go under "(unknown)". Yields to the event loop between chunks,
 * so the trace worker names points (child processes) meanwhile.
 */
export async function computeFunctionStreams(db: Db, pointFunction: Array<string | null>, window = DEFAULT_WINDOW): Promise<FunctionStreams[]> {
  const names = functionGroups(pointFunction)
  const index = new Map(names.map((n, i) => [n, i]))
  const detectors = new NativeStreamDetectors(Int32Array.from(pointFunction, (f) => index.get(f ?? UNKNOWN_FUNCTION)!), names.length, window)
  for await (const chunk of iterateChunksAhead(db, pointFunction.length, { reuse: true })) detectors.add(chunk.count, chunk.points, chunk.addresses, chunk.sizes)
  return functionRows(names, detectors.finish())
}

/**
 * The functions' stream statistics: as stored, or computed now from the stored trace when they
 * were left for a request (and then kept, through `keep`, when given: the caller holds the
 * session open for writing). `kept` says whether they are stored now.
 */
export async function functionStreamsOf(db: Db, pointFunction: Array<string | null>, keep?: (rows: FunctionStreams[]) => void): Promise<{ functions: FunctionStreams[]; computed: boolean }> {
  if (!functionStreamsPending(db)) return { functions: readFunctionStreams(db), computed: false }
  const functions = await computeFunctionStreams(db, pointFunction)
  keep?.(functions)
  return { functions, computed: true }
}

/**
 * Stores computed function statistics in a session that left them for a request (one
 * transaction; the rows say they are computed: meta is the trace's, digested at its end).
 */
export function keepFunctionStreams(db: Db, functions: readonly FunctionStreams[]): void {
  db.transaction(() => {
    db.prepare('DELETE FROM function_streams').run()
    const rows = new BatchInsert(db, 'function_streams', ['function', 'stats'])
    for (const f of functions) rows.add(f.function, JSON.stringify(f))
    rows.finish()
  })()
}

/**
 * Keeps computed function statistics in the session file at `path`: its own connection, under
 * the shared lock runs are stored with (refused while a trace writes the file). Throws a
 * one-line StrideError when the file cannot be written.
 */
export function keepFunctionStreamsAt(path: string, functions: readonly FunctionStreams[], command: string): void {
  const full = resolve(path)
  const lock = lockSessionForRuns(full, command)
  try {
    const db = openSessionDb(full)
    try {
      keepFunctionStreams(db, functions)
    } finally {
      db.close()
    }
  } finally {
    lock.release()
  }
}

/** Where the accesses of points without a function are counted. */
export const UNKNOWN_FUNCTION = '(unknown)'

/** The functions' groups, in the order the stored rows list them: by their first point. */
export function functionGroups(pointFunction: ReadonlyArray<string | null>): string[] {
  return [...new Set(pointFunction.map((f) => f ?? UNKNOWN_FUNCTION))]
}

/** The stored rows: each group's statistics with its advice, functions never accessed left out. */
export function functionRows(names: readonly string[], stats: readonly StreamStatistics[]): FunctionStreams[] {
  return stats.map((s, i) => ({ function: names[i]!, ...s, advice: adviseFromStreams(s) })).filter((f) => f.references > 0)
}

/** Stores both kinds of stream metrics (replacing any stored before). */
export function storeStreamMetrics(db: Db, metrics: StreamMetricsSource, functions: FunctionStreams[]): void {
  const points = metrics.finish().map(toPointStreams)
  db.transaction(() => {
    db.prepare('DELETE FROM point_streams').run()
    db.prepare('DELETE FROM function_streams').run()
    // A whole-program trace has thousands of points: 64 rows a statement.
    const pointRows = new BatchInsert(db, 'point_streams', ['point', 'metrics'])
    for (const p of points) pointRows.add(p.point, JSON.stringify(p))
    pointRows.finish()
    const functionRows = new BatchInsert(db, 'function_streams', ['function', 'stats'])
    for (const f of functions) functionRows.add(f.function, JSON.stringify(f))
    functionRows.finish()
  })()
}

/** Per-point stream metrics by point index (empty for sessions traced before schema v5). */
export function readPointStreams(db: Db): Map<number, PointStreams> {
  if (!hasTable(db, 'point_streams')) return new Map()
  const rows = allRows(db.prepare('SELECT point, metrics FROM point_streams ORDER BY point'), { point: 'number', metrics: 'text' })
  return new Map(rows.map((r) => [r.point, storedJsonObject(r.metrics, 'point_streams.metrics') as unknown as PointStreams]))
}

export function readFunctionStreams(db: Db): FunctionStreams[] {
  if (!hasTable(db, 'function_streams')) return []
  const rows = allRows(db.prepare('SELECT stats FROM function_streams ORDER BY function'), { stats: 'text' })
  return rows.map((r) => storedJsonObject(r.stats, 'function_streams.stats') as unknown as FunctionStreams)
}

/**
 * Stream metrics of a session: as stored, or for a session traced before they were stored,
 * computed now from its trace (one chunk at a time) without writing them. Function statistics
 * left for a request come only with `computeFunctions` (then kept through `keep`, if given);
 * else none, and `functionsPending` says so.
 */
export async function sessionStreams(
  db: Db,
  pointFunction: Array<string | null>,
  { computeFunctions = false, keep }: { computeFunctions?: boolean; keep?: (rows: FunctionStreams[]) => void } = {}
): Promise<{ points: Map<number, PointStreams>; functions: FunctionStreams[]; functionsPending: boolean }> {
  const points = readPointStreams(db)
  if (points.size > 0 || pointFunction.length === 0) {
    if (functionStreamsPending(db) && !computeFunctions) return { points, functions: [], functionsPending: true }
    return { points, functions: (await functionStreamsOf(db, pointFunction, keep)).functions, functionsPending: false }
  }
  const metrics = new NativeRsdMetrics()
  for await (const chunk of iterateChunksAhead(db, pointFunction.length, { reuse: true })) metrics.add(chunk.count, chunk.points, chunk.addresses, pointFunction.length)
  return {
    points: new Map(metrics.finish().map((m) => [m.point, toPointStreams(m)])),
    functions: await computeFunctionStreams(db, pointFunction),
    functionsPending: false
  }
}
