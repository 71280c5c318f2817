/**
 * Opens a SQLite database with better-sqlite3. Under Electron the module must be built for
 * Electron's ABI: scripts/electron-native.mjs rebuilds a copy and records its `.node` path in
 * `.electron-native/binding.json`, which we pass as `nativeBinding`. Under Node the package's
 * own build is used.
 */
import Database from 'better-sqlite3'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { projectRoot } from '../paths'

let electronBinding: string | undefined | null = null

function nativeBinding(): string | undefined {
  if (!process.versions.electron) return undefined
  if (electronBinding !== null) return electronBinding
  const file = join(projectRoot(), '.electron-native', 'binding.json')
  electronBinding = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { nativeBinding: string }).nativeBinding : undefined
  return electronBinding
}

export type Db = Database.Database

/** Whether the session has this table (older schemas lack some). */
export function hasTable(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?").get(name) !== undefined
}

/** A database image (`db.serialize()`) opened in memory: read and written without any file. */
export function openDbImage(image: Buffer): Db {
  const binding = nativeBinding()
  const db = new Database(image, binding ? { nativeBinding: binding } : {})
  db.pragma('busy_timeout = 10000')
  return db
}

/**
 * Folds the write-ahead log into the session file and empties it, so that the .stride file
 * alone holds everything (a user copies that one file). A writer calls it before it closes;
 * it completes only as far as no reader still needs the older pages, so a command that read
 * alongside a worker calls it again once its own readers are closed.
 */
export function foldLog(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)')
}

export function openDb(path: string, options: { readonly?: boolean; create?: boolean } = {}): Db {
  const binding = nativeBinding()
  const db = new Database(path, {
    readonly: options.readonly ?? false,
    fileMustExist: !(options.create ?? false),
    ...(binding ? { nativeBinding: binding } : {})
  })
  if (!options.readonly) {
    // WAL lets the UI read a session while a worker writes a simulation run into it.
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
  }
  db.pragma('busy_timeout = 10000')
  return db
}
