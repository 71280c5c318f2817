/**
 * `first_level_stream` and `first_level_state` (optional tables, no schema change): a trace's
 * first run's first cache level, kept so that a what-if which changes only the levels below it
 * (another L2 or LL) follows what left it instead of replaying the trace
 * (simulate/first-level-group.ts; session-analysis/stored-first-level.ts reads them back).
 *
 * The stream is written while the trace records, a block per simulated batch: the first level's
 * misses and write-backs in order (the core's encoding, NativeHierarchy.takeCaptured), as
 * encoded: brotli's quality 1 kept a third of it off (lz4's whole program: 13.1 to 8.6 MB) for
 * the same time again to compress at the trace and to decompress at every what-if (84 ms each),
 * where the what-if's follow itself takes ~90 ms. The state is written once the run is stored, at the trace's end: the first
 * level's and the TLB levels' counts (raw, per simulator point), references, extras, evictors and
 * timeline cells, the touch table, the level's configuration and mode, the run's interval and
 * length, and each block's CRC-32. It is read only under the identity it was written with
 * (view-cache.ts identityOf: the recording, the run, the Stride build, a CRC-32 of it) and
 * with every block's CRC-32 matching; anything else (a trace that did not end, an older build,
 * a damaged block) is as no state: the what-if replays the trace, as it always did. Derived,
 * never the only copy, never an error.
 */
import { endianness } from 'node:os'
import { crc32 } from 'node:zlib'
import type { HierarchyConfig } from '../../shared/domain'
import { EXTRA_FIELDS, STAT_FIELDS } from '../simulate/hierarchy'
import { hasTable, type Db } from './open-db'
import { FIRST_LEVEL_STATE_TABLE, FIRST_LEVEL_STREAM_TABLE } from './optional-tables'
import { BUILD_IDENTITY } from '../build-identity'
import { identityOf } from './view-cache'

/** Typed arrays as this machine lays them out: a big-endian machine neither writes nor reads them. */
const usable = endianness() === 'LE'

/** The state's layout (2: stream blocks as encoded; 1's were brotli's); another is not read. */
const FORMAT = 2

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
 * block's clearing of an older stream), their CRC-32s kept for the state.
 */
export class FirstLevelStreamWriter {
  private readonly checksums: number[] = []
  private failed = !usable
  private pending: Promise<void> = Promise.resolve()
  private blocks = 0

  constructor(private readonly db: Db) {}

  block(encoded: Uint8Array): void {
    if (this.failed) return
    const seq = ++this.blocks
    // Behind a drop() still pending, as the order of calls says.
    this.pending = this.pending.then(() => {
      if (this.failed) return
      try {
        if (seq === 1) this.db.exec(`${FIRST_LEVEL_STREAM_TABLE}; DELETE FROM first_level_stream; ${FIRST_LEVEL_STATE_TABLE}; DELETE FROM first_level_state;`)
        this.db.prepare('INSERT INTO first_level_stream (seq, data) VALUES (?, ?)').run(seq, encoded)
        this.checksums.push(crc32(encoded))
      } catch {
        // As without a stream: what-ifs replay the trace.
        this.failed = true
      }
    })
  }

  /** Once every block handed over is stored: their CRC-32s, in order; null when a block could not be kept. */
  async written(): Promise<number[] | null> {
    await this.pending
    return this.failed ? null : this.checksums
  }

  /** Removes the blocks (no state will vouch for them: the run was not stored from this stream), after any still being stored: `written` waits for it too. */
  drop(): void {
    this.failed = true
    this.pending = this.pending.then(() => {
      try {
        if (hasTable(this.db, 'first_level_stream')) this.db.exec('DELETE FROM first_level_stream; DELETE FROM first_level_state;')
      } catch {
        // Unread without a state.
      }
    })
  }
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
        return r && r.data instanceof Uint8Array && crc32(r.data) === h.checksums[i] ? r.data : null
      }
    }
  } catch {
    return null
  }
}
