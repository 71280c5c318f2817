/** Reads a session back: its info, its point table and its trace chunks in order. */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { StrideError } from '../../shared/api'
import type { AccessKind, AccessPoint, FunctionStreams, HierarchyConfig, PointStreams, RunSummary, SessionInfo, TraceStopReason } from '../../shared/domain'
import { decodeStoredChunk, READABLE_CODECS, type DecodedChunk } from './chunk-codec'
import { openDb, type Db } from './open-db'
import { assertSession, migrate, SCHEMA_VERSION } from './schema'

const KINDS: AccessKind[] = ['read', 'write', 'modify']

export function openSessionDb(path: string, options: { readonly?: boolean } = {}): Db {
  const full = resolve(path)
  if (!existsSync(full)) throw new StrideError(`Session "${path}" does not exist; pass a .stride file written by "stride trace".`, 'not-found')
  let db: Db
  try {
    db = openDb(full, { readonly: options.readonly ?? false })
  } catch (e) {
    const why = (e as Error).message
    if (/not a database|file is encrypted/i.test(why))
      throw new StrideError(`${path} is not a Stride session (not a SQLite database); open a .stride file written by "stride trace".`, 'malformed-session')
    throw new StrideError(`Cannot open session "${path}": ${why}.`, 'malformed-session')
  }
  try {
    assertSession(db, path)
  } catch (e) {
    db.close()
    throw e
  }
  if ((db.pragma('user_version', { simple: true }) as number) < SCHEMA_VERSION) {
    // A session from an older Stride: upgrade it in place once, then open it as asked.
    db.close()
    const upgrade = openDb(full)
    try {
      migrate(upgrade)
    } finally {
      upgrade.close()
    }
    db = openDb(full, { readonly: options.readonly ?? false })
  }
  return db
}

function meta(db: Db): Map<string, unknown> {
  const rows = db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>
  return new Map(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]))
}

export function readSessionInfo(db: Db, path: string): SessionInfo {
  const m = meta(db)
  const points = (db.prepare('SELECT COUNT(*) AS n FROM points').get() as { n: number }).n
  return {
    path: resolve(path),
    schemaVersion: SCHEMA_VERSION,
    program: String(m.get('program') ?? ''),
    args: (m.get('args') as string[] | undefined) ?? [],
    backend: m.get('backend') === 'frida' ? 'frida' : 'valgrind',
    createdAt: String(m.get('createdAt') ?? ''),
    functions: (m.get('functions') as string[] | undefined) ?? [],
    events: Number(m.get('events') ?? 0),
    partial: Boolean(m.get('partial')),
    stopReason: (m.get('stopReason') as TraceStopReason | undefined) ?? 'error',
    stopMessage: (m.get('stopMessage') as string | null | undefined) ?? null,
    storedBytes: Number(m.get('storedBytes') ?? 0),
    hasDebugInfo: Boolean(m.get('hasDebugInfo')),
    debugInfoHint: (m.get('debugInfoHint') as string | null | undefined) ?? null,
    points,
    runs: readRuns(db),
    ...(hasTable(db, 'function_streams') ? { functionStreams: readStoredJson<FunctionStreams & { advice: unknown }>(db, 'SELECT stats AS json FROM function_streams ORDER BY function').map(toFunctionStreams) } : {})
  }
}

function hasTable(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?").get(name) !== undefined
}

function readStoredJson<T>(db: Db, sql: string): T[] {
  return (db.prepare(sql).all() as Array<{ json: string }>).map((r) => JSON.parse(r.json) as T)
}

/** The stored document (stream-store.ts) in the API's shape. */
function toFunctionStreams(f: FunctionStreams & { buckets?: FunctionStreams['lengthBuckets'] }): FunctionStreams {
  return {
    function: f.function,
    references: f.references,
    spatialRegularity: f.spatialRegularity,
    streams: f.streams,
    scalarStreams: f.scalarStreams,
    lengthBuckets: f.buckets ?? f.lengthBuckets,
    meanLength: f.meanLength,
    lengthDeviation: f.lengthDeviation,
    meanStride: f.meanStride,
    meanStrideElements: f.meanStrideElements,
    advice: f.advice
  }
}

export function readRuns(db: Db): RunSummary[] {
  const rows = db.prepare('SELECT run, created_at, config, accesses FROM runs ORDER BY run').all() as Array<{ run: number; created_at: string; config: string; accesses: number }>
  return rows.map((r) => ({ run: r.run, createdAt: r.created_at, config: JSON.parse(r.config) as HierarchyConfig, accesses: r.accesses }))
}

export function readPoints(db: Db): AccessPoint[] {
  const rows = db.prepare('SELECT idx, pc, kind, accesses, ref_id, file, line, function, module, variable, source_expr, disasm FROM points ORDER BY idx').all() as Array<{
    idx: number; pc: number; kind: number; accesses: number; ref_id: string | null; file: string | null; line: number | null; function: string | null; module: string | null; variable: string | null
    source_expr: string | null; disasm: string | null
  }>
  const streams = new Map<number, PointStreams>()
  if (hasTable(db, 'point_streams'))
    for (const r of db.prepare('SELECT point, metrics FROM point_streams').all() as Array<{ point: number; metrics: string }>) {
      const m = JSON.parse(r.metrics) as PointStreams
      streams.set(r.point, { regularity: m.regularity, meanStreamLength: m.meanStreamLength, streams: m.streams, distinctLengths: m.distinctLengths, distinctStrides: m.distinctStrides, lengths: m.lengths, strides: m.strides })
    }
  return rows.map((r) => ({
    ...(streams.has(r.idx) ? { streams: streams.get(r.idx)! } : {}),
    index: r.idx,
    id: r.ref_id ?? `point_${r.idx}`,
    pc: '0x' + r.pc.toString(16),
    kind: KINDS[r.kind] ?? 'read',
    file: r.file,
    line: r.line,
    function: r.function,
    module: r.module,
    variable: r.variable,
    accesses: r.accesses,
    sourceExpr: r.source_expr,
    disasm: r.disasm
  }))
}

/** Kind code per point, the simulator's input. */
export function readPointKinds(db: Db): Uint8Array {
  const rows = db.prepare('SELECT idx, kind FROM points ORDER BY idx').all() as Array<{ idx: number; kind: number }>
  const kinds = new Uint8Array(rows.length)
  for (const r of rows) {
    if (r.idx >= rows.length) throw new StrideError('The session\'s point table has gaps; the file is damaged. Re-trace the program.', 'malformed-session')
    kinds[r.idx] = r.kind
  }
  return kinds
}

/** Most accesses iterateChunks yields at once (stored chunks may be larger; they are sliced). */
export const MAX_YIELDED_CHUNK = 1 << 16

/**
 * Decoded chunks in execution order, one at a time: the whole trace is never in memory, only
 * one stored chunk, yielded in slices of at most MAX_YIELDED_CHUNK accesses.
 * A session cut short (crash, cancel) simply has fewer chunks.
 */
export function* iterateChunks(db: Db, pointCount: number): Generator<DecodedChunk> {
  const rows = db.prepare('SELECT seq, codec, data FROM trace_chunks ORDER BY seq').iterate() as IterableIterator<{ seq: number; codec: string; data: Buffer }>
  for (const row of rows) {
    if (!READABLE_CODECS.includes(row.codec))
      throw new StrideError(`Trace chunk ${row.seq} uses codec "${row.codec}", which this Stride cannot read; update Stride.`, 'malformed-session')
    let chunk: DecodedChunk
    try {
      chunk = decodeStoredChunk(row.codec, row.data, pointCount)
    } catch (e) {
      throw new StrideError(`Trace chunk ${row.seq} is damaged (${(e as Error).message}); the session is malformed. Re-trace the program.`, 'malformed-session')
    }
    if (chunk.count <= MAX_YIELDED_CHUNK) yield chunk
    else
      for (let at = 0; at < chunk.count; at += MAX_YIELDED_CHUNK) {
        const end = Math.min(chunk.count, at + MAX_YIELDED_CHUNK)
        yield { count: end - at, points: chunk.points.subarray(at, end), addresses: chunk.addresses.subarray(at, end), sizes: chunk.sizes.subarray(at, end) }
      }
  }
}

export function countEvents(db: Db): number {
  return (db.prepare('SELECT COALESCE(SUM(events), 0) AS n FROM trace_chunks').get() as { n: number }).n
}
