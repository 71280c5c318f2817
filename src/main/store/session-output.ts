/**
 * Whether a session may be written to a path: never over the traced program, never over a
 * file that is not a Stride session unless the user says --force. (An existing session is
 * replaced only when the new one is complete: see SessionWriter.)
 */
import { existsSync, openSync, readSync, closeSync, realpathSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { StrideError } from '../../shared/errors'
import { openDb } from './open-db'
import { allRows } from './rows'

const SQLITE_MAGIC = 'SQLite format 3\0'

export function checkSessionOutput(out: string, options: { force?: boolean; program?: string | null; flag?: string } = {}): void {
  const flag = options.flag ?? '--out'
  const full = resolve(out)
  if (!existsSync(full)) return
  const stat = statSync(full)
  if (stat.isDirectory()) throw new StrideError(`${flag} ${out} is a folder; name a session file such as ${out.replace(/\/$/, '')}/run.stride.`, 'invalid-input')
  if (options.program && existsSync(options.program) && realpathSync(full) === realpathSync(options.program))
    throw new StrideError(`${flag} ${out} is the program being traced; choose another file for the session.`, 'invalid-input')
  if (looksLikeSession(full)) return
  if (!options.force)
    throw new StrideError(`${flag} ${out} exists and is not a Stride session; choose another file, or pass --force to replace it.`, 'invalid-input')
}

/** A SQLite file with Stride's tables (read-only look; anything unreadable is not a session). */
export function looksLikeSession(file: string): boolean {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return false
  }
  try {
    const head = Buffer.alloc(16)
    if (readSync(fd, head, 0, 16, 0) !== 16 || head.toString('latin1') !== SQLITE_MAGIC) return false
  } finally {
    closeSync(fd)
  }
  try {
    const db = openDb(file, { readonly: true })
    try {
      const names = (allRows(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'"), { name: 'text' })).map((r) => r.name)
      return names.includes('meta') && names.includes('trace_chunks')
    } finally {
      db.close()
    }
  } catch {
    return false
  }
}
