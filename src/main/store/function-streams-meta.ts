import { hasTable, type Db } from './open-db'

/**
 * A trace leaves its function stream statistics for a request: meta says `on-request`, and
 * once computed the `function_streams` rows are there (meta stays as the trace wrote it: its
 * digest vouches for it). Apart, so the session reader need not load the detectors.
 */
export const FUNCTION_STREAMS_KEY = 'functionStreams'
export const FUNCTION_STREAMS_ON_REQUEST = 'on-request'

/** True when the session's function statistics were left for a request and are not computed yet. */
export function functionStreamsPending(db: Db): boolean {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(FUNCTION_STREAMS_KEY)
  if (row !== JSON.stringify(FUNCTION_STREAMS_ON_REQUEST)) return false
  return hasTable(db, 'function_streams') && db.prepare('SELECT COUNT(*) FROM function_streams').pluck().get() === 0
}
