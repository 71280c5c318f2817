/**
 * The point table's digest as SQLite writes the rows (json_array) against the reference
 * (JSON.stringify of the rows read, the bytes sessions on disk were hashed from): the same on
 * every cell a writer stores, and a changed table accepted only where the reference accepts it.
 */
import { describe, expect, it } from 'vitest'
import { openMemoryDb, type Db } from './open-db'
import { pointsDigest, pointsDigestIs, sqlitePointsDigest } from './points-digest'
import { migrate } from './schema'
import { rng } from '../testing/seeded-rng'

const ASCII = String.fromCharCode(...Array.from({ length: 128 }, (_, c) => c))

/** A point table as a trace writes it: whole numbers, text (every ASCII character, quotes, Unicode) and NULL. */
function table(): Db {
  const db = openMemoryDb()
  migrate(db)
  const insert = db.prepare('INSERT INTO points (idx, pc, kind, accesses, first_address, ref_id, file, line, function, module, variable, source_expr, disasm) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
  insert.run(0, 0x401000, 0, 2 ** 53, 0x7ffd_0000_1000, 'a_LOAD_5@main+0x10', '/src/é.c', 5, 'main', '/bin/x', null, ASCII, 'mov "rax", [rbx\\]')
  insert.run(1, 2 ** 53 - 1, 1, 0, null, null, null, null, null, null, 'v', '中文 😀 \u2028\u2029 \ufffd', '\ufffd')
  insert.run(2, 0, 2, 7, -1, 'x', '', 0, "'", '/', '<>&', '\\u0041', '\n\r\t\b\f\u007f')
  return db
}

describe("SQLite's text of the point table", () => {
  it("is the reference's for the cells a trace writes (so an intact session takes the short way)", () => {
    const db = table()
    expect(sqlitePointsDigest(db)).toBe(pointsDigest(db))
    expect(pointsDigestIs(db, pointsDigest(db))).toBe(true)
  })

  it('accepts a changed table only where the reference does', () => {
    const stored = pointsDigest(table())
    const changes: Array<{ sql: string; reference: boolean }> = [
      // JSONB for the cells' own values ('x', 5, null): json_array writes them as those, the reference as Buffers.
      { sql: "UPDATE points SET ref_id = X'1778' WHERE idx = 2", reference: false },
      { sql: "UPDATE points SET line = X'1335' WHERE idx = 0", reference: false },
      { sql: "UPDATE points SET variable = X'00' WHERE idx = 0", reference: false },
      { sql: "UPDATE points SET ref_id = 'abc' WHERE idx = 2", reference: false },
      { sql: 'UPDATE points SET line = 5.5 WHERE idx = 0', reference: false },
      { sql: "UPDATE points SET line = '5' || 'x' WHERE idx = 0", reference: false },
      { sql: 'UPDATE points SET first_address = 1e300 WHERE idx = 0', reference: false },
      // Read alike by the reference (bytes that are not UTF-8 read as U+FFFD; 2^53 + 1 as 2^53): accepted by both.
      { sql: "UPDATE points SET disasm = CAST(X'ff' AS TEXT) WHERE idx = 1", reference: true },
      { sql: 'UPDATE points SET accesses = 9007199254740993 WHERE idx = 0', reference: true },
      { sql: 'UPDATE points SET pc = pc WHERE idx = 0', reference: true }
    ]
    for (const { sql, reference } of changes) {
      const db = table()
      db.prepare(sql).run()
      expect(pointsDigest(db) === stored, sql).toBe(reference)
      expect(pointsDigestIs(db, stored), sql).toBe(reference)
    }
  })

  it('writes a REAL with the digits that parse back to it (a number equal in text is equal in value)', () => {
    const db = openMemoryDb()
    const json = db.prepare('SELECT json_array(?)').pluck()
    const random = rng(45)
    const bytes = new DataView(new ArrayBuffer(8))
    const values = [0.1, 1 / 3, 5.5, 1e20, 1e-7, 123456789012345680000, -0.5, Number.MIN_VALUE, Number.MAX_VALUE]
    while (values.length < 5000) {
      for (let i = 0; i < 8; i++) bytes.setUint8(i, Math.floor(random() * 256))
      const x = bytes.getFloat64(0)
      if (Number.isFinite(x)) values.push(x)
    }
    for (const x of values) expect((JSON.parse(json.get(x) as string) as number[])[0]).toBe(x)
  })
})
