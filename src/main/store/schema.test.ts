import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDb } from './open-db'
import { migrate, SCHEMA_VERSION } from './schema'
import { openSessionDb } from './session-reader'

const dir = mkdtempSync(join(tmpdir(), 'stride-schema-'))

describe('session schema', () => {
  it('creates a new session at the current version', () => {
    const db = openDb(join(dir, 'new.stride'), { create: true })
    migrate(db)
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    db.close()
  })

  it('upgrades a v1 session when it is opened (in memory when read-only)', () => {
    const path = join(dir, 'v1.stride')
    const db = openDb(path, { create: true })
    // Exactly what v1 wrote (meta + the trace tables), nothing newer.
    db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE modules (id INTEGER PRIMARY KEY, path TEXT NOT NULL, base INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL);
      CREATE TABLE points (idx INTEGER PRIMARY KEY, pc INTEGER NOT NULL, kind INTEGER NOT NULL, accesses INTEGER NOT NULL DEFAULT 0, first_address INTEGER, ref_id TEXT, file TEXT, line INTEGER, function TEXT, module TEXT, variable TEXT);
      CREATE TABLE trace_chunks (seq INTEGER PRIMARY KEY, first_event INTEGER NOT NULL, events INTEGER NOT NULL, codec TEXT NOT NULL, data BLOB NOT NULL);
      CREATE TABLE runs (run INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL, config TEXT NOT NULL, accesses INTEGER NOT NULL);
      CREATE TABLE run_levels (run INTEGER NOT NULL, level INTEGER NOT NULL, name TEXT NOT NULL, reads INTEGER NOT NULL, writes INTEGER NOT NULL, read_misses INTEGER NOT NULL, write_misses INTEGER NOT NULL, PRIMARY KEY (run, level));
      CREATE TABLE run_points (run INTEGER NOT NULL, point INTEGER NOT NULL, level INTEGER NOT NULL, reads INTEGER NOT NULL, writes INTEGER NOT NULL, read_misses INTEGER NOT NULL, write_misses INTEGER NOT NULL, PRIMARY KEY (run, point, level));
      PRAGMA user_version = 1;`)
    db.close()
    const opened = openSessionDb(path, { readonly: true })
    expect(opened.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(opened.prepare("SELECT name FROM sqlite_master WHERE name = 'variables'").get()).toBeTruthy()
    opened.close()
  })

  it('refuses a session from a newer Stride, saying to update', () => {
    const path = join(dir, 'future.stride')
    const db = openDb(path, { create: true })
    migrate(db)
    db.pragma(`user_version = ${SCHEMA_VERSION + 5}`)
    db.close()
    expect(() => openSessionDb(path)).toThrow(/newer Stride .* update Stride/)
  })

  it('refuses files that are not sessions', () => {
    const path = join(dir, 'text.stride')
    writeFileSync(path, 'hello '.repeat(200))
    expect(() => openSessionDb(path)).toThrow(/not a Stride session/)
  })
})
