/** The statics cache: what it stores reads back value for value, and it is used only when valid. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { openDb, type Db } from './open-db'
import { pointColumnsOf, readPointColumns, type PointColumns } from './point-columns'
import { SessionStatics } from './session-statics'
import { SessionWriter, type PointNames, type PointRecord, type VariableRow } from './session-writer'
import { readStaticsCache, writeStaticsCache } from './statics-cache'
import { staticsIdentity } from './statics-identity'
import { readTouches, touchesOf, type Touches } from './touches'

const dir = mkdtempSync(join(tmpdir(), 'stride-statics-cache-'))
let files = 0
const META = { program: '/bin/true', args: [], backend: 'valgrind' as const, functions: [], createdAt: '2026-01-01T00:00:00Z' }
const FINISH = { partial: false, stopReason: 'completed' as const, stopMessage: null, hasDebugInfo: false, debugInfoHint: null }
const variable = (id: number, name: string): VariableRow => ({ id, name, kind: 'global', start: null, size: null, type: null, elementSize: null, dims: null, dimsFrom: null, module: null, allocSite: null, reads: 0, writes: 0 })
const name = (idx: number, n: Partial<PointNames>): PointNames => ({ idx, refId: `r${idx}`, file: null, line: null, function: null, module: null, variable: null, sourceExpr: null, disasm: null, ...n })

/** A finished session of four points, two data structures and a loop; `cache`: whether finish stores the statics cache. */
function session(cache: boolean): { path: string; columns: PointColumns; touches: Touches } {
  const path = join(dir, `s${files++}.stride`)
  const writer = new SessionWriter(path, META)
  const points: PointRecord[] = [0, 1, 2, 3].map((idx) => ({ idx, pc: 0x401000 + idx * 4, kind: idx % 3, accesses: 10, firstAddress: 0x1000 }))
  const names = [name(0, { file: '/src/k.c', line: 10, function: 'foo', variable: 'A' }), name(1, { file: '/src/ü.c', line: 0, function: 'bar', variable: 'B' }), name(3, { function: 'foo' })]
  const variables = [variable(1, 'A'), variable(2, 'B')]
  const histograms = new Map([[0, new Map([[1, 10]])], [1, new Map([[2, 6], [1, 4]])]])
  writer.writeVariables(variables, histograms)
  writer.writePoints(points, names, [])
  const pointLoops = new Map([[0, 0]])
  writer.writeLoops([{ function: 'foo', start: 1, end: 2, depth: 0, parent: -1, file: null, line: null }], pointLoops)
  const columns = pointColumnsOf(points, names, pointLoops)
  const touches = touchesOf(variables, histograms)
  writer.finish(FINISH, cache ? { columns, touches } : undefined)
  return { path, columns, touches }
}

const texts = fc.oneof(fc.constant(null), fc.constantFrom('A', 'B', '', 'über', 'heap 0x10', 'a"b\\c'), fc.string())
const statics = fc.integer({ min: 0, max: 40 }).chain((n) =>
  fc.record({
    kinds: fc.uint8Array({ minLength: n, maxLength: n, max: 2 }),
    variable: fc.array(texts, { minLength: n, maxLength: n }),
    function: fc.array(texts, { minLength: n, maxLength: n }),
    file: fc.array(texts, { minLength: n, maxLength: n }),
    line: fc.array(fc.option(fc.integer({ min: 0, max: 1 << 20 })), { minLength: n, maxLength: n }),
    loop: fc.array(fc.option(fc.integer({ min: 0, max: 99 })), { minLength: n, maxLength: n }),
    touched: fc.array(fc.tuple(fc.integer({ min: 0, max: Math.max(0, n - 1) }), fc.array(fc.tuple(fc.string(), fc.nat()), { minLength: 1, maxLength: 3 })), { maxLength: n })
  }).map((r) => ({
    columns: { kinds: r.kinds, facts: { variable: r.variable, function: r.function, file: r.file, line: r.line, loop: r.loop } },
    touches: n === 0 ? new Map() : new Map(r.touched.map(([p, list]) => [p, list.map(([v, a]) => ({ variable: v, accesses: a }))]))
  }))
)

function cacheDb(): Db {
  const { path } = session(false)
  return openDb(path)
}

describe('statics cache', () => {
  it('reads back what was written, value for value and in order (property)', () => {
    const db = cacheDb()
    fc.assert(
      fc.property(statics, ({ columns, touches }) => {
        writeStaticsCache(db, 'id', columns, touches)
        const cache = readStaticsCache(db, 'id')!
        expect(cache.columns()).toEqual(columns)
        expect(cache.simulator()).toEqual({ kinds: columns.kinds, variables: columns.facts.variable })
        const read = cache.touches()
        expect(read).toEqual(touches)
        expect([...read.keys()]).toEqual([...touches.keys()])
      }),
      { numRuns: 150 }
    )
    db.close()
  })

  it('is taken only under the identity it was written with', () => {
    const db = cacheDb()
    const { columns, touches } = session(false)
    writeStaticsCache(db, 'one', columns, touches)
    expect(readStaticsCache(db, 'one')).not.toBeNull()
    expect(readStaticsCache(db, 'two')).toBeNull()
    db.close()
  })

  it.each([
    ['a column of the wrong length', "UPDATE statics_cache SET line = zeroblob(8)"],
    ['a text outside the list', "UPDATE statics_cache SET texts = '[]'"],
    ['texts that are not JSON', "UPDATE statics_cache SET texts = 'nope'"],
    ['a touch of a point past the table', 'UPDATE statics_cache SET touch_point = x\'ff000000ff000000\', touch_variable = x\'0000000000000000\', touch_accesses = zeroblob(16)'],
    ['a point count that is not one', 'UPDATE statics_cache SET points = -1'],
    ["another layout (a later Stride's)", 'UPDATE statics_cache SET format = 3']
  ])('a cache with %s is ignored: the tables are read', (_, damage) => {
    const { path, columns, touches } = session(true)
    const db = openDb(path)
    const identity = staticsIdentity(db)!
    expect(readStaticsCache(db, identity)).not.toBeNull()
    db.exec(damage)
    expect(readStaticsCache(db, identity)).toBeNull()
    const statics = new SessionStatics()
    expect(statics.factColumns(db)).toEqual(columns.facts)
    expect(statics.touches(db)).toEqual(touches)
    db.close()
  })

  it('a kind changed in place (in range: only the contents check tells) is ignored: the tables are read', () => {
    const { path, columns } = session(true)
    const db = openDb(path)
    const identity = staticsIdentity(db)!
    const kinds = Buffer.from((db.prepare('SELECT kinds FROM statics_cache').get() as { kinds: Buffer }).kinds)
    // A read made a write: every what-if would count it so, and no error would say why.
    kinds[0] = kinds[0] === 0 ? 1 : 0
    db.prepare('UPDATE statics_cache SET kinds = ?').run(kinds)
    expect(readStaticsCache(db, identity)).toBeNull()
    expect(new SessionStatics().kinds(db)).toEqual(columns.kinds)
    db.close()
  })

  it("a recording's end stores its statics as the tables read them", () => {
    const { path } = session(true)
    const db = openDb(path, { readonly: true })
    const cache = readStaticsCache(db, staticsIdentity(db)!)!
    expect(cache.columns()).toEqual(readPointColumns(db))
    expect(cache.touches()).toEqual(readTouches(db))
    db.close()
  })

  it('SessionStatics takes them from the cache, when valid, instead of the tables', () => {
    const { path } = session(true)
    const db = openDb(path)
    // The tables changed in place, counts kept (what the identity cannot see): the cache still answers.
    db.exec("UPDATE points SET variable = 'Z', kind = 0")
    const statics = new SessionStatics()
    expect(statics.pointVariables(db)).toEqual(['A', 'B', null, null])
    expect([...statics.kinds(db)]).toEqual([0, 1, 2, 0])
    expect(statics.factColumns(db).variable).toBe(statics.pointVariables(db))
    // Another identity (a point more): the tables.
    db.exec("INSERT INTO points (idx, pc, kind, variable) VALUES (4, 0, 1, 'Y')")
    expect(new SessionStatics().pointVariables(db)).toEqual(['Z', 'Z', 'Z', 'Z', 'Y'])
    db.close()
  })

  it('an older session gets one from the statics read for a run (storeCache), once', () => {
    const { path, columns, touches } = session(false)
    const db = openDb(path)
    const identity = staticsIdentity(db)!
    const statics = new SessionStatics()
    statics.storeCache(db) // nothing read yet: nothing stored
    expect(readStaticsCache(db, identity)).toBeNull()
    statics.factColumns(db)
    statics.touches(db)
    statics.storeCache(db)
    const cache = readStaticsCache(db, identity)!
    expect(cache.columns()).toEqual(columns)
    expect(cache.touches()).toEqual(touches)
    db.close()
  })
})
