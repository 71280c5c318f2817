/**
 * Every error the CLI prints is one line of bounded length: a StrideError's message as it is
 * (cut in the middle when it echoes a long input), SQLite's and the system's errors in
 * Stride's words with the session or file and a fix, anything else as an internal error
 * without its stack (STRIDE_DEBUG=1 prints the stack too).
 */
import { StrideError } from '../../shared/errors'

/** Longest line printed; the middle of a longer one (an echoed input) is cut. */
export const MAX_ERROR_LINE = 600

/** `text` on one line, at most `max` characters: a long middle becomes "… (N characters cut) …". */
export function boundLine(text: string, max = MAX_ERROR_LINE): string {
  const line = text.replace(/\s*\n\s*/g, ' ').trim()
  if (line.length <= max) return line
  const keep = Math.floor((max - 40) / 2)
  return `${line.slice(0, keep)} … (${line.length - 2 * keep} characters cut) … ${line.slice(line.length - keep)}`
}

const ERRNO_FIX: Record<string, string> = {
  ENOSPC: 'no space left on device; free some space or write elsewhere',
  EDQUOT: 'disk quota exceeded; free some space or write elsewhere',
  EACCES: 'permission denied; check the file and folder permissions',
  EPERM: 'operation not permitted; check the file and folder permissions',
  EROFS: 'read-only file system; write elsewhere',
  ENOENT: 'no such file or folder; check the path',
  EISDIR: 'a folder where a file was expected; name a file',
  EMFILE: 'too many open files; close other programs or raise the limit (ulimit -n)'
}

/** The line printed for an error thrown by `command` (`session`: the session file it was given, if any). */
export function errorLine(command: string, e: unknown, session?: string): { line: string; status: number } {
  if (e instanceof StrideError) {
    const msg = e.message.startsWith('stride') ? e.message : `stride ${command}: ${e.message}`
    return { line: boundLine(msg), status: e.code === 'internal' ? 1 : 2 }
  }
  const err = e instanceof Error ? (e as NodeJS.ErrnoException) : null
  const code = typeof err?.code === 'string' ? err.code : ''
  const message = err ? err.message : String(e)
  if (code.startsWith('SQLITE_') || err?.name === 'SqliteError') {
    const what = session ? `session ${session}` : 'the session'
    const fix = /SQLITE_(FULL|IOERR)/.test(code) ? 'free some space and try again' : /SQLITE_(READONLY|CANTOPEN|PERM)/.test(code) ? 'copy the session to a writable folder' : 're-trace the program'
    return { line: boundLine(`stride ${command}: ${what} cannot be read or written (SQLite: ${message}); it may be damaged: ${fix}.`), status: 2 }
  }
  if (ERRNO_FIX[code]) {
    const path = typeof err?.path === 'string' ? ` ${err.path}` : ''
    return { line: boundLine(`stride ${command}:${path} ${ERRNO_FIX[code]}.`), status: 2 }
  }
  const stack = process.env.STRIDE_DEBUG === '1' && err?.stack ? ` ${err.stack.replace(/\s*\n\s*/g, ' | ')}` : ''
  return { line: boundLine(`stride ${command}: internal error: ${err ? `${err.name}: ${message}` : message}; please report it (STRIDE_DEBUG=1 shows where).`, stack ? 4000 : MAX_ERROR_LINE) + stack, status: 1 }
}
