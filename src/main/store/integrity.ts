/**
 * What vouches for a session's contents (schema v12 on): each trace chunk's checksum bound to
 * its place in the trace, and digests of the point and meta tables written at a trace's end,
 * checked when the session is opened. A damaged part is one `malformed-session` error naming
 * it; a session never reads back as a different trace, point table or event count.
 */
import { createHash } from 'node:crypto'
import { crc32 } from 'node:zlib'
import { ACCESS_KINDS } from '../../shared/domain'
import { StrideError } from '../../shared/errors'
import type { Db } from './open-db'
import { pointsDigest, pointsDigestIs } from './points-digest'
import { UNFINISHED_MESSAGE } from './recording-state'
import { allRows, allTuples } from './rows'

/** What a session's chunks carry (`integrity.chunks`). */
export type ChunkChecks = 'bound' | 'crc32' | 'none'

/**
 * A chunk's checksum in sessions from v12 on: CRC-32 over a 32-byte header (sequence number,
 * first event, events, point count, each a little-endian float64), the codec's name (UTF-8)
 * and then the chunk's bytes. Two chunks' bytes and checksums exchanged, or a chunk moved,
 * no longer match.
 */
export function boundChecksum(seq: number, firstEvent: number, events: number, pointCount: number, codec: string, data: Uint8Array): number {
  const head = Buffer.alloc(32)
  head.writeDoubleLE(seq, 0)
  head.writeDoubleLE(firstEvent, 8)
  head.writeDoubleLE(events, 16)
  head.writeDoubleLE(pointCount, 24)
  return crc32(data, crc32(Buffer.from(codec, 'utf8'), crc32(head)))
}

/** SHA-256 of the meta table's keys and values in key order. */
export function metaDigest(db: Db): string {
  const hash = createHash('sha256')
  for (const r of allRows(db.prepare('SELECT key, value FROM meta ORDER BY key'), { key: 'text', value: 'text' })) hash.update(JSON.stringify([r.key, r.value])).update('\n')
  return `sha256:${hash.digest('hex')}`
}

/** Writes the digests of the point and meta tables (a trace's last write). */
export function writeDigests(db: Db): void {
  const set = db.prepare('INSERT OR REPLACE INTO integrity (key, value) VALUES (?, ?)')
  db.transaction(() => {
    set.run('points', pointsDigest(db))
    set.run('meta', metaDigest(db))
  })()
}

function sessionName(db: Db, path?: string): string {
  return path ?? (db.name && db.name !== ':memory:' && !db.memory ? db.name : 'the session')
}

/** "Session s.stride is damaged (why); fix." */
export function damaged(db: Db, why: string, fix = 're-trace the program', path?: string): StrideError {
  return new StrideError(`Session ${sessionName(db, path)} is damaged (${why}); ${fix}.`, 'malformed-session')
}

function hasIntegrityTable(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'integrity'").get() !== undefined
}

/** Which checks the session's chunks carry; sessions before v12 (opened raw) by their columns. */
export function chunkChecks(db: Db, path?: string): ChunkChecks {
  if (!hasIntegrityTable(db)) return 'crc32'
  const row = allRows(db.prepare("SELECT value FROM integrity WHERE key = 'chunks'"), { value: 'text' })[0]
  if (!row || !['bound', 'crc32', 'none'].includes(row.value)) throw damaged(db, 'its integrity table does not say how its chunks are checked', 're-trace the program', path)
  // The upgrade says 'none' only where no chunk carries a check (schema.ts, 11 -> 12): a chunk
  // that does is a session whose checks were turned off (a chunk stripped of its checksum would
  // then read unchecked). Only such rare sessions pay for this scan.
  if (row.value === 'none' && db.prepare('SELECT 1 FROM trace_chunks WHERE checksum IS NOT NULL OR crc32 IS NOT NULL OR point_count IS NOT NULL LIMIT 1').get() !== undefined)
    throw damaged(db, "its integrity table says its chunks carry no checks, though they do", 're-trace the program', path)
  return row.value as ChunkChecks
}

/** A meta value as stored (JSON text), or undefined. */
function metaText(db: Db, key: string): string | undefined {
  return allRows(db.prepare('SELECT value FROM meta WHERE key = ?'), { value: 'text' }, key)[0]?.value
}

/**
 * The checks of an opened session (after its upgrade): its stored digests against its tables,
 * its event count against its chunks, and its point table's values. Throws one
 * `malformed-session` error naming the damaged part.
 */
export function checkIntegrity(db: Db, path: string): void {
  const checks = chunkChecks(db, path)
  const digests = new Map(allRows(db.prepare("SELECT key, value FROM integrity WHERE key IN ('points', 'meta')"), { key: 'text', value: 'text' }).map((r) => [r.key, r.value]))
  const unfinished = metaText(db, 'stopMessage') === JSON.stringify(UNFINISHED_MESSAGE)
  // Digests are written only by a trace that binds its chunks' checksums (v12 on); an upgraded
  // older session has neither. Digests beside weaker chunk checks are checks turned down.
  if (checks !== 'bound' && digests.size > 0) throw damaged(db, `its integrity table says its chunks carry ${checks === 'crc32' ? 'plain CRC-32s' : 'no checks'}, though its trace bound them`, 're-trace the program', path)
  const meta = digests.get('meta')
  if (meta !== undefined && meta !== metaDigest(db)) throw damaged(db, 'its meta table was changed after the trace: its digest does not match', 're-trace the program', path)
  if (checks === 'bound' && !unfinished && meta === undefined) throw damaged(db, 'its meta table has no digest, though the trace finished', 're-trace the program', path)
  const points = digests.get('points')
  if (points !== undefined && !pointsDigestIs(db, points)) throw damaged(db, 'its point table was changed after the trace: its digest does not match', 're-trace the program', path)
  if (checks === 'bound' && !unfinished && points === undefined) throw damaged(db, 'its point table has no digest, though the trace finished', 're-trace the program', path)
  if (!pointValuesHold(db)) checkPointValues(db, path)
  // The event count: a whole number; in an unfinished session from v12 on (no digest vouches
  // for it, but each chunk commits with it) the chunks' sum. A finished one's total is checked
  // by the chunk reader, which names the chunk that is missing.
  const chunks = (db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(events), 0) AS e FROM trace_chunks').get() as { n: number; e: number })
  const text = metaText(db, 'events')
  if (text === undefined) {
    if (chunks.n > 0 || checks === 'bound') throw damaged(db, 'its meta table has no event count', 're-trace the program', path)
    return
  }
  const events = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(events)) throw damaged(db, `its event count "${text.length > 24 ? `${text.slice(0, 24)}…` : text}" is not a whole number`, 're-trace the program', path)
  if (checks === 'bound' && unfinished && events !== chunks.e) throw damaged(db, `its meta table says ${events} events, its chunks hold ${chunks.e}`, 're-trace the program', path)
}

/**
 * Whether the point table's values are as `checkPointValues` wants them, asked of SQLite (a
 * number per point instead of three): where they hold, it would pass; where not, it says why.
 */
export function pointValuesHold(db: Db): boolean {
  const indexes = db.prepare('SELECT idx FROM points ORDER BY idx').pluck().all()
  for (let i = 0; i < indexes.length; i++) if (indexes[i] !== i) return false
  const bad = db.prepare("SELECT 1 FROM points WHERE NOT (typeof(kind) = 'integer' AND kind BETWEEN 0 AND ? AND typeof(pc) = 'integer' AND pc BETWEEN 0 AND ?) LIMIT 1")
  return bad.get(ACCESS_KINDS.length - 1, Number.MAX_SAFE_INTEGER) === undefined
}

/**
 * The point table's values: indexes 0..n-1 in order, kinds Stride knows, program counters
 * whole non-negative numbers. Returns the kinds and program counters (by index).
 */
export function checkPointValues(db: Db, path?: string): { kinds: Uint8Array; pcs: Float64Array } {
  const rows = allTuples(db.prepare('SELECT idx, kind, pc FROM points ORDER BY idx'), [['idx', 'int'], ['kind', 'int'], ['pc', 'int']] as const)
  const kinds = new Uint8Array(rows.length)
  const pcs = new Float64Array(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const [idx, kind, pc] = rows[i]!
    if (idx !== i) throw damaged(db, `its point table skips or repeats indexes (point ${i} is numbered ${idx})`, 're-trace the program', path)
    if (kind < 0 || kind >= ACCESS_KINDS.length) throw damaged(db, `point ${i} has access kind ${kind}, not one of 0-${ACCESS_KINDS.length - 1}`, 're-trace the program', path)
    if (pc < 0) throw damaged(db, `point ${i} has program counter ${pc}`, 're-trace the program', path)
    kinds[i] = kind
    pcs[i] = pc
  }
  return { kinds, pcs }
}
