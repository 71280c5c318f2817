/** Reads a session back: its info, its point table and its trace chunks in order. */
import { accessSync, constants, copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { StrideError } from '../../shared/errors'
import { runLabel } from '../../shared/run-labels'
import { ACCESS_KINDS, type AccessPoint, type FunctionStreams, type HierarchyConfig, type PointStreams, type RunId, type RunSummary, type SessionInfo, type TraceStopReason } from '../../shared/domain'
import { crc32 } from 'node:zlib'
import { decodeStoredChunk, decodeStoredChunkAsync, READABLE_CODECS, type DecodedChunk } from './chunk-codec'
import type { DecodeInto } from '../compress/native-codec'
import { UNFINISHED_MESSAGE } from './recording-state'
import { functionStreamsPending } from './function-streams-meta'
import { cacheContexts } from './run-context'
import { hasTable, openDb, openDbImage, type Db } from './open-db'
import { assertSession, migrate, SCHEMA_VERSION } from './schema'
import { allRows, allTuples, getRow, oneRow, storedJsonObject } from './rows'
import { boundChecksum, checkIntegrity, checkPointValues, chunkChecks, pointValuesHold } from './integrity'
import { beforeOpening, checkedBefore, checkedNow } from './checked-sessions'
import { decodeThreadRuns } from './thread-runs'


/**
 * Opens a session. A session from an older Stride is upgraded on disk only when it is opened
 * for writing; opened read-only (or where it cannot be written: a read-only file or folder)
 * it is read from a private copy, upgraded in memory, and the file is never touched.
 */
export function openSessionDb(path: string, options: { readonly?: boolean } = {}): Db {
  const full = resolve(path)
  if (!existsSync(full)) throw new StrideError(`Session "${path}" does not exist; pass a .stride file written by "stride trace".`, 'not-found')
  // A FIFO or a device would block the open (or never end): only regular files are sessions.
  if (!statSync(full).isFile())
    throw new StrideError(`Session "${path}" is not a regular file (${statSync(full).isDirectory() ? 'a folder' : 'a FIFO, socket or device'}); pass a .stride file written by "stride trace".`)
  const readonly = options.readonly ?? false
  const writable = canWrite(full)
  if (!readonly && !writable)
    throw new StrideError(`Session "${path}" cannot be written (read-only file or folder); copy it somewhere writable to simulate or store runs in it.`, 'permission-denied')
  if (!writable) {
    const copy = openPrivateCopy(full, path)
    sessionPaths.set(copy, path)
    return copy
  }
  // A file this thread checked, unchanged since, is not checked again (checked-sessions.ts).
  const before = beforeOpening(full)
  // Read without leaving -wal/-shm files beside it, unless a -wal is there already (a
  // recording or simulation is writing it, or one crashed): then as SQLite's reader.
  let db = openOrExplain(full, path, readonly && !existsSync(`${full}-wal`) ? { queryOnly: true } : { readonly })
  try {
    if (checkedBefore(db, before)) {
      sessionPaths.set(db, path)
      return db
    }
    assertSession(db, path)
  } catch (e) {
    db.close()
    throw e
  }
  if ((db.pragma('user_version', { simple: true }) as number) < SCHEMA_VERSION) {
    db.close()
    if (readonly) {
      const copy = openPrivateCopy(full, path)
      sessionPaths.set(copy, path)
      return copy
    }
    db = openOrExplain(full, path, {})
    try {
      migrate(db)
    } catch (e) {
      db.close()
      throw e
    }
  }
  try {
    checkIntegrity(db, path)
    checkedNow(db, before)
  } catch (e) {
    db.close()
    throw e
  }
  sessionPaths.set(db, path)
  return db
}

/** The path each opened session was given as, for messages (a private copy is in memory). */
const sessionPaths = new WeakMap<Db, string>()

function canWrite(file: string): boolean {
  try {
    accessSync(file, constants.W_OK)
    accessSync(dirname(file), constants.W_OK) // SQLite's WAL needs its side files next to it
    return true
  } catch {
    return false
  }
}

function openOrExplain(full: string, path: string, options: { readonly?: boolean; queryOnly?: boolean }): Db {
  try {
    return openDb(full, options)
  } catch (e) {
    const why = (e as Error).message
    if (/not a database|file is encrypted/i.test(why))
      throw new StrideError(`${path} is not a Stride session (not a SQLite database); open a .stride file written by "stride trace".`, 'malformed-session')
    if (/unable to open database file|readonly|read-only/i.test(why))
      throw new StrideError(`Cannot open session "${path}" (${why}): its folder ${dirname(full)} must be writable for SQLite's side files; copy the session to a writable folder.`, 'permission-denied')
    throw new StrideError(`Cannot open session "${path}": ${why}; it may be damaged: re-trace the program.`, 'malformed-session')
  }
}

/**
 * A session read without writing to it: copied (with its WAL, which holds what a crashed
 * recording committed last) into a private folder, recovered and upgraded there, then loaded
 * into memory; the copy is deleted before this returns.
 */
function openPrivateCopy(full: string, path: string): Db {
  const dir = mkdtempSync(join(tmpdir(), 'stride-read-'))
  const copy = join(dir, 'session.stride')
  try {
    copyFileSync(full, copy)
    if (existsSync(`${full}-wal`)) copyFileSync(`${full}-wal`, `${copy}-wal`)
    const db = openOrExplain(copy, path, {})
    let image: Buffer
    try {
      assertSession(db, path)
      migrate(db)
      checkIntegrity(db, path)
      // Out of WAL mode: an in-memory database cannot have a write-ahead log.
      db.pragma('journal_mode = DELETE')
      image = db.serialize()
    } finally {
      db.close()
    }
    return openDbImage(image)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The meta table; a value that is not JSON is a malformed session, named. */
function meta(db: Db): Map<string, unknown> {
  const rows = allRows(db.prepare('SELECT key, value FROM meta'), { key: 'text', value: 'text' })
  return new Map(
    rows.map((r): [string, unknown] => {
      try {
        return [r.key, JSON.parse(r.value) as unknown]
      } catch {
        throw new StrideError(`The session is malformed: its meta value "${r.key}" is not valid JSON; re-trace the program.`, 'malformed-session')
      }
    })
  )
}

/** The threads the recorder saw (meta `threads`), or null where it did not say (older sessions). */
export function recordedThreads(db: Db): number | null {
  return threadsIn(meta(db))
}

function threadsIn(m: Map<string, unknown>): number | null {
  const n = m.get('threads')
  return typeof n === 'number' ? n : null
}

/** Bytes of the session's stored chunks, as its writer counted them with each chunk (meta `storedBytes`). */
export function storedTraceBytes(db: Db): number {
  return Number(meta(db).get('storedBytes') ?? 0)
}

export function readSessionInfo(db: Db, path: string): SessionInfo {
  const m = meta(db)
  const points = oneRow(db.prepare('SELECT COUNT(*) AS n FROM points'), { n: 'number' }).n
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
    programExit: programExit(m.get('programExit')),
    recorder: typeof m.get('recorder') === 'string' ? (m.get('recorder') as string) : null,
    recorderNote: typeof m.get('recorderNote') === 'string' ? (m.get('recorderNote') as string) : null,
    threads: threadsIn(m),
    functionStreamsPending: functionStreamsPending(db),
    ...(hasTable(db, 'function_streams') ? { functionStreams: readStoredJson<FunctionStreams & { advice: unknown }>(db, 'SELECT stats AS json FROM function_streams ORDER BY function', 'function_streams.stats').map(toFunctionStreams) } : {})
  }
}

/** The stored exit, checked field by field (meta is JSON a newer or damaged file may shape otherwise). */
function programExit(v: unknown): SessionInfo['programExit'] {
  if (!v || typeof v !== 'object') return null
  const { code, signal } = v as { code?: unknown; signal?: unknown }
  return { code: typeof code === 'number' ? code : null, signal: typeof signal === 'string' ? signal : null }
}

function readStoredJson<T>(db: Db, sql: string, where: string): T[] {
  return allRows(db.prepare(sql), { json: 'text' }).map((r) => storedJsonObject(r.json, where) as T)
}

/** The stored document (stream-store.ts: `buckets`; older sessions: `lengthBuckets`) in the API's shape. */
export function toFunctionStreams(f: Omit<FunctionStreams, 'lengthBuckets' | 'advice'> & { advice: readonly unknown[]; buckets?: FunctionStreams['lengthBuckets']; lengthBuckets?: FunctionStreams['lengthBuckets'] }): FunctionStreams {
  return {
    function: f.function,
    references: f.references,
    spatialRegularity: f.spatialRegularity,
    streams: f.streams,
    scalarStreams: f.scalarStreams,
    lengthBuckets: f.buckets ?? f.lengthBuckets ?? { '4-32': 0, '32-128': 0, '128-16384': 0, '>16384': 0 },
    meanLength: f.meanLength,
    lengthDeviation: f.lengthDeviation,
    meanStride: f.meanStride,
    meanStrideElements: f.meanStrideElements,
    advice: f.advice as FunctionStreams['advice']
  }
}

/** The session's runs, each with its label (the user's, else derived: shared/run-labels.ts). */
export function readRuns(db: Db): RunSummary[] {
  const rows = allRows(db.prepare('SELECT run, created_at, config, accesses, parent, label FROM runs ORDER BY run'), {
    run: 'number',
    created_at: 'text',
    config: 'text',
    accesses: 'number',
    parent: 'number?',
    label: 'text?'
  })
  const runs = rows.map((r) => ({ run: r.run, createdAt: r.created_at, config: parseRunConfig(r.run, r.config), accesses: r.accesses, parent: r.parent, name: r.label }))
  const contextOf = cacheContexts(db)
  return runs.map((r) => {
    const context = contextOf(r.run)
    return { ...r, label: runLabel(r, runs), ...(context ? { cacheContext: context } : {}) }
  })
}

/** A stored run's configuration, checked: a damaged one is a malformed session, named. */
export function parseRunConfig(run: number, text: string): HierarchyConfig {
  let config: unknown
  try {
    config = JSON.parse(text)
  } catch {
    config = null
  }
  const c = config as Partial<HierarchyConfig> | null
  if (!c || typeof c !== 'object' || !Array.isArray(c.levels) || c.levels.some((l) => !l || typeof l !== 'object' || typeof l.name !== 'string'))
    throw new StrideError(`The session is malformed: run ${run}'s cache configuration is unreadable; delete the run or re-simulate into a new session.`, 'malformed-session')
  return c as HierarchyConfig
}


/** The point table's columns, as readPoints reads them (rows as arrays: no object per row). */
const POINT_COLUMNS = [
  ['idx', 'int'],
  ['pc', 'int'],
  ['kind', 'int'],
  ['accesses', 'number'],
  ['ref_id', 'text?'],
  ['file', 'text?'],
  ['line', 'int?'],
  ['function', 'text?'],
  ['module', 'text?'],
  ['variable', 'text?'],
  ['source_expr', 'text?'],
  ['disasm', 'text?']
] as const

/**
 * The point table. `streams: false` leaves out each point's stream metrics (a JSON text per
 * point, about half the read), for callers that never show them: the CLI's tables and JSON.
 */
export function readPoints(db: Db, { streams: withStreams = true }: { streams?: boolean } = {}): AccessPoint[] {
  const rows = allTuples(db.prepare(`SELECT ${POINT_COLUMNS.map(([c]) => c).join(', ')} FROM points ORDER BY idx`), POINT_COLUMNS)
  const streams = new Map<number, PointStreams>()
  if (withStreams && hasTable(db, 'point_streams'))
    for (const [point, metrics] of allTuples(db.prepare('SELECT point, metrics FROM point_streams'), [['point', 'number'], ['metrics', 'text']] as const)) {
      const m = storedJsonObject(metrics, 'point_streams.metrics') as unknown as PointStreams
      streams.set(point, { regularity: m.regularity, meanStreamLength: m.meanStreamLength, streams: m.streams, distinctLengths: m.distinctLengths, distinctStrides: m.distinctStrides, lengths: m.lengths, strides: m.strides })
    }
  return rows.map(([idx, pc, kind, accesses, refId, file, line, fn, module, variable, sourceExpr, disasm], i) => {
    if (idx !== i || kind < 0 || kind >= ACCESS_KINDS.length || pc < 0) checkPointValues(db, sessionPaths.get(db)) // throws, naming the damage
    const point: AccessPoint = {
      index: idx,
      id: refId ?? `point_${idx}`,
      pc: '0x' + pc.toString(16),
      kind: ACCESS_KINDS[kind]!,
      file,
      line,
      function: fn,
      module,
      variable,
      accesses,
      sourceExpr,
      disasm
    }
    // Added last: a spread at the front of the literal sent V8 down a slow path (16 us a point).
    const s = streams.get(idx)
    if (s) point.streams = s
    return point
  })
}

/** Kind code per point, the simulator's input (checked: indexes 0..n-1, kinds in range). */
export function readPointKinds(db: Db): Uint8Array {
  // The values asked of SQLite, then the kinds alone, in one snapshot; checkPointValues reads
  // the three columns (and names the damage) only where they do not hold.
  return db.transaction(() => {
    if (!pointValuesHold(db)) return checkPointValues(db, sessionPaths.get(db)).kinds
    return Uint8Array.from(db.prepare('SELECT kind FROM points ORDER BY idx').pluck().all() as number[])
  })()
}

/** Most accesses iterateChunks yields at once (stored chunks may be larger; they are sliced). */
export const MAX_YIELDED_CHUNK = 1 << 16

/** Most accesses one stored chunk may declare (writers store at most 2^18); more is damage. */
export const MAX_STORED_CHUNK_EVENTS = 1 << 20

/**
 * Decoded chunks in execution order, one at a time: the whole trace is never in memory, only
 * one stored chunk, yielded in slices of at most MAX_YIELDED_CHUNK accesses.
 * A session cut short (crash, cancel) simply has fewer chunks. Every chunk is checked before
 * it is decoded (sequence, event count, checksum where stored) and after (the count it
 * decodes to), and the chunks together must hold the events the session says it has: any
 * mismatch is one error naming the chunk, never a different trace.
 */
interface StoredChunkRow {
  seq: number
  first_event: number
  events: number
  codec: string
  data: Buffer
  crc32?: number | null
  checksum?: number | null
  point_count?: number | null
}

/**
 * The stored chunks in order, each checked before it is decoded (sequence, first event,
 * declared count, codec, checksum), with `damaged(why)` for what its decode finds; then the
 * session's declared total against the chunks' (checked when the caller has consumed them all).
 */
interface CheckedChunk {
  row: StoredChunkRow
  /** The error naming this chunk, for what its decode finds. */
  damaged: (why: string) => StrideError
  /** Throws unless the decode gave the events the chunk declares. */
  accepted: (events: number) => void
}

function* checkedChunkRows(db: Db, firstChunks: number | null): Generator<CheckedChunk> {
  const total = oneRow(db.prepare('SELECT COUNT(*) AS n FROM trace_chunks'), { n: 'number' }).n
  const columns = new Set(allRows(db.prepare("SELECT name FROM pragma_table_info('trace_chunks')"), { name: 'text' }).map((r) => r.name))
  const optional = ['crc32', 'checksum', 'point_count'].filter((c) => columns.has(c))
  const rows = db.prepare(`SELECT seq, first_event, events, codec, data${optional.map((c) => `, ${c}`).join('')} FROM trace_chunks ORDER BY seq`).iterate() as IterableIterator<StoredChunkRow>
  // Which checks every chunk must carry: a bound checksum (v12 on), a CRC-32 (written v9-v11), or none (older).
  const checks = columns.has('checksum') ? chunkChecks(db) : columns.has('crc32') ? 'crc32-if-any' : 'none'
  const damaged = (index: number, why: string) => new StrideError(damageMessage(db, index, total, why), 'malformed-session')
  let index = 0
  let events = 0
  for (const row of rows) {
    if (firstChunks !== null && index >= firstChunks) return
    if (row.seq !== index) throw damaged(index, index < row.seq ? `chunk ${index} is missing` : `chunk ${row.seq} is out of sequence`)
    if (row.first_event !== events) throw damaged(index, `it starts at event ${row.first_event}, after ${events} events`)
    if (!Number.isSafeInteger(row.events) || row.events <= 0 || row.events > MAX_STORED_CHUNK_EVENTS) throw damaged(index, `it declares ${row.events} events`)
    if (typeof row.codec !== 'string' || !(row.data instanceof Uint8Array)) throw damaged(index, 'its codec or bytes are not stored as such')
    if (!READABLE_CODECS.includes(row.codec))
      throw new StrideError(`Trace chunk ${row.seq} uses codec "${row.codec.slice(0, 40)}", which this Stride cannot read; update Stride.`, 'malformed-session')
    if (row.checksum != null) {
      if (typeof row.point_count !== 'number' || boundChecksum(row.seq, row.first_event, row.events, row.point_count, row.codec, row.data) !== row.checksum)
        throw damaged(index, 'its checksum does not match its bytes and place in the trace')
    } else if (checks === 'bound') throw damaged(index, 'it has no checksum')
    else if (row.crc32 != null) {
      if (crc32(row.data) !== row.crc32) throw damaged(index, 'its checksum does not match')
    } else if (checks === 'crc32') throw damaged(index, 'it has no checksum')
    const at = index
    yield {
      row,
      damaged: (why) => damaged(at, why),
      accepted: (count) => {
        if (count !== row.events) throw damaged(at, `it decodes to ${count} events, not the ${row.events} it declares`)
      }
    }
    events += row.events
    index++
  }
  const declared = finishedEvents(db)
  if (declared !== null && declared !== events) throw damaged(Math.max(0, index - 1), `the session says ${declared} events, its chunks hold ${events}`)
}

/** A decoded chunk in slices of at most MAX_YIELDED_CHUNK accesses. */
function* slices(chunk: DecodedChunk, seq: number): Generator<DecodedChunk> {
  const stored = { seq, count: chunk.count, points: chunk.points }
  if (chunk.count <= MAX_YIELDED_CHUNK) {
    yield { ...chunk, stored: { ...stored, at: 0 } }
    return
  }
  for (let at = 0; at < chunk.count; at += MAX_YIELDED_CHUNK) {
    const end = Math.min(chunk.count, at + MAX_YIELDED_CHUNK)
    yield { count: end - at, points: chunk.points.subarray(at, end), addresses: chunk.addresses.subarray(at, end), sizes: chunk.sizes.subarray(at, end), stored: { ...stored, at } }
  }
}

export function* iterateChunks(db: Db, pointCount: number, firstChunks: number | null = null): Generator<DecodedChunk> {
  for (const { row, damaged, accepted } of checkedChunkRows(db, firstChunks)) {
    let chunk: DecodedChunk
    try {
      chunk = decodeStoredChunk(row.codec, row.data, pointCount, row.events)
    } catch (e) {
      throw damaged((e as Error).message)
    }
    accepted(chunk.count)
    yield* slices(chunk, row.seq)
  }
}

/** Sets of decode arrays taken in turn: one being read by the caller, the others being decoded into. */
class DecodeRing {
  private readonly sets: Array<DecodeInto | undefined>
  private turn = 0

  constructor(size: number) {
    this.sets = new Array<DecodeInto | undefined>(size).fill(undefined)
  }

  next(events: number): DecodeInto {
    const i = this.turn
    this.turn = (i + 1) % this.sets.length
    const held = this.sets[i]
    if (held && held.points.length >= events) return held
    const fresh = { points: new Uint32Array(events), addresses: new Float64Array(events), sizes: new Uint16Array(events) }
    this.sets[i] = fresh
    return fresh
  }
}

/**
 * iterateChunks with the next `depth` chunks (default 1) decoding on Node's thread pool while
 * the caller works on this one (the simulator: decoding and simulating then overlap on two
 * cores; with two ahead, two decodes overlap too, where decoding is the slower of the two). At
 * most depth + 1 decoded chunks are in memory. Same checks, same errors.
 *
 * `reuse`: the chunks are decoded into depth + 1 sets of arrays taken in turn (no zero-filled
 * allocation per chunk, about 3.5 MB each). A yielded chunk's arrays are then only valid until
 * the caller asks for the next one: for callers that consume each chunk at once (the simulator,
 * the stream detectors), never for one that keeps chunks.
 */
export async function* iterateChunksAhead(db: Db, pointCount: number, { reuse = false, depth = 1 }: { reuse?: boolean; depth?: number } = {}): AsyncGenerator<DecodedChunk> {
  const ring = reuse ? new DecodeRing(depth + 1) : null
  const start = (checked: CheckedChunk): CheckedChunk & { decoded: Promise<DecodedChunk> } => {
    const into = ring?.next(checked.row.events)
    const decoded = decodeStoredChunkAsync(checked.row.codec, checked.row.data, pointCount, checked.row.events, into)
    // Observed at once: a chunk found damaged while an earlier one is consumed is not an
    // unhandled rejection; it is reported when its turn comes.
    decoded.catch(() => {})
    return { ...checked, decoded }
  }
  const rows = checkedChunkRows(db, null)
  try {
    // The chunk to hand over next, then those decoding after it.
    const pending: Array<ReturnType<typeof start>> = []
    for (;;) {
      while (pending.length <= depth) {
        const next = rows.next()
        if (next.done) break
        pending.push(start(next.value))
      }
      const current = pending.shift()
      if (!current) break
      let chunk: DecodedChunk
      try {
        chunk = await current.decoded
      } catch (e) {
        throw current.damaged((e as Error).message)
      }
      current.accepted(chunk.count)
      yield* slices(chunk, current.row.seq)
    }
  } finally {
    // A consumer that stops early (a cancelled simulation) must leave the connection free:
    // ending the row walk ends its statement.
    rows.return(undefined)
  }
}

/**
 * Run `run`'s accesses against the session's: a run stored from a prefix of the trace (a
 * simulation of a recording still growing, before the one-writer locks) covers fewer. Null when
 * the run does not exist or the recording is unfinished.
 */
export function runCoverage(db: Db, run: RunId): { accesses: number; events: number } | null {
  const row = getRow(db.prepare('SELECT accesses FROM runs WHERE run = ?'), { accesses: 'number' }, run)
  const events = finishedEvents(db)
  return row && events !== null ? { accesses: row.accesses, events } : null
}

/** The event count a finished recording stored (null while unfinished or unknown). */
function finishedEvents(db: Db): number | null {
  const row = getRow(db.prepare("SELECT value FROM meta WHERE key = 'events'"), { value: 'text' })
  const stop = getRow(db.prepare("SELECT value FROM meta WHERE key = 'stopMessage'"), { value: 'text' })
  if (!row || (stop && stop.value === JSON.stringify(UNFINISHED_MESSAGE))) return null
  const n = Number(row.value)
  return Number.isSafeInteger(n) ? n : null
}

/** "Session s.stride is damaged at chunk 3 of 12 (why); re-trace, or export the 2 intact chunks." */
function damageMessage(db: Db, index: number, total: number, why: string): string {
  const name = sessionPaths.get(db) ?? (db.name && db.name !== ':memory:' && !db.memory ? db.name : 'the session')
  const intact = index === 0 ? 're-trace the program' : `re-trace the program, or keep the ${index} intact chunk${index === 1 ? '' : 's'} with "stride export SESSION --chunks ${index}"`
  return `Session ${name} is damaged at chunk ${index + 1} of ${total} (${why}); ${intact}.`
}

export function countEvents(db: Db): number {
  return oneRow(db.prepare('SELECT COALESCE(SUM(events), 0) AS n FROM trace_chunks'), { n: 'number' }).n
}

/**
 * Every access's thread as runs (thread, count) over the whole trace, chunk after chunk; null
 * when any chunk has none (a Lackey recording, a session from before v13). A chunk's runs that
 * do not hold together (checksum, counts against its events) are damage, named as a chunk's is.
 */
export function readThreadRuns(db: Db): Uint32Array | null {
  const columns = new Set(allRows(db.prepare("SELECT name FROM pragma_table_info('trace_chunks')"), { name: 'text' }).map((r) => r.name))
  if (!columns.has('threads')) return null
  const rows = allRows(db.prepare('SELECT seq, first_event, events, threads FROM trace_chunks ORDER BY seq'), { seq: 'number', first_event: 'number', events: 'number', threads: 'blob?' })
  if (rows.length === 0 || rows.some((r) => r.threads === null)) return null
  const parts: Uint32Array[] = []
  let length = 0
  for (const [i, r] of rows.entries()) {
    const runs = decodeThreadRuns(r.seq, r.first_event, r.events, r.threads!)
    if (typeof runs === 'string') throw new StrideError(damageMessage(db, i, rows.length, runs), 'malformed-session')
    parts.push(runs)
    length += runs.length
  }
  const out = new Uint32Array(length)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
