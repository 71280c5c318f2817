import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { BatchInsert } from './batch-insert'

function table() {
  const db = new Database(':memory:')
  db.exec('CREATE TABLE t (idx INTEGER PRIMARY KEY, a TEXT, b INTEGER)')
  return db
}

describe('multi-row inserts', () => {
  it.each([0, 1, 63, 64, 65, 200])('store the same %i rows as one INSERT each', (n) => {
    const batched = table()
    const single = table()
    const rows = new BatchInsert(batched, 't', ['idx', 'a', 'b'])
    const insert = single.prepare('INSERT INTO t (idx, a, b) VALUES (?, ?, ?)')
    for (let i = 0; i < n; i++) {
      const row = [i * 3, i % 5 === 0 ? null : `r${i}`, i * i] as const
      rows.add(...row)
      insert.run(...row)
    }
    rows.finish()
    expect(batched.prepare('SELECT * FROM t ORDER BY idx').all()).toEqual(single.prepare('SELECT * FROM t ORDER BY idx').all())
  })

  it('with an upsert key: stored rows are rewritten in place, new ones inserted, nothing else touched', () => {
    const db = table()
    db.prepare("INSERT INTO t VALUES (1, 'old', 1), (2, 'old', 2), (500, 'kept', 5)").run()
    const rows = new BatchInsert(db, 't', ['idx', 'a', 'b'], 'idx')
    for (let i = 0; i < 100; i++) rows.add(i, `new${i}`, null)
    rows.finish()
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 101 })
    expect(db.prepare('SELECT * FROM t WHERE idx IN (1, 2, 99, 500) ORDER BY idx').all()).toEqual([
      { idx: 1, a: 'new1', b: null },
      { idx: 2, a: 'new2', b: null },
      { idx: 99, a: 'new99', b: null },
      { idx: 500, a: 'kept', b: 5 }
    ])
  })
})
