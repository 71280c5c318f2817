/**
 * `statics_cache`, an optional table: what a what-if and a report read of a finished
 * recording's point table and touches (SessionStatics' point columns and touches), stored once
 * as typed columns, with the recording's `staticsIdentity` they were taken from. Reading the tables
 * row by row took a what-if's worker 20-45 ms of a whole-program session (5,000+ points: some
 * 16,000 strings made and checked) before its first chunk; the cache is a few blobs and one
 * JSON array of the distinct texts.
 *
 * A cache is used only under the identity it was written with (same creation time, schema
 * version and static tables' sizes), and only when it holds together: anything else is ignored
 * and the tables are read, as for a session that has none (it is derived, never the only copy).
 * Written at a recording's end (session-writer.ts), and by a what-if into a session that has
 * none (older sessions), beside its run.
 *
 * Optional, so no schema version: a session without the table (older ones) reads its tables,
 * and a Stride from before it reads a session that has one (and ignores it). Its own layout is
 * versioned by CACHE_FORMAT: a cache of another format is ignored, and replaced by the next
 * what-if.
 */
import { endianness } from 'node:os'
import { crc32 } from 'node:zlib'
import type { PointColumns } from './point-columns'
import type { Touches } from './touches'
import { hasTable, type Db } from './open-db'
import { TextIndex } from '../text-index'
import { STATICS_CACHE_TABLE } from './optional-tables'

/** The simulator's inputs: each point's kind and data structure. */
export interface SimulatorColumns {
  kinds: Uint8Array
  variables: Array<string | null>
}

/** What the cache holds, as SessionStatics and the session writer hand it over. */
export interface CachedStatics {
  columns: PointColumns
  touches: Touches
}

/** A cache found valid: its parts made on first use. */
export interface StaticsCache {
  simulator(): SimulatorColumns
  columns(): PointColumns
  touches(): Touches
}

// Typed arrays are stored as this machine lays them out; a big-endian machine neither reads
// nor writes the cache (it reads the tables).
const usable = endianness() === 'LE'

/** The layout below; a cache of another is not read. 2: the identity carries a CRC-32 of the cache's contents. */
const CACHE_FORMAT = 2

/** Created by the first writer; one row. Blobs are little-endian typed arrays, texts a JSON array. */
const TABLE = STATICS_CACHE_TABLE

interface Row {
  format: number
  identity: string
  points: number
  texts: string
  kinds: Buffer
  variable: Buffer
  function: Buffer
  file: Buffer
  line: Buffer
  loop: Buffer
  touch_point: Buffer
  touch_variable: Buffer
  touch_accesses: Buffer
}

const bytes = (a: Uint8Array | Int32Array | Float64Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

/**
 * CRC-32 of a cache's texts and columns, kept after its identity: no digest vouches for this
 * table, and a damaged byte in its kinds would turn a read into a write in every what-if (a
 * wrong output, not an error). A cache that does not match is ignored, as any that does not
 * hold together.
 */
function contentsCheck(texts: string, blobs: unknown[]): string {
  let crc = crc32(texts)
  for (const b of blobs) crc = b instanceof Uint8Array ? crc32(b, crc) : crc32('-', crc)
  return crc.toString(16)
}

export function writeStaticsCache(db: Db, identity: string, columns: PointColumns, touches: Touches): void {
  if (!usable) return
  const index = new TextIndex()
  const text = (t: string | null): number => (t === null ? -1 : index.of(t))
  const { facts, kinds } = columns
  let entries = 0
  for (const list of touches.values()) entries += list.length
  const touchPoint = new Int32Array(entries)
  const touchVariable = new Int32Array(entries)
  const touchAccesses = new Float64Array(entries)
  let k = 0
  for (const [point, list] of touches)
    for (const t of list) {
      touchPoint[k] = point
      touchVariable[k] = text(t.variable)
      touchAccesses[k++] = t.accesses
    }
  const cells = (column: Array<string | null>) => bytes(Int32Array.from(column, text))
  const numbers = (column: Array<number | null>) => bytes(Float64Array.from(column, (v) => v ?? NaN))
  const [variable, fn, file] = [cells(facts.variable), cells(facts.function), cells(facts.file)]
  const texts = JSON.stringify(index.texts)
  // In the table's column order, as contentsCheck reads them back.
  const blobs = [bytes(kinds), variable, fn, file, numbers(facts.line), numbers(facts.loop), bytes(touchPoint), bytes(touchVariable), bytes(touchAccesses)]
  db.transaction(() => {
    db.exec(TABLE)
    db.prepare(
      'INSERT OR REPLACE INTO statics_cache (id, format, identity, points, texts, kinds, variable, function, file, line, loop, touch_point, touch_variable, touch_accesses) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
    ).run(CACHE_FORMAT, `${identity}#${contentsCheck(texts, blobs)}`, kinds.length, texts, ...blobs)
  })()
}

/** The session's cache, if it has one taken under `identity` that holds together; else null. */
export function readStaticsCache(db: Db, identity: string): StaticsCache | null {
  if (!usable || !hasTable(db, 'statics_cache')) return null
  const row = db.prepare('SELECT * FROM statics_cache WHERE id = 1').get() as Row | undefined
  if (!row || row.format !== CACHE_FORMAT || typeof row.texts !== 'string') return null
  const blobs = [row.kinds, row.variable, row.function, row.file, row.line, row.loop, row.touch_point, row.touch_variable, row.touch_accesses]
  if (row.identity !== `${identity}#${contentsCheck(row.texts, blobs)}`) return null
  try {
    return parts(row)
  } catch {
    return null
  }
}

/** A typed array over a copy of a blob (the blob's own bytes need not be aligned for it). */
function typed<T>(blob: unknown, make: (b: ArrayBuffer) => T, width: number, count: number): T {
  if (!(blob instanceof Uint8Array) || blob.byteLength !== width * count) throw new Error('statics cache: a column of the wrong size')
  return make(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength) as ArrayBuffer)
}

function parts(row: Row): StaticsCache {
  const n = row.points
  if (!Number.isInteger(n) || n < 0) throw new Error('statics cache: no point count')
  const texts: unknown = JSON.parse(row.texts)
  if (!Array.isArray(texts) || !texts.every((t) => typeof t === 'string')) throw new Error('statics cache: texts')
  const m = row.touch_point instanceof Uint8Array ? row.touch_point.byteLength / 4 : -1
  const kinds = typed(row.kinds, (b) => new Uint8Array(b), 1, n)
  const cellsOf = (blob: Buffer) => typed(blob, (b) => new Int32Array(b), 4, n)
  const variable = cellsOf(row.variable)
  const fn = cellsOf(row.function)
  const file = cellsOf(row.file)
  const line = typed(row.line, (b) => new Float64Array(b), 8, n)
  const loop = typed(row.loop, (b) => new Float64Array(b), 8, n)
  const touchPoint = typed(row.touch_point, (b) => new Int32Array(b), 4, m)
  const touchVariable = typed(row.touch_variable, (b) => new Int32Array(b), 4, m)
  const touchAccesses = typed(row.touch_accesses, (b) => new Float64Array(b), 8, m)
  for (const cells of [variable, fn, file]) for (const i of cells) if (i < -1 || i >= texts.length) throw new Error('statics cache: a text outside the list')
  for (const i of touchVariable) if (i < 0 || i >= texts.length) throw new Error('statics cache: a touch without its data structure')
  for (const p of touchPoint) if (p < 0 || p >= n) throw new Error('statics cache: a touch of no point')
  const column = (cells: Int32Array): Array<string | null> => Array.from(cells, (i) => (i === -1 ? null : (texts[i] as string)))
  const numbers = (cells: Float64Array): Array<number | null> => Array.from(cells, (v) => (Number.isNaN(v) ? null : v))
  let variables: Array<string | null> | null = null
  const variablesOnce = () => (variables ??= column(variable))
  return {
    simulator: () => ({ kinds, variables: variablesOnce() }),
    columns: () => ({ kinds, facts: { variable: variablesOnce(), function: column(fn), file: column(file), line: numbers(line), loop: numbers(loop) } }),
    touches: () => {
      const touches: Touches = new Map()
      for (let k = 0; k < touchPoint.length; k++) {
        const point = touchPoint[k]!
        let list = touches.get(point)
        if (!list) touches.set(point, (list = []))
        list.push({ variable: texts[touchVariable[k]!] as string, accesses: touchAccesses[k]! })
      }
      return touches
    }
  }
}
