/**
 * `first_level_stream` and `first_level_state` (optional tables, no schema change): a trace's
 * first run's first cache level, kept so that a what-if which changes only the levels below it
 * (another L2 or LL) follows what left it instead of replaying the trace
 * (simulate/first-level-group.ts; session-analysis/stored-first-level.ts reads them back).
 *
 * The stream is written while the trace records, a block per simulated batch: the first level's
 * misses and write-backs in order (the core's encoding, NativeHierarchy.takeCaptured), each
 * block as encoded or brotli-compressed, whichever its first bytes say (blockForm): a real
 * program's irregular misses barely compress (lz4's whole program: 13.1 MB, 8.6 at brotli's
 * quality 1, for 84 ms more at the trace and at every what-if, whose follow takes ~60 ms), a
 * loop kernel's regular ones to a twentieth. A stream larger than STREAM_FLOOR and STREAM_RATIO
 * times the trace's chunks is not kept (a loop nest over a large array misses at every line
 * and compresses to almost nothing in the trace): what-ifs then replay the trace.
 *
 * The state is written once the run is stored, at the trace's end: the first level's and the
 * TLB levels' counts (raw, per simulator point), references, extras, evictors and
 * timeline cells, the touch table, the level's configuration and mode, the run's interval and
 * length, and each block's CRC-32. It is read only under the identity it was written with
 * (view-cache.ts identityOf: the recording, the run, the Stride build, a CRC-32 of it) and
 * with every block's CRC-32 matching; anything else (a trace that did not end, an older build,
 * a damaged block) is as no state: the what-if replays the trace, as it always did. Derived,
 * never the only copy, never an error.
 */
import { endianness } from 'node:os'
import { brotliCompress, brotliCompressSync, brotliDecompressSync, constants, crc32, type BrotliOptions } from 'node:zlib'
import type { HierarchyConfig } from '../../shared/domain'
import { EXTRA_FIELDS, STAT_FIELDS } from '../simulate/hierarchy'
import { hasTable, type Db } from './open-db'
import { FIRST_LEVEL_STATE_TABLE, FIRST_LEVEL_STREAM_TABLE } from './optional-tables'
import { BUILD_IDENTITY } from '../build-identity'
import { identityOf } from './view-cache'

/** Typed arrays as this machine lays them out: a big-endian machine neither writes nor reads them. */
const usable = endianness() === 'LE'

/**
 * The state's layout, and its stream blocks': 3, a form byte (BLOCK_PLAIN, BLOCK_BROTLI) before
 * each block's bytes; 2's blocks were as encoded, 1's brotli's. Another is not read.
 */
const FORMAT = 3
const BLOCK_PLAIN = 0
const BLOCK_BROTLI = 1

/** The stream is kept while it is at most this large, or STREAM_RATIO times the trace's chunks. */
const STREAM_FLOOR = 64 << 20
const STREAM_RATIO = 4

/** No block decompresses past this (a block is one simulated batch's stream: a few MB). */
const MOST_BLOCK_BYTES = 256 << 20

/** A stored block's encoded stream (its form undone), or null when it is not one. */
export function blockBytes(stored: Uint8Array): Uint8Array | null {
  const body = stored.subarray(1)
  if (stored[0] === BLOCK_PLAIN) return body
  if (stored[0] !== BLOCK_BROTLI) return null
  try {
    return brotliDecompressSync(body, { maxOutputLength: MOST_BLOCK_BYTES })
  } catch {
    return null
  }
}

/** The state row of a session whose stream outgrew its budget (FirstLevelStreamWriter.decline). */
const DECLINED = '{"declined":true}'

/** Whether the session's first level was not kept because its stream outgrew the trace (what-ifs replay; none keeps it again). */
export function firstLevelDeclined(db: Db): boolean {
  if (!hasTable(db, 'first_level_state')) return false
  const row = db.prepare('SELECT format, header FROM first_level_state WHERE id = 1').get() as { format: unknown; header: unknown } | undefined
  return row?.format === FORMAT && row.header === DECLINED
}

/** Bytes of a block's start tried at brotli's quality 1 (~0.1 ms). */
const SAMPLE_BYTES = 16 << 10

/** Brotli's quality 1 for `bytes` bytes: a block's form is tried, and its block compressed, so. */
const quality1 = (bytes: number): BrotliOptions => ({ params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_SIZE_HINT]: bytes } })

/**
 * A block compressed only where its sample shrinks to at most half: where it does not, brotli
 * saves a third at most and costs as much again to undo at every what-if.
 */
export function blockForm(encoded: Uint8Array): typeof BLOCK_PLAIN | typeof BLOCK_BROTLI {
  const sample = encoded.subarray(0, SAMPLE_BYTES)
  if (sample.length < 256) return BLOCK_PLAIN
  const packed = brotliCompressSync(sample, quality1(sample.length))
  return packed.length * 2 <= sample.length ? BLOCK_BROTLI : BLOCK_PLAIN
}

/** A first level as a trace's first run left it (the arrays as the simulator keeps them). */
export interface FirstLevelState {
  /** The first level as simulated: its cache level, TLB levels and mode. */
  first: HierarchyConfig
  /** Accesses of the run; its timeline interval. */
  accesses: number
  interval: number
  /** Simulated per (point, data structure) touch (the touch table below), else per point. */
  byTouch: boolean
  /** Simulator points (touches or points). */
  points: number
  /** Per simulator point x first level (cache level, then TLB levels) x STAT_FIELDS, as kept (NativeHierarchy.firstLevelState). */
  raw: Float64Array
  refs: Float64Array
  /** Per first level x EXTRA_FIELDS. */
  extras: Float64Array
  /** Per first level, (evictee, evictor, count) triples of simulator points. */
  evictors: Float64Array[]
  /**
   * (level, group, interval, misses) rows at `interval`, each (interval, level, group) once, in
   * that order; a group is a point (`cellsByPoint`: a trace's live run keeps its timeline per
   * point) or the session's timeline variable (a replay's, session-simulation.ts timelineVariables).
   */
  cells: Float64Array
  cellsByPoint: boolean
  /** Per touch: its point and data structure (byTouch), else empty. */
  touchPoint: Float64Array
  touchVariable: Float64Array
}

interface Header {
  format: number
  first: HierarchyConfig
  accesses: number
  interval: number
  byTouch: boolean
  points: number
  evictors: number[]
  cells: number
  cellsByPoint: boolean
  touches: number
  blocks: number
  checksums: number[]
}

const bytesOf = (a: Float64Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

/**
 * The stream's blocks as the simulation hands them over, stored in order (after the first
 * block's clearing of an older stream; a compressed one after its brotli on Node's thread
 * pool), their CRC-32s kept for the state. `traceBytes`: the trace's chunks stored so far, the
 * stream's budget (STREAM_RATIO times them, or STREAM_FLOOR); past it the stream is dropped.
 */
export class FirstLevelStreamWriter {
  private readonly checksums: number[] = []
  private failed = !usable
  private pending: Promise<void> = Promise.resolve()
  private blocks = 0
  private bytes = 0

  constructor(
    private readonly db: Db,
    private readonly traceBytes: () => number,
    private readonly budget: { floor: number; ratio: number } = { floor: STREAM_FLOOR, ratio: STREAM_RATIO }
  ) {}

  block(encoded: Uint8Array): void {
    if (this.failed) return
    this.bytes += encoded.length
    if (this.bytes > Math.max(this.budget.floor, this.budget.ratio * this.traceBytes())) {
      this.decline()
      return
    }
    const seq = ++this.blocks
    const form = blockForm(encoded)
    const data =
      form === BLOCK_PLAIN
        ? Promise.resolve(Buffer.concat([Buffer.of(BLOCK_PLAIN), encoded]))
        : new Promise<Buffer | null>((resolve) => brotliCompress(encoded, quality1(encoded.length), (e, out) => resolve(e ? null : Buffer.concat([Buffer.of(BLOCK_BROTLI), out]))))
    this.after(async () => {
      const stored = await data
      if (this.failed) return
      try {
        if (!stored) throw new Error('brotli failed')
        if (seq === 1) clearKept(this.db)
        this.db.prepare('INSERT INTO first_level_stream (seq, data) VALUES (?, ?)').run(seq, stored)
        this.checksums.push(crc32(stored))
      } catch {
        // As without a stream: what-ifs replay the trace.
        this.failed = true
      }
    })
  }

  /**
   * The stream outgrew its budget: its blocks go, and the session says so (firstLevelDeclined),
   * so that no later what-if writes it again only to drop it.
   */
  private decline(): void {
    this.failed = true
    this.after(() => {
      clearKept(this.db)
      this.db.prepare("INSERT INTO first_level_state (id, format, run, identity, header, data) VALUES (1, ?, -1, '', ?, x'')").run(FORMAT, DECLINED)
    })
  }

  /** `step` once every write handed over before it is done (in the order of the calls); its failure is as no stream. */
  private after(step: () => void | Promise<void>): void {
    this.pending = this.pending.then(step).catch(() => {})
  }

  /** Once every block handed over is stored: their CRC-32s, in order; null when a block could not be kept. */
  async written(): Promise<number[] | null> {
    await this.pending
    return this.failed ? null : this.checksums
  }

  /** Removes the blocks (no state will vouch for them: the run was not stored from this stream), after any still being stored: `written` waits for it too. */
  drop(): void {
    this.failed = true
    this.after(() => {
      if (hasTable(this.db, 'first_level_stream')) clearKept(this.db)
    })
  }
}

/** No kept first level: the tables there, empty. */
function clearKept(db: Db): void {
  db.exec(`${FIRST_LEVEL_STREAM_TABLE}; ${FIRST_LEVEL_STATE_TABLE}; DELETE FROM first_level_stream; DELETE FROM first_level_state;`)
}

/**
 * Stores the state of `run`'s first level, whose stream blocks have `checksums` (inside the
 * writer's last steps: `recording` is the finished session's staticsIdentity). False, and
 * nothing kept, when the session cannot vouch for it.
 */
export function writeFirstLevelState(db: Db, run: number, state: FirstLevelState, checksums: readonly number[], recording: string | null): boolean {
  if (!usable || recording === null) return false
  const header: Header = {
    format: FORMAT,
    first: state.first,
    accesses: state.accesses,
    interval: state.interval,
    byTouch: state.byTouch,
    points: state.points,
    evictors: state.evictors.map((e) => e.length),
    cells: state.cells.length,
    cellsByPoint: state.cellsByPoint,
    touches: state.touchPoint.length,
    blocks: checksums.length,
    checksums: [...checksums]
  }
  const text = JSON.stringify(header)
  const data = Buffer.concat([state.raw, state.refs, state.extras, ...state.evictors, state.cells, state.touchPoint, state.touchVariable].map(bytesOf))
  const identity = identityOf(db, run, Buffer.concat([Buffer.from(text), data]), recording)
  if (identity === null) return false
  try {
    db.transaction(() => {
      db.exec(FIRST_LEVEL_STATE_TABLE)
      db.prepare('INSERT OR REPLACE INTO first_level_state (id, format, run, identity, header, data) VALUES (1, ?, ?, ?, ?, ?)').run(FORMAT, run, identity, text, data)
    })()
    return true
  } catch {
    return false
  }
}

/** A stored first level: its state, the run it belongs to, and its stream's blocks, each checked as it is read. */
export interface StoredFirstLevel {
  run: number
  state: FirstLevelState
  blocks: number
  /** Block `i` (0-based), read and checked; null when it is missing or damaged. */
  block(i: number): Uint8Array | null
}

const wholeNumbers = (a: Float64Array): boolean => a.every((x) => Number.isInteger(x) && x >= 0)

/**
 * The session's stored first level, or null (none, another build's, damaged: the caller
 * replays). `build`: the Stride build it must have been written by (this one; a test of the
 * built CLI's sessions from the sources names the CLI's).
 */
export function readFirstLevel(db: Db, build = BUILD_IDENTITY): StoredFirstLevel | null {
  if (!usable || !hasTable(db, 'first_level_state') || !hasTable(db, 'first_level_stream')) return null
  try {
    const row = db.prepare('SELECT format, run, identity, header, data FROM first_level_state WHERE id = 1').get() as { format: unknown; run: unknown; identity: unknown; header: unknown; data: unknown } | undefined
    if (!row || row.format !== FORMAT || typeof row.run !== 'number' || typeof row.identity !== 'string' || typeof row.header !== 'string' || !(row.data instanceof Uint8Array)) return null
    if (row.identity !== identityOf(db, row.run, Buffer.concat([Buffer.from(row.header), row.data]), undefined, build)) return null
    const h = JSON.parse(row.header) as Header
    const nFirst = 1 + (h.first.tlb?.length ?? 0)
    const lengths = [h.points * nFirst * STAT_FIELDS, h.points * 3, nFirst * EXTRA_FIELDS, ...h.evictors, h.cells, h.touches, h.touches]
    if (h.evictors.length !== nFirst || lengths.some((n) => !Number.isInteger(n) || n < 0) || h.checksums.length !== h.blocks) return null
    const all = new Float64Array(row.data.buffer.slice(row.data.byteOffset, row.data.byteOffset + row.data.byteLength) as ArrayBuffer)
    if (all.length !== lengths.reduce((a, n) => a + n, 0) || !wholeNumbers(all.subarray(0, lengths[0]! + lengths[1]! + lengths[2]!))) return null
    let at = 0
    const next = (n: number) => all.subarray(at, (at += n))
    const state: FirstLevelState = {
      first: h.first,
      accesses: h.accesses,
      interval: h.interval,
      byTouch: h.byTouch,
      points: h.points,
      raw: next(lengths[0]!),
      refs: next(lengths[1]!),
      extras: next(lengths[2]!),
      evictors: h.evictors.map((n) => next(n)),
      cells: next(h.cells),
      cellsByPoint: h.cellsByPoint === true,
      touchPoint: next(h.touches),
      touchVariable: next(h.touches)
    }
    const read = db.prepare('SELECT data FROM first_level_stream WHERE seq = ?')
    return {
      run: row.run,
      state,
      blocks: h.blocks,
      block(i) {
        const r = read.get(i + 1) as { data: unknown } | undefined
        return r && r.data instanceof Uint8Array && crc32(r.data) === h.checksums[i] ? blockBytes(r.data) : null
      }
    }
  } catch {
    return null
  }
}
