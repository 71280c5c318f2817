/**
 * Seeded mutations of a small real session (issue 51): its chunks, point table, meta table,
 * schema and raw SQLite pages, each read as the commands read it (info, the point table and
 * kinds, an export's records, the simulator's read-ahead). Every outcome is either the intact
 * session's output, or one line saying the session is damaged (no stack, no internal error);
 * never a different output, never a hang.
 */
import { copyFileSync, mkdtempSync, openSync, readFileSync, closeSync, writeSync, statSync, truncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { errorLine, MAX_ERROR_LINE } from '../cli/error-line'
import { checkPointValues } from './integrity'
import { openDb, type Db } from './open-db'
import { iterateChunks, iterateChunksAhead, openSessionDb, readPointKinds, readPoints, readRuns, readSessionInfo } from './session-reader'
import { MAX_STORED_CHUNK, SessionWriter, type PointRecord } from './session-writer'
import { rng } from '../testing/seeded-rng'

const dir = mkdtempSync(join(tmpdir(), 'stride-integrity-fuzz-'))
const CASES = 520


/** Two chunks (a full one and a short one) of five points: strides, a nest, random indexing. */
function baseSession(): string {
  const path = join(dir, 'base.stride')
  const w = new SessionWriter(path, { program: '/bin/kernel', args: ['-n', '3'], backend: 'valgrind', functions: ['kernel'], createdAt: '2026-01-01T00:00:00Z' })
  const random = rng(11)
  const n = MAX_STORED_CHUNK + 3000
  const table: PointRecord[] = [0, 1, 2, 3, 4].map((p) => ({ idx: p, pc: 0x401000 + p * 6, kind: p % 3, accesses: 0, firstAddress: 0 }))
  const points = new Uint32Array(n)
  const addresses = new Float64Array(n)
  const sizes = new Uint16Array(n)
  for (let i = 0; i < n; i++) {
    const p = i % 5
    points[i] = p
    table[p]!.accesses++
    addresses[i] = p === 0 ? 0x10000 + i * 8 : p === 1 ? 0x200000 + ((i >> 6) * 512 + (i & 63) * 8) : p === 2 ? 0x300000 + Math.floor(random() * 65536) * 8 : p === 3 ? 0x7ffd0000 : 0x500000 + (i % 977) * 16
    sizes[i] = p === 3 ? 4 : 8
  }
  w.appendChunk(n, points, addresses, sizes, table)
  w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
  return path
}

/** What the commands print of a session, as one digest: info, points, an export's records, the simulator's read. */
async function outputOf(path: string): Promise<string> {
  const db = openSessionDb(path, { readonly: true })
  try {
    const hash = createHash('sha256')
    const { path: _, ...info } = readSessionInfo(db, path)
    hash.update(JSON.stringify(info)).update(JSON.stringify(readRuns(db)))
    const points = readPoints(db)
    hash.update(JSON.stringify(points))
    const kinds = readPointKinds(db)
    const { pcs } = checkPointValues(db, path)
    // export: u64 pc, u64 address, u32 size, u32 kind per access.
    for (const c of iterateChunks(db, points.length)) {
      const rec = Buffer.alloc(c.count * 24)
      for (let i = 0; i < c.count; i++) {
        const p = c.points[i]!
        rec.writeBigUInt64LE(BigInt(pcs[p]!), i * 24)
        rec.writeBigUInt64LE(BigInt(c.addresses[i]!), i * 24 + 8)
        rec.writeUInt32LE(c.sizes[i]!, i * 24 + 16)
        rec.writeUInt32LE(kinds[p]!, i * 24 + 20)
      }
      hash.update(rec)
    }
    // simulate: kinds and the read-ahead into reused arrays.
    const sim = createHash('sha256')
    for await (const c of iterateChunksAhead(db, kinds.length, { reuse: true })) {
      sim.update(Buffer.from(c.points.buffer, c.points.byteOffset, c.count * 4))
      sim.update(Buffer.from(c.addresses.buffer, c.addresses.byteOffset, c.count * 8))
      sim.update(Buffer.from(c.sizes.buffer, c.sizes.byteOffset, c.count * 2))
    }
    return `${hash.digest('hex')}:${sim.digest('hex')}`
  } finally {
    db.close()
  }
}

type Mutation = (db: Db, random: () => number) => void
const pick = <T,>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!

function flipBytes(data: Buffer, random: () => number): Buffer {
  const out = Buffer.from(data)
  for (let k = 1 + Math.floor(random() * 4); k > 0; k--) out[Math.floor(random() * out.length)]! ^= 1 << Math.floor(random() * 8)
  return out
}

const CHUNK_MUTATIONS: Mutation[] = [
  (db, r) => {
    const seq = Math.floor(r() * 2)
    const row = db.prepare('SELECT data FROM trace_chunks WHERE seq = ?').get(seq) as { data: Buffer }
    db.prepare('UPDATE trace_chunks SET data = ? WHERE seq = ?').run(flipBytes(row.data, r), seq)
  },
  (db, r) => db.prepare(`UPDATE trace_chunks SET checksum = NULL${r() < 0.5 ? ', data = substr(data, 1, length(data) - 1)' : ''} WHERE seq = ?`).run(Math.floor(r() * 2)),
  (db) => {
    const [a, b] = db.prepare('SELECT data, checksum FROM trace_chunks ORDER BY seq').all() as Array<{ data: Buffer; checksum: number }>
    db.prepare('UPDATE trace_chunks SET data = ?, checksum = ? WHERE seq = 0').run(b!.data, b!.checksum)
    db.prepare('UPDATE trace_chunks SET data = ?, checksum = ? WHERE seq = 1').run(a!.data, a!.checksum)
  },
  (db, r) => db.prepare(`UPDATE trace_chunks SET ${pick(r, ['events', 'first_event', 'point_count', 'seq'])} = ? WHERE seq = ?`).run(pick(r, [0, 1, 2, 3000, 262144, 265144, -1, 2 ** 40]), Math.floor(r() * 2)),
  (db, r) => db.prepare('DELETE FROM trace_chunks WHERE seq = ?').run(Math.floor(r() * 2)),
  (db, r) => db.prepare('UPDATE trace_chunks SET codec = ? WHERE seq = ?').run(pick(r, ['prsd-sequitur-v3', 'delta-deflate-v1', 'x', '']), Math.floor(r() * 2)),
  (db, r) => db.prepare(`UPDATE trace_chunks SET ${pick(r, ['data', 'checksum', 'codec', 'events'])} = ? WHERE seq = ?`).run(pick(r, ['text', 1.5, Buffer.from([1, 2, 3])]), Math.floor(r() * 2))
]

const POINT_MUTATIONS: Mutation[] = [
  (db, r) => db.prepare('UPDATE points SET kind = ? WHERE idx = ?').run(pick(r, [0, 1, 2, 3, 9, -1, 255]), Math.floor(r() * 5)),
  (db, r) => db.prepare('UPDATE points SET idx = idx + ? WHERE idx = 4').run(pick(r, [1, 5, 100])),
  (db, r) => db.prepare('UPDATE points SET pc = ? WHERE idx = ?').run(pick(r, [0, 0x401001, -5, 2 ** 60, 'x', 1.5]), Math.floor(r() * 5)),
  (db, r) => db.prepare('DELETE FROM points WHERE idx = ?').run(Math.floor(r() * 5)),
  (db) => db.prepare('INSERT INTO points (idx, pc, kind) VALUES (5, 4198400, 0)').run(),
  (db, r) => db.prepare(`UPDATE points SET ${pick(r, ['accesses', 'first_address', 'line', 'file', 'function', 'variable'])} = ? WHERE idx = ?`).run(pick(r, [0, 7, 'main.c', null, 2.5]), Math.floor(r() * 5))
]

const META_KEYS = ['program', 'args', 'events', 'partial', 'stopReason', 'stopMessage', 'functions', 'storedBytes', 'createdAt', 'backend', 'hasDebugInfo']
const META_VALUES = ['{', 'null', '"x"', '-1', '1e400', '[]', '{"a":1}', '0', '1', 'true', '265144', '265145', '9007199254740993', '"Stride stopped before the trace ended (the recording was not finished)."']
const META_MUTATIONS: Mutation[] = [
  (db, r) => db.prepare('UPDATE meta SET value = ? WHERE key = ?').run(pick(r, META_VALUES), pick(r, META_KEYS)),
  (db, r) => db.prepare('DELETE FROM meta WHERE key = ?').run(pick(r, META_KEYS)),
  (db, r) => db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(pick(r, ['threads', 'recorder', 'programExit', 'junk']), pick(r, META_VALUES)),
  (db, r) => db.prepare(`${pick(r, ['DELETE FROM integrity WHERE key = ?', "UPDATE integrity SET value = 'none' WHERE key = ?", "UPDATE integrity SET value = 'sha256:00' WHERE key = ?"])}`).run(pick(r, ['chunks', 'points', 'meta'])),
  (db, r) => db.exec(pick(r, ['CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM trace_chunks; END', 'CREATE VIEW v AS SELECT 1', 'ALTER TABLE points DROP COLUMN disasm', 'DROP TABLE loops', 'CREATE TABLE x (a)', 'PRAGMA user_version = 9']))
]

/** Raw damage to the file: bytes flipped or overwritten on its pages, a page zeroed, the file cut. */
function damagePages(path: string, random: () => number): void {
  const size = statSync(path).size
  const kind = Math.floor(random() * 4)
  if (kind === 3) {
    truncateSync(path, Math.floor(random() * size))
    return
  }
  const fd = openSync(path, 'r+')
  try {
    if (kind === 0) {
      for (let k = 1 + Math.floor(random() * 6); k > 0; k--) {
        const at = Math.floor(random() * size)
        const b = Buffer.alloc(1)
        b[0] = Math.floor(random() * 256)
        writeSync(fd, b, 0, 1, at)
      }
    } else if (kind === 1) {
      const at = Math.floor(random() * size)
      writeSync(fd, Buffer.from(Array.from({ length: 64 }, () => Math.floor(random() * 256))), 0, 64, at)
    } else {
      const page = Math.floor(random() * Math.floor(size / 4096))
      writeSync(fd, Buffer.alloc(4096), 0, 4096, page * 4096)
    }
  } finally {
    closeSync(fd)
  }
}

describe('seeded mutations of a session: the same output or one line saying it is damaged', () => {
  const base = baseSession()

  it(`${CASES} mutations of chunks, points, meta, schema and pages`, async () => {
    const original = await outputOf(base)
    expect(readFileSync(base).length).toBeGreaterThan(4096)
    const random = rng(51)
    const outcomes = { refused: 0, same: 0 }
    const byPart: Record<string, number> = {}
    const started = Date.now()
    for (let k = 0; k < CASES; k++) {
      const path = join(dir, `case-${k % 8}.stride`)
      copyFileSync(base, path)
      const part = pick(random, ['chunks', 'points', 'meta', 'pages'] as const)
      if (part === 'pages') damagePages(path, random)
      else {
        const db = openDb(path)
        try {
          pick(random, part === 'chunks' ? CHUNK_MUTATIONS : part === 'points' ? POINT_MUTATIONS : META_MUTATIONS)(db, random)
        } catch {
          // A mutation the schema refuses (a constraint): the file stays as it was.
        } finally {
          db.close()
        }
      }
      const caseStarted = Date.now()
      let output: string | null = null
      try {
        output = await outputOf(path)
      } catch (e) {
        const { line } = errorLine('info', e, path)
        if (/internal error/.test(line)) throw new Error(`case ${k} (${part}): not a clean error: ${(e as Error).stack}`)
        expect(line.includes('\n'), `case ${k}: one line`).toBe(false)
        expect(line.length).toBeLessThanOrEqual(MAX_ERROR_LINE)
        expect(line, `case ${k} (${part}): says what is wrong`).toMatch(/damaged|malformed|not a Stride session|not a session as Stride writes it|cannot read|cannot be read|unexpected value|newer Stride/)
        outcomes.refused++
        byPart[part] = (byPart[part] ?? 0) + 1
      }
      expect(Date.now() - caseStarted, `case ${k} took too long`).toBeLessThan(3000)
      if (output !== null) {
        if (output !== original) throw new Error(`case ${k} (${part}): a damaged session read back as a different output`)
        outcomes.same++
      }
    }
    expect(outcomes.refused).toBeGreaterThan(CASES / 2)
    for (const part of ['chunks', 'points', 'meta', 'pages']) expect(byPart[part] ?? 0, part).toBeGreaterThan(20)
    expect(Date.now() - started).toBeLessThan(60_000)
  }, 120_000)
})
