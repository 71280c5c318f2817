/**
 * The point table's digest (`integrity.points`, v12 on): SHA-256 of each row's JSON text, as
 * JSON.stringify writes the row better-sqlite3 reads, and a newline, in index order. Sessions on
 * disk store it, so these bytes never change.
 *
 * Every open checks it. `pointsDigestIs` first hashes the text SQLite's json_array builds (no
 * JavaScript value per cell: half the time), and computes the reference only where that text
 * does not match. A match of SQLite's text is a match of the reference's, cell by cell (both
 * are JSON arrays of 13 cells, which parse one way):
 * - NULL is `null` in both;
 * - text: both escape `"`, `\` and the control characters alike and copy the rest, bytes that
 *   are not UTF-8 included, which read back as the reference reads them (U+FFFD; the
 *   separators are ASCII); points-digest.test.ts holds it;
 * - a number: SQLite writes an integer exactly and a REAL with the digits that parse back to
 *   it, so its text parses to the double the reference reads; equal to the reference's text
 *   of some double, it is that double's, which is the reference's text of this cell;
 * - a BLOB is not: json_array writes one that parses as JSONB as the JSON it holds (`{}`), the
 *   reference a Buffer's JSON. A table with one is left to the reference.
 * Where the writer's cells are whole numbers, text and NULL (always), the two texts are equal.
 */
import { createHash } from 'node:crypto'
import type { Db } from './open-db'

/** The point table's columns the digest covers, in this order (future columns are not covered). */
const DIGEST_POINT_COLUMNS = ['idx', 'pc', 'kind', 'accesses', 'first_address', 'ref_id', 'file', 'line', 'function', 'module', 'variable', 'source_expr', 'disasm']

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`

/** SHA-256 of the point table's rows in index order (the reference: what a trace stores). */
export function pointsDigest(db: Db): string {
  // Each row's JSON and a newline, hashed as one text: the same digest as row by row, in half
  // the time.
  const rows = db.prepare(`SELECT ${DIGEST_POINT_COLUMNS.join(', ')} FROM points ORDER BY idx`).raw(true).all() as unknown[][]
  let text = ''
  for (const row of rows) text += JSON.stringify(row) + '\n'
  return sha256(text)
}

/** Whether the point table's digest is `stored`. */
export function pointsDigestIs(db: Db, stored: string): boolean {
  return sqlitePointsDigest(db) === stored || pointsDigest(db) === stored
}

/** The digest of the rows as SQLite writes them as JSON; null where a cell is a BLOB. Exported for its test. */
export function sqlitePointsDigest(db: Db): string | null {
  const types = DIGEST_POINT_COLUMNS.map((c) => `typeof(${c})`).join(', ')
  if (db.prepare(`SELECT 1 FROM points WHERE 'blob' IN (${types}) LIMIT 1`).get() !== undefined) return null
  const rows = db.prepare(`SELECT json_array(${DIGEST_POINT_COLUMNS.join(', ')}) FROM points ORDER BY idx`).pluck().all()
  if (!rows.every((r) => typeof r === 'string')) return null
  return sha256(rows.length > 0 ? `${rows.join('\n')}\n` : '')
}
