/**
 * Writes a session while its trace streams in. Each stored chunk is committed in one
 * transaction together with the access points it names that were not stored yet, the
 * points' access counts and the event count, so whatever Stride dies of, the file holds
 * every committed chunk and everything needed to read it, marked partial until `finish`.
 * A session never replaces an existing file while it is recorded: when the target exists,
 * the trace goes to a side file renamed over it only by `finish`.
 */
import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, extname, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { DimsSource, TraceStopReason } from '../../shared/domain'
import { NativePrsdSequiturEncoder } from '../compress/native-codec'
import { foldLog, openDb, type Db } from './open-db'
import { UNFINISHED_MESSAGE } from './recording-state'
import { migrate } from './schema'
import { FUNCTION_STREAMS_KEY, FUNCTION_STREAMS_ON_REQUEST } from './function-streams-meta'
import { storeStreamMetrics, type FunctionStreams } from './stream-store'
import { BatchInsert } from './batch-insert'
import { allRows } from './rows'
import { staticsIdentity } from './statics-identity'
import { writeStaticsCache, type CachedStatics } from './statics-cache'
import { writeViews, type StoredView } from './view-cache'
import { looksLikeSession } from './session-output'
import { boundChecksum, writeDigests } from './integrity'
import { encodeThreadRuns, threadRunsOf } from './thread-runs'
import { CHUNK_VARIABLES_FORMAT, chunkVariablesChecksum, encodeChunkVariables, encodeChunkVariablesAsync } from './chunk-variables'

export interface SessionMeta {
  program: string
  args: string[]
  backend: 'valgrind' | 'frida'
  functions: string[]
  createdAt: string
}

export interface PointRecord {
  idx: number
  pc: number
  kind: number
  accesses: number
  firstAddress: number
}

export interface PointNames {
  idx: number
  refId: string
  file: string | null
  line: number | null
  function: string | null
  module: string | null
  variable: string | null
  sourceExpr: string | null
  disasm: string | null
}

/** A data structure as stored (see schema v2/v3). */
export interface VariableRow {
  id: number
  name: string
  kind: 'global' | 'stack' | 'heap' | 'unknown'
  start: number | null
  size: number | null
  type: string | null
  elementSize: number | null
  dims: number[] | null
  /** Where dims came from (v15); null without dims. */
  dimsFrom: DimsSource | null
  module: string | null
  allocSite: string | null
  reads: number
  writes: number
}

/**
 * Most accesses in one stored chunk. The writer gathers the tracer's 64K-access batches up to
 * this many before compressing and committing them: PRSDs and the SEQUITUR grammar restart
 * with each chunk, so larger chunks store loop nests in fewer descriptors (a 5-deep blocked
 * matrix multiply: 18 KB in 64K chunks, 5.5 KB in 256K ones). If Stride itself dies, at most
 * this many accesses (the ones gathered, not yet committed) are lost, three times this many
 * when chunks compress in the background (encodeInBackground); when the traced program
 * crashes nothing is, since `finish` commits what is gathered.
 */
export const MAX_STORED_CHUNK = 1 << 18

export { UNFINISHED_MESSAGE }

/** A full chunk waiting for (or in) the background encoder, with its points as they were. */
interface SealedChunk {
  count: number
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
  /** Its accesses' threads as runs (thread-runs.ts), or null: the recorder gave none. */
  threadRuns: Uint32Array | null
  /** The array the chunk's data structures were gathered in (reused with the others; read only through `column`). */
  variables: Int32Array
  /** The point table when it was sealed (the chunk names no later point), and its access counts then. */
  table: readonly PointRecord[]
  accesses: Float64Array
  /** The data-structure column as stored, or null (compressed on the thread pool meanwhile). */
  column: Promise<Buffer | null>
  /** The encoder and, when chunks are fed (feedChunks), the feeds: the arrays go back to `spare` when both are done. */
  users: number
}

/** Takes every sealed chunk, in trace order; resolves once done with its arrays (never rejects). */
export interface ChunkFeed {
  feed(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, table: readonly PointRecord[], variables: Int32Array | null): Promise<void>
}

/**
 * The points' access counts as they are now (they go on growing in the tracer's table). A
 * loop: Float64Array.from with a map function lists the table first, per chunk (58 ms of a
 * 15 M-access trace with 5,000 points, and fresh pages for the lists).
 */
function accessCounts(table: readonly PointRecord[]): Float64Array {
  const out = new Float64Array(table.length)
  for (let i = 0; i < table.length; i++) out[i] = table[i]!.accesses
  return out
}

export class SessionWriter {
  readonly db: Db
  /** Where the session is written while it is recorded (== path unless path already existed). */
  readonly recordingPath: string
  private seq = 0
  private committed = 0
  private storedBytes = 0
  private readonly insertChunk
  private readonly insertVariables
  /** Compresses chunks as they come (METRIC PRSDs, loops folded + SEQUITUR; its `codec` names the format) and keeps per-point stream metrics. */
  private readonly encoder = new NativePrsdSequiturEncoder(MAX_STORED_CHUNK)
  // Accesses gathered for the next stored chunk.
  private gPoints: Uint32Array = new Uint32Array(MAX_STORED_CHUNK)
  private gAddresses: Float64Array = new Float64Array(MAX_STORED_CHUNK)
  private gSizes: Uint16Array = new Uint16Array(MAX_STORED_CHUNK)
  /** The gathered accesses' threads; `threadsGiven` false once a batch came without them (the chunk then stores none). */
  private readonly gThreads = new Uint16Array(MAX_STORED_CHUNK)
  private threadsGiven = true
  private gVariables: Int32Array = new Int32Array(MAX_STORED_CHUNK)
  /** Every batch of the gathered chunk came with its data structures (appendChunk's `variables`). */
  private gVariablesWhole = true
  private gathered = 0
  private gatheredPoints: readonly PointRecord[] = []
  /** The tracer's access counts by point (appendChunk's `counts`), or null: the records' own. */
  private gatheredCounts: Float64Array | null = null
  /**
   * Background encoding (encodeInBackground): full chunks wait here, oldest first, and are
   * encoded on Node's thread pool, then committed in order. The encoder's first stage takes
   * one chunk at a time (its stream metrics run across chunks); a chunk's brotli stage runs
   * beside the next one's first stage. `staged`: how many of `waiting` have had their first
   * stage started; `committing`: the chain that commits them in order.
   */
  private background = false
  private readonly waiting: SealedChunk[] = []
  private encoding = false
  private staged = 0
  private committing: Promise<void> = Promise.resolve()
  private failure: Error | null = null
  private readonly spare: SealedChunk[] = []
  private readonly feeders: ChunkFeed[] = []
  /** Sealed chunks a feeder has not finished with. */
  private feeding = 0
  private readonly wakers: Array<() => void> = []
  /** Points stored so far, and the access counts last stored for them. */
  private storedPoints = 0
  private storedAccesses: number[] = []
  private finished = false
  private identity: string | null = null
  /** Where `finish` left the session: `path`, or beside it when a partial trace kept an older session (keptBeside). */
  private finalPath: string | null = null
  /**
   * Test hook: with STRIDE_TRACE_DUMP=FILE the batches are also appended to FILE uncompressed
   * (u32 count, count x u32 point, count x f64 address, count x u16 size), so a test can check
   * the stored trace against exactly what the tracer produced.
   */
  private readonly dump = process.env.STRIDE_TRACE_DUMP || null
  private readonly setMeta

  /**
   * `path` is where the session ends up. The caller has checked that it may be replaced
   * (checkSessionOutput); it is not touched before `finish`.
   */
  constructor(readonly path: string, meta: SessionMeta) {
    mkdirSync(dirname(path), { recursive: true })
    // A side file of its own per recording (never shared by two traces of one process).
    this.recordingPath = existsSync(path) ? `${path}.recording-${process.pid}-${randomBytes(4).toString('hex')}` : path
    this.db = openDb(this.recordingPath, { create: true })
    migrate(this.db)
    // Every chunk of this session carries a checksum bound to its place (integrity.ts).
    this.db.prepare("UPDATE integrity SET value = 'bound' WHERE key = 'chunks'").run()
    this.insertChunk = this.db.prepare('INSERT INTO trace_chunks (seq, first_event, events, codec, data, checksum, point_count, threads) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    this.insertVariables = this.db.prepare('INSERT INTO chunk_variables (seq, format, data, checksum) VALUES (?, ?, ?, ?)')
    this.setMeta = this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)')
    this.writeMeta({ ...meta, events: 0, partial: true, stopReason: 'error', stopMessage: UNFINISHED_MESSAGE, storedBytes: 0 })
    if (this.dump) writeFileSync(this.dump, '')
  }

  writeMeta(values: Record<string, unknown>): void {
    this.db.transaction(() => {
      for (const [k, v] of Object.entries(values)) this.setMeta.run(k, JSON.stringify(v))
    })()
  }

  /**
   * Appends a batch of the tracer's accesses. `pointTable` is the tracer's own, growing point
   * table: the points a committed chunk names are stored with it. `counts`, if given, are its
   * points' access counts by index as of this batch, read instead of each record's `accesses`
   * (which the tracer then need only set before `writePoints`): copying them into thousands of
   * records at every batch cost a whole-program trace ~50 ms. `variables`, if given, is each
   * access's data structure (the correlator's id), stored beside the chunk (chunk-variables.ts)
   * when every batch of the chunk has them.
   */
  appendChunk(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, pointTable: readonly PointRecord[], counts?: Float64Array, threads?: Uint16Array, variables?: Int32Array): void {
    this.gatheredCounts = counts ?? null
    if (this.dump && count > 0) {
      const head = Buffer.alloc(4)
      head.writeUInt32LE(count)
      appendFileSync(this.dump, Buffer.concat([head, bytesOf(points, count * 4), bytesOf(addresses, count * 8), bytesOf(sizes, count * 2)]))
    }
    for (let from = 0; from < count; ) {
      const n = Math.min(MAX_STORED_CHUNK - this.gathered, count - from)
      this.gPoints.set(points.subarray(from, from + n), this.gathered)
      this.gAddresses.set(addresses.subarray(from, from + n), this.gathered)
      this.gSizes.set(sizes.subarray(from, from + n), this.gathered)
      if (threads) this.gThreads.set(threads.subarray(from, from + n), this.gathered)
      else this.threadsGiven = false
      if (variables) this.gVariables.set(variables.subarray(from, from + n), this.gathered)
      else this.gVariablesWhole = false
      this.gathered += n
      this.gatheredPoints = pointTable
      from += n
      if (this.gathered === MAX_STORED_CHUNK) {
        if (this.background) this.sealGathered()
        else this.commitGathered()
      }
    }
  }

  /**
   * From now on full chunks are compressed on Node's thread pool while the tracer reads on
   * (the same bytes). The tracer must respect `backlogged` (pause its input until `ready()`)
   * and await `drain()` before anything that commits (`writePoints`, `finish`). If Stride dies
   * meanwhile, the chunks still encoding are lost with the gathered ones (at most 3 x
   * MAX_STORED_CHUNK accesses); the program's own crash loses nothing.
   */
  encodeInBackground(): void {
    this.background = true
  }

  /**
   * Every chunk sealed from now on (encodeInBackground, commitAllInBackground) also goes to
   * `feeder`, in trace order, its arrays lent until every feeder's feed resolves
   * (LiveSimulation: the first simulation). Chunks committed otherwise (commitAll, finish) are not fed.
   */
  feedChunks(feeder: ChunkFeed): void {
    this.feeders.push(feeder)
  }

  /** Full chunks are waiting for the encoder or the feed: the tracer should stop reading until ready(). */
  get backlogged(): boolean {
    return this.waiting.length >= 2 || this.feeding >= 2
  }

  /** Resolves once no longer backlogged; rejects if a background encode failed. */
  ready(): Promise<void> {
    return this.until(() => !this.backlogged)
  }

  /** Resolves once every full chunk is encoded and committed; rejects if one failed. */
  drain(): Promise<void> {
    return this.until(() => this.waiting.length === 0)
  }

  private until(done: () => boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.failure) reject(this.failure)
        else if (done()) resolve()
        else this.wakers.push(check)
      }
      check()
    })
  }

  /** Hands the gathered chunk to the background encoder and gathers into a fresh buffer. */
  private sealGathered(): void {
    const n = this.gathered
    if (n === 0) return
    // The points as they are now. Only their access counts go on changing in the tracer's
    // table: those are copied, not the records (a whole-program trace has thousands, per chunk).
    const table = this.gatheredPoints.slice()
    const variables = this.gVariablesWhole ? this.gVariables : null
    const column = variables ? encodeChunkVariablesAsync(n, this.gPoints, variables, table.length) : Promise.resolve(null)
    // Settled here too: a failure is met where the chunk commits, never unhandled before.
    column.catch(() => {})
    const job: SealedChunk = { count: n, points: this.gPoints, addresses: this.gAddresses, sizes: this.gSizes, threadRuns: this.takeThreadRuns(n), variables: this.gVariables, table, accesses: this.countsOf(table), column, users: this.feeders.length > 0 ? 2 : 1 }
    this.waiting.push(job)
    if (this.feeders.length > 0) {
      this.feeding++
      void Promise.allSettled(this.feeders.map((f) => f.feed(n, job.points, job.addresses, job.sizes, table, variables))).then(() => {
        this.feeding--
        this.release(job)
        for (const wake of this.wakers.splice(0)) wake()
      })
    }
    const next = this.spare.pop()
    this.gPoints = next?.points ?? new Uint32Array(MAX_STORED_CHUNK)
    this.gAddresses = next?.addresses ?? new Float64Array(MAX_STORED_CHUNK)
    this.gSizes = next?.sizes ?? new Uint16Array(MAX_STORED_CHUNK)
    this.gVariables = next?.variables ?? new Int32Array(MAX_STORED_CHUNK)
    this.gVariablesWhole = true
    this.gathered = 0
    this.pump()
  }

  private pump(): void {
    if (this.encoding || this.staged >= this.waiting.length || this.failure) return
    const job = this.waiting[this.staged++]!
    this.encoding = true
    const { first, data } = this.encoder.encodeStaged(job.count, job.points.subarray(0, job.count), job.addresses.subarray(0, job.count), job.sizes.subarray(0, job.count), job.table.length)
    // Settled at once, so a failure never goes unhandled while earlier chunks commit.
    const chunk = data.then(
      (bytes) => ({ bytes, error: null }),
      (e: unknown) => ({ bytes: null, error: e instanceof Error ? e : new Error(String(e)) })
    )
    // The encoder is free for the next chunk, and done with this one's arrays.
    void first.then(() => {
      this.encoding = false
      this.release(job)
      this.pump()
    })
    this.committing = this.committing
      .then(() => Promise.all([chunk, job.column]))
      .then(([{ bytes, error }, column]) => {
        if (this.failure) return
        if (error || !bytes) {
          this.failure = error ?? new Error('internal: a chunk was encoded to nothing')
          this.waiting.length = 0
          this.staged = 0
          return
        }
        if (!this.finished) this.commitChunk(job.count, bytes, job.table, job.accesses, job.threadRuns, column)
        this.waiting.shift()
        this.staged--
      })
      .catch((e: unknown) => {
        // commitChunk failed (the disk, the database): the writer stops as on an encode failure.
        this.failure ??= e instanceof Error ? e : new Error(String(e))
        this.waiting.length = 0
        this.staged = 0
      })
      .finally(() => {
        this.pump()
        for (const wake of this.wakers.splice(0)) wake()
      })
  }

  /** A user of the chunk's arrays is done; the last one lends them to the next chunk. */
  private release(job: SealedChunk): void {
    if (--job.users === 0) this.spare.push(job)
  }

  /** The access counts of the gathered chunk's points now: the tracer's counts, or its records'. */
  private countsOf(table: readonly PointRecord[]): Float64Array {
    return this.gatheredCounts ? this.gatheredCounts.slice(0, table.length) : accessCounts(table)
  }

  /** The chunk's data-structure column as stored, or null without one (a batch came without it, or none did). */
  private columnOf(n: number, points: Uint32Array, variables: Int32Array | null, pointCount: number): Buffer | null {
    return variables ? encodeChunkVariables(n, points, variables, pointCount) : null
  }

  /** Compresses the gathered accesses and commits them as one chunk, with their points. */
  private commitGathered(): void {
    if (this.encoding || this.waiting.length > 0) throw new Error('internal: chunks are still encoding in the background; await drain() first')
    const n = this.gathered
    if (n === 0) return
    const table = this.gatheredPoints
    const threadRuns = this.takeThreadRuns(n)
    const column = this.columnOf(n, this.gPoints, this.gVariablesWhole ? this.gVariables : null, table.length)
    this.commitChunk(n, this.encoder.encode(n, this.gPoints.subarray(0, n), this.gAddresses.subarray(0, n), this.gSizes.subarray(0, n), table.length), table, this.countsOf(table), threadRuns, column)
    this.gathered = 0
    this.gVariablesWhole = true
  }

  /** The gathered chunk's thread runs (null if some batch came without threads); gathering the next starts with threads given. */
  private takeThreadRuns(n: number): Uint32Array | null {
    const runs = this.threadsGiven ? threadRunsOf(this.gThreads, n) : null
    this.threadsGiven = true
    return runs
  }

  /** Commits one compressed chunk of `count` accesses with the points it may name (`table`) and their access counts then. */
  private commitChunk(count: number, data: Buffer, table: readonly PointRecord[], accesses: Float64Array, threadRuns: Uint32Array | null, column: Buffer | null): void {
    const threads = threadRuns ? encodeThreadRuns(this.seq, this.committed, count, threadRuns) : null
    this.db.transaction(() => {
      this.storePoints(table, accesses)
      this.insertChunk.run(this.seq, this.committed, count, this.encoder.codec, data, boundChecksum(this.seq, this.committed, count, table.length, this.encoder.codec, data), table.length, threads)
      if (column) this.insertVariables.run(this.seq, CHUNK_VARIABLES_FORMAT, column, chunkVariablesChecksum(this.seq, column))
      this.setMeta.run('events', JSON.stringify(this.committed + count))
      this.setMeta.run('storedBytes', JSON.stringify(this.storedBytes + data.length))
    })()
    this.seq++
    this.committed += count
    this.storedBytes += data.length
  }

  /** New points and changed access counts (inside the caller's transaction). */
  private storePoints(table: readonly PointRecord[], accesses: Float64Array): void {
    // New points, and stored ones whose counts changed, 64 rows a statement (upserts): a
    // whole-program trace meets ~5,400 points at start-up, and thousands change counts in
    // every chunk of a real program; a statement call costs a few microseconds (batch-insert.ts).
    const rows = new BatchInsert(this.db, 'points', NEW_POINT_COLUMNS, 'idx')
    for (let i = 0; i < table.length; i++) {
      const a = accesses[i]!
      if (i < this.storedPoints && a === this.storedAccesses[i]) continue
      const p = table[i]!
      rows.add(p.idx, p.pc, p.kind, a, p.firstAddress)
      this.storedAccesses[i] = a
    }
    rows.finish()
    this.storedPoints = table.length
  }

  /** Accesses stored in committed chunks. */
  get committedEvents(): number {
    return this.committed
  }

  /** Rows of the point table (every point a committed chunk may name). */
  get storedPointCount(): number {
    return this.storedPoints
  }

  /** Bytes of the committed chunks (the meta's `storedBytes`). */
  get storedByteCount(): number {
    return this.storedBytes
  }

  /** Accesses received so far (committed, encoding, or gathered for the next chunk). */
  get eventCount(): number {
    return this.committed + this.waiting.reduce((n, c) => n + c.count, 0) + this.gathered
  }

  /**
   * Commits the gathered accesses (after `drain()` when encoding in the background): the
   * stored trace is then whole, for the stream statistics to read before `writePoints`.
   */
  commitAll(): void {
    this.commitGathered()
  }

  /**
   * commitAll with the last chunk compressed on Node's thread pool (the same bytes), so the
   * tracer reads symbols meanwhile; resolves once it is committed, rejects if it failed.
   */
  async commitAllInBackground(): Promise<void> {
    this.background = true
    this.sealGathered()
    await this.drain()
  }

  /**
   * Stores the per-point stream metrics the encoder kept and the functions' stream statistics
   * (called once the trace has ended and `commitAll` made it whole; they need no names).
   */
  writeStreamMetrics(functionStreams: FunctionStreams[], { functionsOnRequest = false }: { functionsOnRequest?: boolean } = {}): void {
    this.commitGathered()
    storeStreamMetrics(this.db, this.encoder.metrics, functionStreams)
    if (functionsOnRequest) this.writeMeta({ [FUNCTION_STREAMS_KEY]: FUNCTION_STREAMS_ON_REQUEST })
  }

  /** Stores the point table and module list (called once the trace has ended and `commitAll` made it whole). */
  writePoints(points: PointRecord[], names: PointNames[], modules: Array<{ path: string; base: number; start: number; end: number }>): void {
    this.commitGathered()
    const byIdx = new Map(names.map((n) => [n.idx, n]))
    // The chunks stored the points unnamed: rows are rewritten in place, 64 to a statement (a
    // REPLACE per row, a delete and an insert through three indexes, took 1.5x as long on a
    // whole-program trace's 5,400 points).
    const columns = ['idx', 'pc', 'kind', 'accesses', 'first_address', 'ref_id', 'file', 'line', 'function', 'module', 'variable', 'source_expr', 'disasm']
    const insertModule = this.db.prepare('INSERT INTO modules (path, base, start, end) VALUES (?,?,?,?)')
    this.db.transaction(() => {
      // Every row changes its indexed columns: the indexes are built once afterwards (their
      // own statements, whatever the schema version) rather than updated row by row.
      const indexes = allRows(this.db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'points' AND sql IS NOT NULL"), { name: 'text', sql: 'text' })
      for (const i of indexes) this.db.exec(`DROP INDEX "${i.name}"`)
      const rows = new BatchInsert(this.db, 'points', columns, 'idx')
      for (const p of points) {
        const n = byIdx.get(p.idx)
        rows.add(p.idx, p.pc, p.kind, p.accesses, p.firstAddress, n?.refId ?? null, n?.file ?? null, n?.line ?? null, n?.function ?? null, n?.module ?? null, n?.variable ?? null, n?.sourceExpr ?? null, n?.disasm ?? null)
      }
      rows.finish()
      for (const i of indexes) this.db.exec(i.sql)
      this.db.prepare('DELETE FROM modules').run()
      for (const m of modules) insertModule.run(m.path, m.base, m.start, m.end)
    })()
  }

  /** Stores the data structures and, per point, how many of its accesses fell in each. */
  writeVariables(variables: VariableRow[], histograms: Map<number, Map<number, number>>): void {
    const insertVariable = this.db.prepare(
      'INSERT INTO variables (id, name, kind, start, size, type, element_size, dims, dims_from, module, alloc_site, reads, writes) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)'
    )
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM variables').run()
      this.db.prepare('DELETE FROM point_variables').run()
      for (const v of variables)
        insertVariable.run(v.id, v.name, v.kind, v.start, v.size, v.type, v.elementSize, v.dims ? JSON.stringify(v.dims) : null, v.dims ? v.dimsFrom : null, v.module, v.allocSite, v.reads, v.writes)
      // A row per point at least (thousands in a whole-program trace): 64 rows a statement.
      const rows = new BatchInsert(this.db, 'point_variables', ['point', 'variable', 'accesses'])
      for (const [point, h] of histograms) for (const [variable, n] of h) rows.add(point, variable, n)
      rows.finish()
    })()
  }

  /** Stores loop nests (runtime addresses) and each point's innermost loop. */
  writeLoops(loops: Array<{ function: string; start: number; end: number; depth: number; parent: number; file: string | null; line: number | null }>, pointLoops: Map<number, number>): void {
    const insertLoop = this.db.prepare('INSERT INTO loops (id, function, start, end, depth, parent, file, line) VALUES (?,?,?,?,?,?,?,?)')
    const insertPoint = this.db.prepare('INSERT INTO point_loops (point, loop) VALUES (?,?)')
    this.db.transaction(() => {
      loops.forEach((l, i) => insertLoop.run(i, l.function, l.start, l.end, l.depth, l.parent < 0 ? null : l.parent, l.file, l.line))
      for (const [point, loop] of pointLoops) insertPoint.run(point, loop)
    })()
  }

  /**
   * Commits what is gathered, records how the trace ended, closes the file and, when it was
   * recorded beside an existing one, renames it into place. `statics`: the point columns and
   * touches as written (pointColumnsOf, touchesOf), stored last as the session's statics cache.
   */
  finish(
    result: { partial: boolean; stopReason: TraceStopReason; stopMessage: string | null; hasDebugInfo: boolean; debugInfoHint: string | null },
    statics?: CachedStatics,
    views: readonly StoredView[] = [],
    /** Other derived rows keyed by the statics identity (a first level's state), written last; never an error. */
    derived?: (db: Db, recording: string | null) => void
  ): void {
    if (this.finished) return
    this.commitGathered()
    this.writeMeta({ ...result, events: this.committed, storedBytes: this.storedBytes })
    // The point and meta tables as the trace leaves them, checked on every open.
    writeDigests(this.db)
    // After everything it is keyed by.
    this.identity = staticsIdentity(this.db)
    if (statics && this.identity !== null) {
      // Derived, so a session without it (a failure here, a crash before) reads its tables instead.
      try {
        writeStaticsCache(this.db, this.identity, statics.columns, statics.touches)
      } catch {
        // As without one.
      }
    }
    // The views derived from the first run (first-views.ts), last: they are keyed by all of the above.
    writeViews(this.db, views, this.identity)
    try {
      derived?.(this.db, this.identity)
    } catch {
      // As without them.
    }
    this.close()
    this.finalPath = this.path
    if (this.recordingPath !== this.path) {
      // Only a complete trace replaces a session: one that did not end as asked (stopped,
      // the program crashed, an error) leaves the older session untouched and is kept beside
      // it under its own name. A trace that stopped at the limit it was given is complete.
      const complete = !result.partial || result.stopReason === 'max-events' || result.stopReason === 'time-limit'
      if (!complete && looksLikeSession(this.path)) {
        this.finalPath = partialPathBeside(this.path)
        renameSync(this.recordingPath, this.finalPath)
      } else {
        removeSessionFile(this.path)
        renameSync(this.recordingPath, this.path)
      }
    }
  }

  /** The finished session's statics identity (statics-identity.ts; null before `finish`, or for none). */
  get staticsKey(): string | null {
    return this.identity
  }

  /** Where the finished session is (`path`, or the partial's own name beside an older session `path` kept); null before `finish`. */
  get sessionPath(): string | null {
    return this.finalPath
  }

  /** The partial trace was kept beside an older session at `path` instead of replacing it. */
  get keptBeside(): boolean {
    return this.finalPath !== null && this.finalPath !== this.path
  }

  /** Ends a recording that holds nothing: its file is removed (never an older session at `path`). */
  discard(): void {
    if (this.finished) return
    this.close()
    removeSessionFile(this.recordingPath)
  }

  private close(): void {
    this.finished = true
    foldLog(this.db)
    this.db.close()
  }
}

/** The columns a point has when its chunk is committed (the names come at the trace's end). */
const NEW_POINT_COLUMNS = ['idx', 'pc', 'kind', 'accesses', 'first_address']

function bytesOf(a: Uint32Array | Float64Array | Uint16Array, n: number): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, n)
}

/**
 * The name a partial trace is kept under beside the session at `path` it did not replace:
 * `run.stride` -> `run.partial-20250102-030405.stride` (then -2, -3 ... if taken).
 */
export function partialPathBeside(path: string): string {
  const ext = extname(path)
  const stem = join(dirname(path), basename(path, ext))
  const t = new Date()
  const p2 = (n: number) => String(n).padStart(2, '0')
  const stamp = `${t.getFullYear()}${p2(t.getMonth() + 1)}${p2(t.getDate())}-${p2(t.getHours())}${p2(t.getMinutes())}${p2(t.getSeconds())}`
  for (let n = 1; ; n++) {
    const candidate = `${stem}.partial-${stamp}${n > 1 ? `-${n}` : ''}${ext}`
    if (!existsSync(candidate)) return candidate
  }
}

/** Deletes a session file with its WAL side files. */
export function removeSessionFile(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })
}
