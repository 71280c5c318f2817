/**
 * What a session survives: Stride dying mid-trace, an existing file at --out, damaged or
 * crafted chunks, inconsistent metadata, old sessions opened read-only. Each case ends in a
 * readable session or one clean StrideError naming the problem, never a different trace.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { crc32 } from 'node:zlib'
import { StrideError } from '../../shared/api'
import { hierarchySchema } from '../../shared/schemas'
import { PrsdSequiturEncoder } from '../compress/prsd-codec'
import { openDb } from './open-db'
import { SCHEMA_VERSION } from './schema'
import { boundChecksum } from './integrity'
import { PRSD_CODEC_V4 } from '../compress/native-codec'
import { checkSessionOutput } from './session-output'
import { iterateChunks, openSessionDb, readRuns, readSessionInfo } from './session-reader'
import { MAX_STORED_CHUNK, SessionWriter, UNFINISHED_MESSAGE, type PointRecord } from './session-writer'

const dir = mkdtempSync(join(tmpdir(), 'stride-faults-'))
const META = { program: '/bin/true', args: [], backend: 'valgrind' as const, functions: [], createdAt: '2026-01-01T00:00:00Z' }
const FINISH = { partial: false, stopReason: 'completed' as const, stopMessage: null, hasDebugInfo: false, debugInfoHint: null }

/** A tracer's view: three points, strided addresses, batches of 64K. */
function record(writer: SessionWriter, events: number, base = 0x10000): PointRecord[] {
  const table: PointRecord[] = []
  const batch = 1 << 16
  const points = new Uint32Array(batch)
  const addresses = new Float64Array(batch)
  const sizes = new Uint16Array(batch).fill(8)
  for (let done = 0; done < events; ) {
    const n = Math.min(batch, events - done)
    for (let i = 0; i < n; i++) {
      const p = (done + i) % 3
      if (p >= table.length) table.push({ idx: p, pc: 0x401000 + p * 4, kind: p === 2 ? 1 : 0, accesses: 0, firstAddress: base })
      table[p]!.accesses++
      points[i] = p
      addresses[i] = base + p * 0x100000 + ((done + i) >> 0) * 8
    }
    writer.appendChunk(n, points, addresses, sizes, table)
    done += n
  }
  return table
}

function readAll(path: string): { count: number; sum: number } {
  const db = openSessionDb(path, { readonly: true })
  try {
    const points = (db.prepare('SELECT COUNT(*) AS n FROM points').get() as { n: number }).n
    let count = 0
    let sum = 0
    for (const c of iterateChunks(db, points)) {
      count += c.count
      for (let i = 0; i < c.count; i++) sum = (sum + c.addresses[i]! * (c.points[i]! + 1)) % 1e15
    }
    return { count, sum }
  } finally {
    db.close()
  }
}

function finished(path: string, events: number): void {
  const w = new SessionWriter(path, META)
  record(w, events)
  w.finish(FINISH)
}

describe('a recording Stride never finished (killed mid-trace)', () => {
  it('holds every committed chunk with its points, opens as partial with the reason, and reads back', () => {
    const path = join(dir, 'killed.stride')
    const w = new SessionWriter(path, META)
    record(w, MAX_STORED_CHUNK + 1000) // one chunk committed, 1000 accesses still gathered
    // No finish: the process "dies" here. Another reader sees what was committed.
    const db = openSessionDb(path, { readonly: true })
    const info = readSessionInfo(db, path)
    db.close()
    expect(info).toMatchObject({ partial: true, stopMessage: UNFINISHED_MESSAGE, events: MAX_STORED_CHUNK, points: 3 })
    expect(readAll(path).count).toBe(MAX_STORED_CHUNK)
    w.db.close()
  })
})

describe('--out never destroys a file', () => {
  it('refuses a file that is not a session, and the traced program, unless told', () => {
    const source = join(dir, 'victim.c')
    writeFileSync(source, 'int main(void) { return 0; }\n')
    expect(() => checkSessionOutput(source)).toThrow(/exists and is not a Stride session; choose another file, or pass --force/)
    expect(() => checkSessionOutput(source, { force: true })).not.toThrow()
    expect(() => checkSessionOutput(source, { force: true, program: source })).toThrow(/is the program being traced/)
    expect(() => checkSessionOutput(dir)).toThrow(/is a folder/)
    expect(readFileSync(source, 'utf8')).toContain('int main')
  })

  it('records beside an existing session and replaces it only when the new one is complete', () => {
    const path = join(dir, 'replace.stride')
    finished(path, 1000)
    expect(() => checkSessionOutput(path)).not.toThrow()
    const before = readAll(path)
    const w = new SessionWriter(path, META)
    expect(w.recordingPath).not.toBe(path)
    record(w, MAX_STORED_CHUNK + 5, 0x900000)
    expect(readAll(path)).toEqual(before) // the old session is intact while the new one records
    w.finish(FINISH)
    expect(readAll(path).count).toBe(MAX_STORED_CHUNK + 5)
    expect(existsSync(w.recordingPath)).toBe(false)
  })

  it('an empty recording beside a session is discarded without touching the session', () => {
    const path = join(dir, 'keep.stride')
    finished(path, 10)
    const w = new SessionWriter(path, META)
    w.discard()
    expect(readAll(path).count).toBe(10)
    expect(existsSync(w.recordingPath)).toBe(false)
  })
})

describe('damaged chunks are named, never read as another trace', () => {
  function damaged(name: string, damage: (db: ReturnType<typeof openDb>) => void): string {
    const path = join(dir, name)
    finished(path, 3 * MAX_STORED_CHUNK)
    const db = openDb(path)
    damage(db)
    db.close()
    try {
      readAll(path)
    } catch (e) {
      expect(e).toBeInstanceOf(StrideError)
      return (e as Error).message
    }
    throw new Error('read a damaged session without an error')
  }

  it('a flipped byte fails its checksum', () => {
    const msg = damaged('flip.stride', (db) => {
      const row = db.prepare('SELECT data FROM trace_chunks WHERE seq = 1').get() as { data: Buffer }
      row.data[row.data.length >> 1]! ^= 0x10
      db.prepare('UPDATE trace_chunks SET data = ? WHERE seq = 1').run(row.data)
    })
    expect(msg).toMatch(/is damaged at chunk 2 of 3 \(its checksum does not match its bytes and place in the trace\); re-trace the program, or keep the 1 intact chunk with "stride export SESSION --chunks 1"/)
  })

  it('a deleted chunk breaks the sequence', () => {
    expect(damaged('gap.stride', (db) => db.prepare('DELETE FROM trace_chunks WHERE seq = 1').run())).toMatch(/damaged at chunk 2 of 2 \(chunk 1 is missing\)/)
  })

  it('a duplicated chunk does not add up', () => {
    const msg = damaged('dup.stride', (db) =>
      db.prepare('INSERT INTO trace_chunks (seq, first_event, events, codec, data, checksum, point_count) SELECT 3, first_event + 3 * events - 2 * events, events, codec, data, checksum, point_count FROM trace_chunks WHERE seq = 2').run()
    )
    // Its checksum is bound to its place: a copy elsewhere does not match (v12 on).
    expect(msg).toMatch(/damaged at chunk 4 of 4 \(its checksum does not match its bytes and place in the trace\)/)
    const old = damaged('dup-old.stride', (db) => {
      // As a v9-v11 session stored it: a plain CRC-32 of the bytes, which a copy keeps.
      for (const r of db.prepare('SELECT seq, data FROM trace_chunks').all() as Array<{ seq: number; data: Buffer }>) db.prepare('UPDATE trace_chunks SET crc32 = ?, checksum = NULL WHERE seq = ?').run(crc32(r.data), r.seq)
      db.prepare("UPDATE integrity SET value = 'crc32' WHERE key = 'chunks'").run()
      db.prepare("DELETE FROM integrity WHERE key IN ('points', 'meta')").run() // an upgraded older session has none
      db.prepare('INSERT INTO trace_chunks (seq, first_event, events, codec, data, crc32, point_count) SELECT 3, first_event + 3 * events - 2 * events, events, codec, data, crc32, point_count FROM trace_chunks WHERE seq = 2').run()
    })
    expect(old).toMatch(/damaged at chunk 4 of 4 \(the session says 786432 events, its chunks hold 1048576\)/)
  })

  it('an address past 2^53 is refused when recorded, and is damage when read (never a silent rounding, nor a simulator that never ends)', () => {
    const path = join(dir, 'huge-address.stride')
    const w = new SessionWriter(path, META)
    const table: PointRecord[] = [{ idx: 0, pc: 0x401000, kind: 0, accesses: 2, firstAddress: 2 ** 59 }]
    w.appendChunk(2, new Uint32Array([0, 0]), new Float64Array([2 ** 59, 2 ** 59 + 4096]), new Uint16Array([8, 8]), table)
    expect(() => w.finish(FINISH)).toThrow(/not an integer in \[0, 2\^53\)/)
    w.db.close()
    // A chunk crafted with the reference encoder (which does not check) is read as damage.
    const crafted = join(dir, 'crafted-address.stride')
    finished(crafted, 10)
    const data = new PrsdSequiturEncoder(16).encode(10, new Uint32Array(10), Float64Array.from({ length: 10 }, (_, i) => 2 ** 59 + i * 8), new Uint16Array(10).fill(8), 3)
    const db = openDb(crafted)
    db.prepare('UPDATE trace_chunks SET data = ?, checksum = ? WHERE seq = 0').run(data, boundChecksum(0, 0, 10, 3, PRSD_CODEC_V4, data))
    db.close()
    expect(() => readAll(crafted)).toThrow(/damaged at chunk 1 of 1 \(.*2\^53/)
  })
})

describe('inconsistent metadata is a malformed session, said in one line', () => {
  function session(name: string, change: (db: ReturnType<typeof openDb>) => void): string {
    const path = join(dir, name)
    finished(path, 100)
    const db = openDb(path)
    change(db)
    db.close()
    return path
  }

  it('bad JSON in meta', () => {
    const path = session('meta.stride', (db) => db.prepare("UPDATE meta SET value = '{oops' WHERE key = 'program'").run())
    // A finished session's meta table has a digest: any change is damage, said on open.
    expect(() => openSessionDb(path, { readonly: true })).toThrow(/meta\.stride is damaged \(its meta table was changed after the trace/)
    // Read without the digest (as an unfinished or older session's), its values are checked one by one.
    const db = openDb(path, { readonly: true })
    expect(() => readSessionInfo(db, path)).toThrow(/malformed: its meta value "program" is not valid JSON/)
    db.close()
  })

  it('bad JSON in a run configuration', () => {
    const path = session('run.stride', (db) => db.prepare("INSERT INTO runs (created_at, config, accesses) VALUES ('x', '[1,', 0)").run())
    const db = openSessionDb(path, { readonly: true })
    expect(() => readRuns(db)).toThrow(/malformed: run 1's cache configuration is unreadable/)
    db.close()
  })

  it('a schema version set back', () => {
    const path = session('back.stride', (db) => db.pragma('user_version = 3'))
    expect(() => openSessionDb(path)).toThrow(/is not a session as Stride writes it \(its table trace_chunks does not have the columns of a v3 session\): damaged or altered/)
  })

  it('a database with only the meta table', () => {
    const path = join(dir, 'only-meta.stride')
    const db = openDb(path, { create: true })
    db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); PRAGMA user_version = ${SCHEMA_VERSION};`)
    db.close()
    expect(() => openSessionDb(path)).toThrow(/is a malformed session: it has no modules, points, trace_chunks, runs, run_levels, run_points tables/)
  })
})

describe('read-only opens', () => {
  it('an older session opened read-only is upgraded in memory, its file untouched', () => {
    const path = join(dir, 'old.stride')
    finished(path, 100)
    const db = openDb(path)
    db.exec('DROP TABLE view_cache; ALTER TABLE variables DROP COLUMN dims_from; ALTER TABLE trace_chunks DROP COLUMN threads; ALTER TABLE trace_chunks DROP COLUMN checksum; DROP TABLE integrity; ALTER TABLE trace_chunks DROP COLUMN crc32; ALTER TABLE trace_chunks DROP COLUMN point_count; DROP TABLE run_rollup; ALTER TABLE runs DROP COLUMN parent; ALTER TABLE runs DROP COLUMN label; DROP TABLE chunk_variables; DROP TABLE run_touches;')
    db.pragma('user_version = 7')
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.close()
    const bytes = readFileSync(path)
    const mtime = statSync(path).mtimeMs
    const opened = openSessionDb(path, { readonly: true })
    expect(opened.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(readSessionInfo(opened, path).events).toBe(100)
    opened.close()
    expect(readFileSync(path).equals(bytes)).toBe(true)
    expect(statSync(path).mtimeMs).toBe(mtime)
    expect(readAll(path).count).toBe(100) // old chunks have no checksum: read unchecked
    // Opened for writing, it is upgraded on disk.
    const copy = join(dir, 'old-copy.stride')
    copyFileSync(path, copy)
    openSessionDb(copy).close()
    const after = openDb(copy, { readonly: true })
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    after.close()
  })
})

describe('limits', () => {
  it('refuses caches and TLBs no machine has, with a reason', () => {
    const big = hierarchySchema.safeParse({ levels: [{ name: 'L1', size: 16 * 2 ** 30, assoc: 8, lineSize: 64 }] })
    expect(big.success).toBe(false)
    expect(JSON.stringify(big.error?.issues)).toMatch(/at most 512 MiB/)
    const tlb = hierarchySchema.safeParse({ levels: [{ name: 'L1', size: 32768, assoc: 8, lineSize: 64 }], tlb: [{ name: 'T', entries: 1 << 20, assoc: 4, pageSize: 4096 }] })
    expect(JSON.stringify(tlb.error?.issues)).toMatch(/at most 65,536 entries/)
  })
})
