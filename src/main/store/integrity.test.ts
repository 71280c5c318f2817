/**
 * Sessions that cannot lie (issue 51): chunks exchanged or stripped of their checksums, a
 * shifted or out-of-range point table, a damaged event count, SQL of the session's own
 * (triggers, views, tables Stride does not write), FIFOs, and read-only opens that leave
 * side files. Each is one clean StrideError naming the damage, or no trace at all of the read.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { StrideError } from '../../shared/errors'
import { openDb, type Db } from './open-db'
import { iterateChunks, openSessionDb, readPointKinds, readPoints, readSessionInfo } from './session-reader'
import { writeFullChunks } from '../testing/stored-chunks'
import { readPointStreams } from './stream-store'
import { readVariables } from './variables'
import { MAX_STORED_CHUNK, SessionWriter, type PointRecord } from './session-writer'
import { UNFINISHED_MESSAGE } from './recording-state'

const dir = mkdtempSync(join(tmpdir(), 'stride-integrity-'))
let serial = 0

/** Full chunks of one point walking an array, each at its own base (equal lengths, other bytes). */
function basedChunks(path: string, chunks: number): string {
  const w = new SessionWriter(path, { program: '/bin/true', args: [], backend: 'valgrind', functions: [], createdAt: 'x' })
  const table: PointRecord[] = [{ idx: 0, pc: 0x401000, kind: 0, accesses: 0, firstAddress: 0 }]
  for (let c = 0; c < chunks; c++) {
    const n = MAX_STORED_CHUNK
    table[0]!.accesses += n
    w.appendChunk(n, new Uint32Array(n), Float64Array.from({ length: n }, (_, i) => 0x1000000 * (c + 1) + i * 8), new Uint16Array(n).fill(8), table)
  }
  w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
  return path
}

/** A finished three-chunk session, changed by `damage` as a user or a disk might. */
function session(damage: (db: Db) => void, chunks = 3, write = writeFullChunks): string {
  const path = write(join(dir, `s${serial++}.stride`), chunks)
  const db = openDb(path)
  damage(db)
  db.close()
  return path
}

/** Everything a command reads: info, points, kinds, the whole trace. */
function readEverything(path: string): string {
  const db = openSessionDb(path, { readonly: true })
  try {
    const info = readSessionInfo(db, path)
    const points = readPoints(db)
    const kinds = readPointKinds(db)
    let n = 0
    let sum = 0
    for (const c of iterateChunks(db, points.length)) {
      n += c.count
      for (let i = 0; i < c.count; i++) sum = (sum * 31 + c.addresses[i]!) % 1e12
    }
    return JSON.stringify({ events: info.events, points: points.map((p) => [p.index, p.pc, p.kind]), kinds: [...kinds], n, sum })
  } finally {
    db.close()
  }
}

function refusal(path: string): string {
  try {
    readEverything(path)
  } catch (e) {
    if (!(e instanceof StrideError)) throw e
    expect(e.message.split('\n')).toHaveLength(1)
    return e.message
  }
  throw new Error('a damaged session was read without an error')
}

const columns = (db: Db) => new Set((db.prepare("SELECT name FROM pragma_table_info('trace_chunks')").all() as Array<{ name: string }>).map((r) => r.name))

describe('chunks vouched for by their place', () => {
  it("two chunks' bytes and checksums exchanged are damage, not a reordered trace", () => {
    const path = session((db) => {
      const sums = ['crc32', 'checksum'].filter((c) => columns(db).has(c))
      const get = db.prepare(`SELECT length(data) AS len, data${sums.map((c) => `, ${c}`).join('')} FROM trace_chunks WHERE seq = ?`)
      const a = get.get(1) as Record<string, unknown>
      const b = get.get(2) as Record<string, unknown>
      expect(a.len).toBe(b.len)
      const set = db.prepare(`UPDATE trace_chunks SET data = ?${sums.map((c) => `, ${c} = ?`).join('')} WHERE seq = ?`)
      set.run(b.data, ...sums.map((c) => b[c]), 1)
      set.run(a.data, ...sums.map((c) => a[c]), 2)
    }, 3, basedChunks)
    expect(refusal(path)).toMatch(/is damaged at chunk 2 of 3 \(its checksum does not match its bytes and place in the trace\); re-trace the program, or keep the 1 intact chunk/)
  })

  it('a chunk stripped of its checksum is damage, so a flipped byte cannot decode silently', () => {
    const path = session((db) => {
      const sums = ['crc32', 'checksum'].filter((c) => columns(db).has(c))
      const row = db.prepare('SELECT data FROM trace_chunks WHERE seq = 1').get() as { data: Buffer }
      row.data[row.data.length - 5]! ^= 0x01
      db.prepare(`UPDATE trace_chunks SET data = ?${sums.map((c) => `, ${c} = NULL`).join('')} WHERE seq = 1`).run(row.data)
    })
    expect(refusal(path)).toMatch(/is damaged at chunk 2 of 3 \(it has no checksum\); re-trace the program, or keep the 1 intact chunk with "stride export SESSION --chunks 1"/)
  })
})

describe('chunk checks cannot be turned off', () => {
  it("an integrity table saying 'none' or 'crc32' for a session written with bound checksums is damage, not an unchecked session", () => {
    for (const mode of ['none', 'crc32']) expect(refusal(session((db) => db.prepare("UPDATE integrity SET value = ? WHERE key = 'chunks'").run(mode), 2))).toMatch(/is damaged \(its integrity table says its chunks carry (no checks|plain CRC-32s), though (its trace bound them|they do)\)/)
  })

  it("checks turned off and digests removed: chunks exchanged and stripped of their checksums are still damage", () => {
    const path = session((db) => {
      const [a, b] = db.prepare('SELECT data FROM trace_chunks ORDER BY seq').all() as Array<{ data: Buffer }>
      db.prepare('UPDATE trace_chunks SET data = ?, checksum = NULL WHERE seq = 0').run(b!.data)
      db.prepare('UPDATE trace_chunks SET data = ?, checksum = NULL WHERE seq = 1').run(a!.data)
      db.prepare("DELETE FROM integrity WHERE key IN ('points', 'meta')").run()
      db.prepare("UPDATE integrity SET value = 'none' WHERE key = 'chunks'").run()
    }, 2)
    expect(refusal(path)).toMatch(/is damaged \(its integrity table says its chunks carry no checks, though they do\)/)
  })
})

describe('the point table and meta checked', () => {
  it('a shifted points.idx is damage (export would attach pcs and kinds to the wrong points)', () => {
    const path = session((db) => {
      db.prepare('INSERT INTO points (idx, pc, kind) VALUES (1, 4198400, 1)').run()
      db.prepare('UPDATE points SET idx = idx + 10').run()
    }, 1)
    expect(refusal(path)).toMatch(/is damaged \(its point table was changed after the trace: its digest does not match\); re-trace the program\.$/)
  })

  it('an access kind out of range is damage, named', () => {
    for (const kind of [3, 9]) expect(refusal(session((db) => db.prepare('UPDATE points SET kind = ?').run(kind), 1))).toMatch(/is damaged \(its point table was changed after the trace/)
    // Without the digest (an unfinished recording's table), the values themselves are checked.
    const path = session((db) => {
      db.prepare('UPDATE points SET kind = 9').run()
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'integrity'").get()) db.prepare("DELETE FROM integrity WHERE key = 'points'").run()
      db.prepare("UPDATE meta SET value = ? WHERE key = 'stopMessage'").run(JSON.stringify('Stride stopped before the trace ended (the recording was not finished).'))
    }, 1)
    expect(refusal(path)).toMatch(/is damaged \(point 0 has access kind 9, not one of 0-2\)|is damaged \(its meta table was changed/)
  })

  it("without digests (an unfinished recording's), the point values are checked by the open itself, before any read", () => {
    const unfinished = (change: string) =>
      session((db) => {
        db.prepare(change).run()
        db.prepare("DELETE FROM integrity WHERE key IN ('points', 'meta')").run()
        db.prepare("UPDATE meta SET value = ? WHERE key = 'stopMessage'").run(JSON.stringify(UNFINISHED_MESSAGE))
      }, 1)
    const opening = (path: string) => {
      try {
        openSessionDb(path, { readonly: true }).close()
        return 'opened'
      } catch (e) {
        return (e as Error).message
      }
    }
    expect(opening(unfinished('UPDATE points SET kind = 3'))).toMatch(/is damaged \(point 0 has access kind 3, not one of 0-2\)/)
    expect(opening(unfinished('UPDATE points SET pc = -1'))).toMatch(/is damaged \(point 0 has program counter -1\)/)
    expect(opening(unfinished('UPDATE points SET pc = 1.5'))).toMatch(/unexpected value in points\.pc/)
    expect(opening(unfinished('UPDATE points SET idx = idx + 1'))).toMatch(/is damaged \(its point table skips or repeats indexes/)
    expect(opening(unfinished('UPDATE points SET pc = pc'))).toBe('opened')
  })

  it('the kinds read after the open are checked again: a table changed since is damage, named', () => {
    const path = session(() => {}, 1)
    const db = openSessionDb(path, { readonly: true })
    try {
      expect([...readPointKinds(db)]).toEqual([0])
      const other = openDb(path)
      other.prepare('UPDATE points SET kind = 9').run()
      other.close()
      expect(() => readPointKinds(db)).toThrow(/is damaged \(point 0 has access kind 9, not one of 0-2\)/)
    } finally {
      db.close()
    }
  })

  it('an event count that is not a number, or is missing, is damage (info would say 0 or 1 events)', () => {
    expect(refusal(session((db) => db.prepare("UPDATE meta SET value = '\"x\"' WHERE key = 'events'").run()))).toMatch(/is damaged \(its meta table was changed after the trace/)
    expect(refusal(session((db) => db.prepare("UPDATE meta SET value = 'true' WHERE key = 'events'").run()))).toMatch(/is damaged \(its meta table was changed after the trace/)
    expect(refusal(session((db) => db.prepare("DELETE FROM meta WHERE key = 'events'").run()))).toMatch(/is damaged \(its meta table was changed after the trace/)
  })

  it('the intact session reads back whole', () => {
    expect(JSON.parse(readEverything(session(() => {}))).n).toBe(3 * (1 << 18))
  })
})

describe('stored JSON no digest vouches for', () => {
  it("stream metrics, function statistics and a data structure's dimensions that are not JSON are damage, named (not a SyntaxError)", () => {
    const path = basedChunks(join(dir, `json-${serial++}.stride`), 1)
    const w = openDb(path)
    w.prepare('INSERT INTO point_streams (point, metrics) VALUES (0, ?)').run('{')
    w.prepare("INSERT INTO function_streams (function, stats) VALUES ('f', ?)").run('[1]')
    w.prepare("INSERT INTO variables (name, kind, dims) VALUES ('A', 'global', ?)").run('{"a":1}')
    w.close()
    const db = openSessionDb(path, { readonly: true })
    try {
      const damage = (read: () => unknown) => {
        try {
          read()
        } catch (e) {
          expect(e).toBeInstanceOf(StrideError)
          expect((e as StrideError).code).toBe('malformed-session')
          return (e as Error).message
        }
        throw new Error('read without a word')
      }
      expect(damage(() => readPoints(db))).toMatch(/unexpected value in point_streams\.metrics \(expected a JSON object, found text "\{"\)/)
      expect(damage(() => readPointStreams(db))).toMatch(/point_streams\.metrics/)
      expect(damage(() => readSessionInfo(db, path))).toMatch(/unexpected value in function_streams\.stats \(expected a JSON object, found text "\[1\]"\)/)
      expect(damage(() => readVariables(db))).toMatch(/unexpected value in variables\.dims \(expected a JSON array of whole numbers or NULL, found "\{"a":1\}"\)/)
    } finally {
      db.close()
    }
  })
})

describe('a session never runs SQL of its own', () => {
  it('a trigger that would delete the trace when a run is stored is refused before anything runs; nothing is deleted', () => {
    const path = session((db) => db.exec('CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM trace_chunks; END'))
    for (const readonly of [true, false]) {
      let message = ''
      try {
        const db = openSessionDb(path, { readonly })
        // As a simulation storing its run would.
        db.prepare("INSERT INTO runs (created_at, config, accesses) VALUES ('x', '{\"levels\":[]}', 0)").run()
        db.close()
      } catch (e) {
        expect(e).toBeInstanceOf(StrideError)
        message = (e as Error).message
      }
      expect(message).toMatch(/is not a session as Stride writes it \(it has a trigger "wipe"\): damaged or altered, it is not opened; re-trace the program\.$/)
    }
    const raw = openDb(path, { readonly: true })
    expect((raw.prepare('SELECT COUNT(*) AS n FROM trace_chunks').get() as { n: number }).n).toBe(3)
    raw.close()
  })

  it('views, tables and columns Stride does not write are refused; its optional tables are allowed', () => {
    const cases: Array<[string, RegExp]> = [
      ['CREATE VIEW v AS SELECT 1', /it has a view "v"/],
      ['CREATE TABLE extra (a)', /it has a table "extra"/],
      ['ALTER TABLE points DROP COLUMN disasm', /its table points does not have the columns/],
      ['DROP TABLE loops', /it has no table loops/],
      ['CREATE INDEX sneaky ON points(pc)', /it has an index "sneaky"/]
    ]
    for (const [sql, expected] of cases) expect(refusal(session((db) => db.exec(sql), 1))).toMatch(expected)
    readEverything(session((db) => db.exec(`CREATE TABLE IF NOT EXISTS shadow_counts (
  run INTEGER NOT NULL, level TEXT NOT NULL, format INTEGER NOT NULL,
  size REAL NOT NULL, assoc REAL NOT NULL, line_size REAL NOT NULL, events REAL NOT NULL, points INTEGER NOT NULL,
  set_count INTEGER NOT NULL, forgetful INTEGER NOT NULL, shadow BLOB NOT NULL, cold BLOB NOT NULL, sets BLOB,
  PRIMARY KEY (run, level))`), 1))
  })
})

describe('opening a session', () => {
  it('a FIFO is refused before it is opened (never a hang)', () => {
    const fifo = join(dir, 'fifo.stride')
    execFileSync('mkfifo', [fifo])
    expect(() => openSessionDb(fifo, { readonly: true })).toThrow(/fifo\.stride" is not a regular file \(a FIFO, socket or device\)/)
  })

  it('a read-only command leaves no -wal or -shm file beside the session', () => {
    const path = session(() => {}, 1)
    readEverything(path)
    expect(readdirSync(dir).filter((f) => f.startsWith(path.split('/').pop()!))).toEqual([path.split('/').pop()])
    expect(existsSync(`${path}-wal`)).toBe(false)
  })
})
