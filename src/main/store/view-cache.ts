/**
 * `view_cache` (schema v16): what a session shows on opening, derived once at the trace's end
 * from its first run (the advisor's diagnosis, the exact data-structure ranking) instead of on
 * every open (each rebuilt the run's report: 0.2-0.3 s of a whole-program session's 0.5 s).
 *
 * A view is read back only under the identity it was written with: the recording's
 * (staticsIdentity: creation time, schema version, static tables' sizes), the run's (its
 * creation time and configuration), the Stride build that derived it (another build may
 * diagnose or rank differently), and a CRC-32 of its text. Anything else (an older build, a
 * damaged row, a session without the table) is ignored and the view computed from the tables,
 * as it always was: the cache is derived, never the only copy, and never an error.
 */
import { crc32 } from 'node:zlib'
import { BUILD_IDENTITY } from '../build-identity'
import type { Db } from './open-db'
import { hasTable } from './open-db'
import { getRow } from './rows'
import { staticsIdentity } from './statics-identity'

/** The views stored: the advisor's diagnosis of a level, a level's exact ranking of data structures. */
export type ViewName = 'advice' | 'objects-exact'

/** A view as derived, for writeViews. */
export interface StoredView {
  run: number
  view: ViewName
  key: string
  value: unknown
}

/** The body's encoding (JSON text); a row of another format is ignored. */
const VIEW_FORMAT = 1

/** The run's own identity: a run number reused by another run (deleted, then another stored) is another run. */
function runStamp(db: Db, run: number): string | null {
  const row = getRow(db.prepare('SELECT created_at, config FROM runs WHERE run = ?'), { created_at: 'text', config: 'text' }, run)
  return row ? JSON.stringify([row.created_at, row.config]) : null
}

/**
 * The identity a row derived from `run` is kept under (views here, a first level's state in
 * first-level-store.ts): the recording's, the run's, the build's, and a CRC-32 of its body.
 * `recording`: the session's staticsIdentity (a caller storing several rows finds it once);
 * `build`: the Stride build's (another's is read by no one but a test of it).
 */
export function identityOf(db: Db, run: number, body: string | Uint8Array, recording: string | null = staticsIdentity(db), build = BUILD_IDENTITY): string | null {
  const stamp = runStamp(db, run)
  if (recording === null || stamp === null) return null
  return `${JSON.stringify([recording, stamp, build])}#${crc32(body).toString(16)}`
}

/** Stores a view of `run` (inside the caller's transaction, if any); false when the session cannot vouch for one (unfinished, no such run, no table). */
export function writeView(db: Db, run: number, view: ViewName, key: string, value: unknown, recording: string | null = staticsIdentity(db)): boolean {
  if (!hasTable(db, 'view_cache')) return false
  const body = JSON.stringify(value)
  const identity = identityOf(db, run, body, recording)
  if (identity === null) return false
  db.prepare('INSERT OR REPLACE INTO view_cache (run, view, key, format, identity, body) VALUES (?, ?, ?, ?, ?, ?)').run(run, view, key, VIEW_FORMAT, identity, body)
  return true
}

/**
 * Stores each view (writeView) in one transaction; a failure stores none and is no error (they
 * are derived). `recording`: the session's staticsIdentity, when the caller has it.
 */
export function writeViews(db: Db, views: readonly StoredView[], recording?: string | null): void {
  if (views.length === 0) return
  try {
    db.transaction(() => {
      const identity = recording === undefined ? staticsIdentity(db) : recording
      for (const v of views) writeView(db, v.run, v.view, v.key, v.value, identity)
    })()
  } catch {
    // As without them: readers derive them.
  }
}

/** The view of `run` stored under this very recording, run and build, parsed; null when there is none such. */
export function readView(db: Db, run: number, view: ViewName, key: string): unknown {
  if (!hasTable(db, 'view_cache')) return null
  const row = db.prepare('SELECT format, identity, body FROM view_cache WHERE run = ? AND view = ? AND key = ?').get(run, view, key) as { format: unknown; identity: unknown; body: unknown } | undefined
  if (!row || row.format !== VIEW_FORMAT || typeof row.body !== 'string' || typeof row.identity !== 'string') return null
  if (row.identity !== identityOf(db, run, row.body)) return null
  try {
    return JSON.parse(row.body) as unknown
  } catch {
    return null
  }
}
