/** The view cache: a view reads back only under the recording, run and build it was stored under, whole. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDb, type Db } from './open-db'
import { SessionWriter } from './session-writer'
import { readView, writeView, writeViews } from './view-cache'

const dir = mkdtempSync(join(tmpdir(), 'stride-view-cache-'))
let files = 0
const META = { program: '/bin/true', args: [], backend: 'valgrind' as const, functions: [], createdAt: '2026-01-01T00:00:00Z' }
const FINISH = { partial: false, stopReason: 'completed' as const, stopMessage: null, hasDebugInfo: false, debugInfoHint: null }
const VIEW = { run: 1, level: 'L1', items: [{ title: 'a "quoted" ü' }] }

function addRun(db: Db, createdAt = '2026-01-01T00:00:01Z'): number {
  return Number(db.prepare("INSERT INTO runs (created_at, config, accesses) VALUES (?, '{\"levels\":[]}', 0)").run(createdAt).lastInsertRowid)
}

/** A finished session with one run; `views`: what finish stores with it. */
function session(views: Array<{ key: string; value: unknown }> = []): string {
  const path = join(dir, `s${files++}.stride`)
  const writer = new SessionWriter(path, META)
  const run = addRun(writer.db)
  writer.finish(FINISH, undefined, views.map((v) => ({ run, view: 'advice', key: v.key, value: v.value })))
  return path
}

describe('view cache', () => {
  it('a view stored at the end of a recording reads back as it was', () => {
    const db = openDb(session([{ key: 'L1', value: VIEW }, { key: 'L2', value: [1, 2] }]))
    expect(readView(db, 1, 'advice', 'L1')).toEqual(VIEW)
    expect(readView(db, 1, 'advice', 'L2')).toEqual([1, 2])
    expect(readView(db, 1, 'advice', 'L3')).toBeNull()
    expect(readView(db, 1, 'objects-exact', 'L1')).toBeNull()
    expect(readView(db, 2, 'advice', 'L1')).toBeNull()
    db.close()
  })

  it('nothing is stored for an unfinished recording (nothing vouches for its tables)', () => {
    const path = join(dir, `s${files++}.stride`)
    const writer = new SessionWriter(path, META)
    const run = addRun(writer.db)
    expect(writeView(writer.db, run, 'advice', 'L1', VIEW)).toBe(false)
    expect(readView(writer.db, run, 'advice', 'L1')).toBeNull()
    writer.finish(FINISH)
  })

  it('a changed body, another build, another format or a missing table is as no view', () => {
    const db = openDb(session([{ key: 'L1', value: VIEW }]))
    const row = db.prepare("SELECT identity, body FROM view_cache WHERE key = 'L1'").get() as { identity: string; body: string }
    db.prepare("UPDATE view_cache SET body = ? WHERE key = 'L1'").run(row.body.replace('quoted', 'QUOTED'))
    expect(readView(db, 1, 'advice', 'L1')).toBeNull()
    db.prepare("UPDATE view_cache SET body = ?, identity = ? WHERE key = 'L1'").run(row.body, row.identity.replace('"source"', '"0123456789abcdef"'))
    expect(readView(db, 1, 'advice', 'L1')).toBeNull()
    db.prepare("UPDATE view_cache SET identity = ?, format = 2 WHERE key = 'L1'").run(row.identity)
    expect(readView(db, 1, 'advice', 'L1')).toBeNull()
    db.prepare("UPDATE view_cache SET format = 1 WHERE key = 'L1'").run()
    expect(readView(db, 1, 'advice', 'L1')).toEqual(VIEW)
    db.exec('DROP TABLE view_cache')
    expect(readView(db, 1, 'advice', 'L1')).toBeNull()
    expect(writeView(db, 1, 'advice', 'L1', VIEW)).toBe(false)
    db.close()
  })

  it("a run stored again under the same number is another run: the first one's view is not its view", () => {
    const db = openDb(session([{ key: 'L1', value: VIEW }]))
    db.exec('DELETE FROM runs')
    db.prepare("INSERT INTO runs (run, created_at, config, accesses) VALUES (1, '2026-01-02T00:00:00Z', '{\"levels\":[]}', 0)").run()
    expect(readView(db, 1, 'advice', 'L1')).toBeNull()
    db.close()
  })

  it('views written after the recording changed its static tables are not read under the new tables', () => {
    const db = openDb(session([{ key: 'L1', value: VIEW }]))
    db.prepare("INSERT INTO points (idx, pc, kind) VALUES (0, 4096, 0)").run()
    expect(readView(db, 1, 'advice', 'L1')).toBeNull()
    db.close()
  })

  it('writeViews stores all or none and never throws', () => {
    const db = openDb(session())
    writeViews(db, [{ run: 1, view: 'advice', key: 'L1', value: VIEW }, { run: 1, view: 'objects-exact', key: 'L1', value: [{ name: 'a', kind: 'heap', misses: 3 }] }])
    expect(readView(db, 1, 'objects-exact', 'L1')).toEqual([{ name: 'a', kind: 'heap', misses: 3 }])
    db.exec('DROP TABLE view_cache')
    expect(() => writeViews(db, [{ run: 1, view: 'advice', key: 'L1', value: VIEW }])).not.toThrow()
    db.close()
  })
})
