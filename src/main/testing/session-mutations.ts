/**
 * Seeded damage to a session file (issue 51): its chunks, point table, meta and integrity
 * tables, schema, and raw SQLite pages. Shared by the in-process reader fuzz
 * (store/integrity-fuzz.test.ts) and the built CLI's fuzz (cli/mutation-cli.integration.test.ts),
 * so both draw the same kinds of damage from one seed.
 */
import { closeSync, copyFileSync, openSync, statSync, truncateSync, writeSync } from 'node:fs'
import { openDb, type Db } from '../store/open-db'

export type Mutation = (db: Db, random: () => number) => void
export type DamagedPart = 'chunks' | 'points' | 'meta' | 'pages'
export const DAMAGED_PARTS: readonly DamagedPart[] = ['chunks', 'points', 'meta', 'pages']

/** A copy of the session `source` at `path` with `sql` run on it (a crafted or damaged copy); `path`. */
export function copiedWith(source: string, path: string, sql: string): string {
  copyFileSync(source, path)
  const db = openDb(path)
  try {
    db.exec(sql)
  } finally {
    db.close()
  }
  return path
}

export const pick = <T,>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!

function flipBytes(data: Buffer, random: () => number): Buffer {
  const out = Buffer.from(data)
  for (let k = 1 + Math.floor(random() * 4); k > 0; k--) out[Math.floor(random() * out.length)]! ^= 1 << Math.floor(random() * 8)
  return out
}

/** Chunk mutations pick seq 0 or 1: the session needs two chunks at least. */
export const CHUNK_MUTATIONS: Mutation[] = [
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

export const POINT_MUTATIONS: Mutation[] = [
  (db, r) => db.prepare('UPDATE points SET kind = ? WHERE idx = ?').run(pick(r, [0, 1, 2, 3, 9, -1, 255]), Math.floor(r() * 5)),
  (db, r) => db.prepare('UPDATE points SET idx = idx + ? WHERE idx = 4').run(pick(r, [1, 5, 100])),
  (db, r) => db.prepare('UPDATE points SET pc = ? WHERE idx = ?').run(pick(r, [0, 0x401001, -5, 2 ** 60, 'x', 1.5]), Math.floor(r() * 5)),
  (db, r) => db.prepare('DELETE FROM points WHERE idx = ?').run(Math.floor(r() * 5)),
  // One point past the table's last: a point no chunk names.
  (db) => db.prepare('INSERT INTO points (idx, pc, kind) SELECT MAX(idx) + 1, 4198400, 0 FROM points').run(),
  (db, r) => db.prepare(`UPDATE points SET ${pick(r, ['accesses', 'first_address', 'line', 'file', 'function', 'variable'])} = ? WHERE idx = ?`).run(pick(r, [0, 7, 'main.c', null, 2.5]), Math.floor(r() * 5))
]

const META_KEYS = ['program', 'args', 'events', 'partial', 'stopReason', 'stopMessage', 'functions', 'storedBytes', 'createdAt', 'backend', 'hasDebugInfo']
const META_VALUES = ['{', 'null', '"x"', '-1', '1e400', '[]', '{"a":1}', '0', '1', 'true', '265144', '265145', '9007199254740993', '"Stride stopped before the trace ended (the recording was not finished)."']
export const META_MUTATIONS: Mutation[] = [
  (db, r) => db.prepare('UPDATE meta SET value = ? WHERE key = ?').run(pick(r, META_VALUES), pick(r, META_KEYS)),
  (db, r) => db.prepare('DELETE FROM meta WHERE key = ?').run(pick(r, META_KEYS)),
  (db, r) => db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(pick(r, ['threads', 'recorder', 'programExit', 'junk']), pick(r, META_VALUES)),
  (db, r) => db.prepare(`${pick(r, ['DELETE FROM integrity WHERE key = ?', "UPDATE integrity SET value = 'none' WHERE key = ?", "UPDATE integrity SET value = 'sha256:00' WHERE key = ?"])}`).run(pick(r, ['chunks', 'points', 'meta'])),
  (db, r) => db.exec(pick(r, ['CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM trace_chunks; END', 'CREATE VIEW v AS SELECT 1', 'ALTER TABLE points DROP COLUMN disasm', 'DROP TABLE loops', 'CREATE TABLE x (a)', 'PRAGMA user_version = 9']))
]

/** Raw damage to the file: bytes flipped or overwritten on its pages, a page zeroed, the file cut. */
export function damagePages(path: string, random: () => number): void {
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

/** One seeded mutation of the session at `path`, in place: which part was damaged. */
export function mutateSession(path: string, random: () => number): DamagedPart {
  const part = pick(random, DAMAGED_PARTS)
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
  return part
}

/** What a command's refusal of a damaged session says (one of these). */
export const DAMAGE_WORDS = /damaged|malformed|not a Stride session|not a session as Stride writes it|cannot read|cannot be read|unexpected value|newer Stride/
