/** The one read of the point table behind a simulation's kinds and variables and its roll-up's columns. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDb, type Db } from './open-db'
import { pointColumnsOf, readPointColumns } from './point-columns'
import { SessionWriter, type PointNames, type PointRecord } from './session-writer'
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

  it('pointColumnsOf gives, value for value, what readPointColumns reads back after writePoints and writeLoops', () => {
    const writer = new SessionWriter(join(mkdtempSync(join(tmpdir(), 'stride-point-columns-')), 'w.stride'), { program: '/bin/true', args: [], backend: 'valgrind', functions: [], createdAt: 'x' })
    // Out of index order, one point unnamed, names with nulls, loops for some points only.
    const points: PointRecord[] = [3, 0, 2, 1, 4].map((idx) => ({ idx, pc: 0x401000 + idx * 4, kind: idx % 3, accesses: idx * 10, firstAddress: 0x1000 }))
    const name = (idx: number, n: Partial<PointNames>): PointNames => ({ idx, refId: `r${idx}`, file: null, line: null, function: null, module: null, variable: null, sourceExpr: null, disasm: null, ...n })
    const names = [name(0, { file: '/src/k.c', line: 10, function: 'foo', variable: 'A' }), name(2, { file: '/src/ü.c', line: 3, function: 'bar' }), name(3, { variable: '' }), name(4, { line: 0, function: 'main', variable: 'heap 0x10' })]
    writer.writePoints(points, names, [])
    const pointLoops = new Map([[0, 1], [4, 0]])
    writer.writeLoops([{ function: 'main', start: 1, end: 2, depth: 0, parent: -1, file: null, line: null }, { function: 'foo', start: 3, end: 4, depth: 1, parent: 0, file: null, line: null }], pointLoops)
    const read = readPointColumns(writer.db)
    expect(pointColumnsOf(points, names, pointLoops)).toEqual(read)
    expect(read.facts.loop).toEqual([1, null, null, null, 0]) // the fixture means something
    writer.discard()
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
