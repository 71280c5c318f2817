/** The one read of the point table behind a simulation's kinds and variables and its roll-up's columns. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDb, type Db } from './open-db'
import { readPointColumns } from './point-columns'
import { migrate } from './schema'
import { SessionStatics } from './session-statics'

function session(): Db {
  const db = openDb(join(mkdtempSync(join(tmpdir(), 'stride-point-columns-')), 's.stride'), { create: true })
  migrate(db)
  const point = db.prepare('INSERT INTO points (idx, pc, kind, file, line, function, variable) VALUES (?,?,?,?,?,?,?)')
  // Inserted out of order: the columns are by point index whatever the rows' order.
  point.run(2, 0x401008, 2, null, null, null, null)
  point.run(0, 0x401000, 0, '/src/k.c', 10, 'foo', 'A')
  point.run(1, 0x401004, 1, '/src/k.c', 11, 'bar', 'B')
  db.prepare('INSERT INTO point_loops (point, loop) VALUES (1, 7)').run()
  return db
}

describe('point columns', () => {
  it('reads kinds and the fact columns by point index, loops joined', () => {
    const { kinds, facts } = readPointColumns(session())
    expect([...kinds]).toEqual([0, 1, 2])
    expect(facts).toEqual({ variable: ['A', 'B', null], function: ['foo', 'bar', null], file: ['/src/k.c', '/src/k.c', null], line: [10, 11, null], loop: [null, 7, null] })
  })

  it('names a point table with gaps as damage', () => {
    const db = session()
    db.prepare('DELETE FROM points WHERE idx = 1').run()
    expect(() => readPointColumns(db)).toThrow(/point table has gaps/)
  })

  it('feeds SessionStatics kinds, point variables and fact columns from one read', () => {
    const db = session()
    const statics = new SessionStatics()
    expect([...statics.kinds(db)]).toEqual([0, 1, 2])
    db.prepare("UPDATE points SET variable = 'Z'").run() // read once: later asks keep the first read
    expect(statics.pointVariables(db)).toEqual(['A', 'B', null])
    expect(statics.factColumns(db).variable).toBe(statics.pointVariables(db))
  })
})
