/**
 * Opens a SQLite database with better-sqlite3. Under Electron the module must be built for
 * Electron's ABI: scripts/electron-native.mjs rebuilds a copy and records its `.node` path in
 * `.electron-native/binding.json`, which we pass as `nativeBinding`. Under Node the package's
 * own build is used, also named here: left to find it, better-sqlite3 asks the `bindings`
 * package, whose search (a require per candidate folder) took 58 ms of each thread's first
 * open, on the way to every trace's start.
 */
import Database from 'better-sqlite3'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { projectRoot } from '../paths'

let binding: string | undefined | null = null

function nativeBinding(): string | undefined {
  if (binding !== null) return binding
  if (process.versions.electron) {
    const file = join(projectRoot(), '.electron-native', 'binding.json')
    binding = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { nativeBinding: string }).nativeBinding : undefined
  } else {
    let built: string | undefined
    try {
      const pkg = createRequire(join(projectRoot(), 'package.json')).resolve('better-sqlite3/package.json')
      built = join(dirname(pkg), 'build', 'Release', 'better_sqlite3.node')
    } catch {
      built = undefined
    }
    // Built elsewhere (a Debug build, say): the package's own search finds it.
    binding = built && existsSync(built) ? built : undefined
  }
  return binding
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
  distrustSchema(db)
  db.pragma('busy_timeout = 10000')
  return db
}

/**
 * A session file is user input: its schema's own SQL (defaults, CHECKs, indexes on
 * expressions) may call only innocuous functions, never one with side effects. Triggers and
 * views are refused before any of it runs (schema.ts, assertSession).
 */
function distrustSchema(db: Db): void {
  db.pragma('trusted_schema = OFF')
}

/** An empty database in memory (the reference schema a session's is compared with). */
export function openMemoryDb(): Db {
  const binding = nativeBinding()
  return new Database(':memory:', binding ? { nativeBinding: binding } : {})
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

/**
 * `queryOnly`: opened to read without being readonly to SQLite (`PRAGMA query_only`), so that
 * as the last connection it removes the -wal and -shm files a read-only connection leaves
 * beside the session. For a session with no -wal file (nothing to fold into it): the file
 * itself is never written.
 */
export function openDb(path: string, options: { readonly?: boolean; create?: boolean; queryOnly?: boolean } = {}): Db {
  const binding = nativeBinding()
  const db = new Database(path, {
    readonly: options.readonly ?? false,
    fileMustExist: !(options.create ?? false),
    ...(binding ? { nativeBinding: binding } : {})
  })
  distrustSchema(db)
  if (options.queryOnly) db.pragma('query_only = ON')
  else if (!options.readonly) {
    // WAL lets the UI read a session while a worker writes a simulation run into it.
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
  }
  db.pragma('busy_timeout = 10000')
  return db
}
