/**
 * What identifies a finished recording's run-independent tables: what SessionStatics reads
 * (and the statics cache holds) stays valid while this does.
 */
import type { Db } from './open-db'
import { UNFINISHED_MESSAGE } from './recording-state'
import { allRows } from './rows'

/**
 * The tables SessionStatics reads from (runs never write them; nor does the statics cache).
 * Not `function_streams`: none of them, and filled on request after the recording (stream-store.ts).
 */
const STATIC_TABLES = ['points', 'point_streams', 'variables', 'point_variables', 'loops', 'point_loops'] as const

/**
 * Only the session writer writes those tables, while it records (store/session-writer.ts);
 * once the recording is finished they stay as they are until the file is replaced by another
 * recording (another creation time) or upgraded (another schema version), whatever runs are
 * stored meanwhile. Null while the session is unfinished (still recording, or cut short):
 * nothing then vouches for them. A few COUNT(*)s over indexes: about a millisecond.
 */
export function staticsIdentity(db: Db): string | null {
  const meta = new Map(allRows(db.prepare("SELECT key, value FROM meta WHERE key IN ('createdAt', 'events', 'stopReason', 'stopMessage', 'partial')"), { key: 'text', value: 'text' }).map((r) => [r.key, r.value]))
  if (!meta.has('events') || !meta.has('createdAt') || meta.get('stopMessage') === JSON.stringify(UNFINISHED_MESSAGE)) return null
  const present = new Set(allRows(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'"), { name: 'text' }).map((r) => r.name))
  const counts = STATIC_TABLES.map((t) => (present.has(t) ? (db.prepare(`SELECT COUNT(*) FROM ${t}`).pluck().get() as number) : -1))
  return JSON.stringify([db.pragma('user_version', { simple: true }), [...meta].sort(), counts])
}
