import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { allRows, allTuples, getRow, oneRow } from './rows'

function db() {
  const d = new Database(':memory:')
  d.exec("CREATE TABLE runs (run INTEGER, config TEXT, note TEXT, blob BLOB); INSERT INTO runs VALUES (1, '{}', NULL, x'0102'), (2, '{\"a\":1}', 'x', NULL)")
  return d
}

describe('checked rows', () => {
  it('returns rows typed from the shape, nullable columns as null', () => {
    const rows = allRows(db().prepare('SELECT run, config, note, blob FROM runs ORDER BY run'), { run: 'int', config: 'text', note: 'text?', blob: 'blob?' })
    expect(rows.map((r) => [r.run, r.config, r.note, r.blob === null ? null : [...r.blob]])).toEqual([
      [1, '{}', null, [1, 2]],
      [2, '{"a":1}', 'x', null]
    ])
  })

  it('names the table, the column, what was expected and what came', () => {
    const d = db()
    expect(() => allRows(d.prepare('SELECT run, config FROM runs'), { run: 'int', config: 'int' })).toThrow(
      'The session file has an unexpected value in runs.config (expected a whole number, found text "{}"); it may be damaged or written by another program.'
    )
    expect(() => allRows(d.prepare('SELECT run, note FROM runs'), { run: 'int', note: 'text' })).toThrow(/runs\.note \(expected text, found NULL\)/)
    expect(() => allRows(d.prepare('SELECT run FROM runs'), { run: 'int', config: 'text' })).toThrow(/runs\.config \(expected text, found no such column\)/)
    expect(() => getRow(d.prepare('SELECT 1.5 AS run FROM runs'), { run: 'int' })).toThrow(/expected a whole number, found number 1\.5/)
    try {
      allRows(d.prepare('SELECT config AS run FROM runs'), { run: 'number?' })
    } catch (e) {
      expect(e).toMatchObject({ code: 'malformed-session' })
    }
    expect.assertions(5)
  })

  it('getRow is undefined on no row; oneRow insists on one', () => {
    const d = db()
    expect(getRow(d.prepare('SELECT run FROM runs WHERE run = ?'), { run: 'int' }, 9)).toBeUndefined()
    expect(getRow(d.prepare('SELECT run FROM runs WHERE run = ?'), { run: 'int' }, 2)).toEqual({ run: 2 })
    expect(oneRow(d.prepare('SELECT MAX(run) AS run FROM runs'), { run: 'int?' })).toEqual({ run: 2 })
    expect(() => oneRow(d.prepare('SELECT run FROM runs WHERE run = 9'), { run: 'int' })).toThrow(/answered no row from runs/)
  })

  it('allTuples: rows as arrays in the columns\' order, each cell checked, the columns matched to the statement', () => {
    const d = db()
    const columns = [['run', 'int'], ['note', 'text?']] as const
    const rows = allTuples(d.prepare('SELECT run, note FROM runs ORDER BY run'), columns)
    expect(rows).toEqual([[1, null], [2, 'x']])
    const [run, note] = rows[1]!
    expect(run + 1).toBe(3)
    expect(note?.length).toBe(1)
    expect(() => allTuples(d.prepare('SELECT run, config FROM runs'), [['run', 'int'], ['config', 'number']])).toThrow(/runs\.config \(expected a number, found text "\{\}"\)/)
    expect(() => allTuples(d.prepare('SELECT note, run FROM runs'), columns)).toThrow(/do not match the statement's \[note, run\]/)
  })
})
