/**
 * Each access's data structure, stored beside its trace chunk (`chunk_variables`, schema v13):
 * the correlator's variable id (`variables.id`; 0 is unknown) for every access, as the trace
 * attributed it. The simulator counts misses per data structure by it (simulate/
 * touch-hierarchy.ts), so every run of the session, the first and each what-if, has the same
 * exact per-structure figures.
 *
 * Format 1: a point mostly touches one data structure access after access, so only the
 * accesses whose structure differs from their point's previous access in the chunk are kept
 * (a point's first access in the chunk always is): varint pairs (accesses skipped since the
 * last kept one, variable id), then brotli. A chunk decodes on its own, with its points.
 */
import { UNFINISHED_MESSAGE } from './recording-state'
import { brotliCompress, brotliCompressSync, brotliDecompressSync, constants, crc32, type BrotliOptions } from 'node:zlib'
import type { Statement } from 'better-sqlite3'
import { StrideError } from '../../shared/errors'
import type { Db } from './open-db'
import { nativeCore } from '../native/core'
import type { DecodedChunk } from './chunk-codec'

export const CHUNK_VARIABLES_FORMAT = 1

type ColumnExports = {
  columnEncode: (points: Uint32Array, variables: Int32Array, count: number, pointCount: number) => Uint8Array
  columnDecode: (body: Uint8Array, points: Uint32Array, count: number, pointCount: number, variableBound: number, out: Int32Array) => void
}

function columnExports(): ColumnExports {
  const core = nativeCore() as unknown as Partial<ColumnExports>
  if (typeof core.columnEncode !== 'function' || typeof core.columnDecode !== 'function')
    throw new StrideError('Stride\'s native core predates the data-structure column: run "npm install" (or "node scripts/build-native.mjs") to rebuild it.', 'tool-missing')
  return core as ColumnExports
}

const columnBrotli = (body: Uint8Array): BrotliOptions => ({ params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })

/** The chunk's column as stored (format CHUNK_VARIABLES_FORMAT): the changes, in the native core, then brotli. */
export function encodeChunkVariables(count: number, points: Uint32Array, variables: Int32Array, pointCount: number): Buffer {
  const body = columnExports().columnEncode(points, variables, count, pointCount)
  return brotliCompressSync(body, columnBrotli(body))
}

/**
 * encodeChunkVariables with its brotli on Node's thread pool (the same bytes): the arrays are
 * read before it returns, so they may be reused at once. On a heap-heavy program's trace the
 * column's brotli was 0.2 s of the trace worker's thread, which reads the records.
 */
export function encodeChunkVariablesAsync(count: number, points: Uint32Array, variables: Int32Array, pointCount: number): Promise<Buffer> {
  const body = columnExports().columnEncode(points, variables, count, pointCount)
  return new Promise((resolve, reject) => brotliCompress(body, columnBrotli(body), (e, out) => (e ? reject(e) : resolve(out))))
}

/**
 * The column back, into `into` (grown when short): every access's variable id. `variableCount`
 * bounds the ids (the session's data structures); anything else is damage, said in one line.
 */
export function decodeChunkVariables(data: Uint8Array, count: number, points: Uint32Array, pointCount: number, variableCount: number, into?: Int32Array): Int32Array {
  const bad = (why: string) => new StrideError(`The session's data-structure column is damaged (${why}); re-trace the program, or simulate without per-structure figures.`, 'malformed-session')
  let body: Buffer
  try {
    body = brotliDecompressSync(data, { maxOutputLength: count * 20 + 64 })
  } catch {
    throw bad('it does not decompress')
  }
  const out = into && into.length >= count ? into : new Int32Array(count)
  try {
    columnExports().columnDecode(body, points, count, pointCount, variableCount, out)
  } catch (e) {
    throw bad((e as Error).message)
  }
  return out
}

/** The row's checksum: CRC-32 over the chunk's sequence number (little-endian uint32) and the bytes. */
export function chunkVariablesChecksum(seq: number, data: Uint8Array): number {
  const head = Buffer.alloc(4)
  head.writeUInt32LE(seq)
  return crc32(data, crc32(head))
}

/**
 * The stored column of a session whose every chunk has one (null otherwise: a session from
 * before v13, a Lackey or Frida trace, a chunk stored without it), read chunk by chunk in order.
 */
export class StoredChunkVariables {
  private readonly row: Statement
  private buffer: Int32Array = new Int32Array(0)
  /** The stored chunk whose column `buffer` holds (-1: none). */
  private decoded = -1

  private constructor(
    db: Db,
    /** Ids at or above it are damage (the session's data structures; Infinity before they are stored). */
    private readonly variableBound: number
  ) {
    this.row = db.prepare('SELECT format, data, checksum FROM chunk_variables WHERE seq = ?')
  }

  static open(db: Db, variableBound = Number.POSITIVE_INFINITY): StoredChunkVariables | null {
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chunk_variables'").get()
    if (!has) return null
    // A trace killed before its end (SIGKILL mid-trace: a partial session) stored columns of ids
    // its data structures, named at the end, never got: its runs count by point, as a session
    // without columns.
    const stop = db.prepare("SELECT value FROM meta WHERE key = 'stopMessage'").pluck().get()
    if (stop === JSON.stringify(UNFINISHED_MESSAGE)) return null
    const { chunks } = db.prepare('SELECT COUNT(*) AS chunks FROM trace_chunks').get() as { chunks: number }
    const { columns } = db.prepare('SELECT COUNT(*) AS columns FROM chunk_variables').get() as { columns: number }
    return chunks > 0 && columns === chunks ? new StoredChunkVariables(db, variableBound) : null
  }

  /** The column of a chunk the session reader yielded (a slice of a stored chunk): valid until a slice of another stored chunk is read. */
  read(chunk: DecodedChunk, pointCount: number): Int32Array {
    const s = chunk.stored
    if (!s) throw new Error('internal: a chunk not read from the session has no stored column')
    if (this.decoded !== s.seq) this.decode(s.seq, s.count, s.points, pointCount)
    return this.buffer.subarray(s.at, s.at + chunk.count)
  }

  private decode(seq: number, count: number, points: Uint32Array, pointCount: number): void {
    this.decoded = -1
    const r = this.row.get(seq) as { format: unknown; data: unknown; checksum: unknown } | undefined
    const where = `chunk ${seq}`
    if (!r || !(r.data instanceof Uint8Array)) throw new StrideError(`The session's data-structure column is damaged (${where} has none); re-trace the program.`, 'malformed-session')
    if (r.format !== CHUNK_VARIABLES_FORMAT) throw new StrideError(`The data-structure column of ${where} has format ${String(r.format).slice(0, 20)}, which this Stride cannot read; update Stride.`, 'malformed-session')
    if (chunkVariablesChecksum(seq, r.data) !== r.checksum) throw new StrideError(`The session's data-structure column is damaged (${where}'s checksum does not match); re-trace the program.`, 'malformed-session')
    this.buffer = decodeChunkVariables(r.data, count, points, pointCount, this.variableBound, this.buffer)
    this.decoded = seq
  }
}
