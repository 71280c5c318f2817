/**
 * What a worker posts for a task's failure: a StrideError as it is; SQLite finding the file
 * damaged (a page that does not hold together, met while a run is stored) as a damaged session,
 * so the command says so and exits as for any damage, not as an internal error.
 */
import { StrideError } from '../../shared/errors'

const DAMAGE_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB'])

export function taskError(e: unknown): { message: string; code: StrideError['code'] } {
  if (e instanceof StrideError) return { message: e.message, code: e.code }
  const message = e instanceof Error ? e.message : String(e)
  const code = (e as { code?: unknown } | null)?.code
  // better-sqlite3's codes carry the extended code's suffix (SQLITE_CORRUPT_INDEX, ...).
  if (typeof code === 'string' && [...DAMAGE_CODES].some((c) => code === c || code.startsWith(`${c}_`))) return { message: `the session file is damaged (SQLite: ${message})`, code: 'malformed-session' }
  return { message, code: 'internal' }
}
