/**
 * One writer per session file, enforced across processes and within one (the app's service).
 *
 * A recording (stride trace, the app's trace and attach jobs) holds `SESSION.lock`, created
 * whole and exclusively (placeLock), for as long as it writes the file: a second recording of the same path is
 * refused at once, naming the holder (pid, command, since when). A simulation that stores
 * runs into a session holds a shared lock, `SESSION.lock.runs.PID.THREAD.N`: any number of those may
 * write runs side by side (SQLite serialises their transactions), never beside a recording,
 * which may rename a new session over the file. Each side creates its own file first and then
 * looks for the other's, so two that race both see each other and neither writes.
 *
 * A lock whose pid is no longer alive (a killed Stride) is stale and removed by the next
 * writer. Locks are removed by `release`, and by process exit for any still held.
 */
import { closeSync, linkSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { threadId } from 'node:worker_threads'
import { StrideError } from '../../shared/errors'

export interface LockHolder {
  pid: number
  command: string
  started: string
}

export interface SessionLock {
  readonly file: string
  release(): void
}

const held = new Set<string>()
/** How long a lock file may stay unreadable before it is taken for stale. */
const UNWRITTEN_LOCK_MS = 5000
let exitHook = false
let sharedSeq = 0

/** The lock file of a session (exclusive: a recording's). */
export function lockFileOf(session: string): string {
  return `${session}.lock`
}

/** What a lock file says of its holder, or null when it cannot be read (being written, or not a lock). */
function readHolder(file: string): LockHolder | null {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>
    if (typeof h.pid === 'number' && Number.isInteger(h.pid) && h.pid > 0) return { pid: h.pid, command: String(h.command ?? 'unknown'), started: String(h.started ?? 'unknown') }
  } catch {
    // Absent or unreadable.
  }
  return null
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The holder of `file` if it is alive; a stale lock (dead pid) is removed. */
function liveHolder(file: string): LockHolder | null {
  const h = readHolder(file)
  if (h === null) {
    // Just created and not written yet (a writer between open and write): held, by someone;
    // unreadable for longer (a crash right after creating it, or not a lock): stale.
    let age: number
    try {
      age = Date.now() - statSync(file).mtimeMs
    } catch {
      return null
    }
    if (age < UNWRITTEN_LOCK_MS) return { pid: 0, command: 'another Stride (its lock is being written)', started: 'now' }
    rmSync(file, { force: true })
    return null
  }
  if (alive(h.pid)) return h
  rmSync(file, { force: true })
  return null
}

const cannotCreate = (file: string, e: unknown) =>
  new StrideError(`Cannot create the lock ${file} (${(e as Error).message}); make its folder writable or choose another session file.`, 'permission-denied')

/**
 * The lock made whole at once: written beside it, then linked into place (a link fails if the
 * lock exists), so a racing writer never reads an empty lock and always learns who holds it.
 * Where the file system has no hard links, created empty and then written, as before.
 */
function placeLock(file: string, body: string): boolean {
  const draft = `${file}.${process.pid}.${threadId}.draft`
  try {
    writeFileSync(draft, body, { mode: 0o644 })
  } catch (e) {
    throw cannotCreate(file, e)
  }
  try {
    linkSync(draft, file)
    return true
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw cannotCreate(file, e)
  } finally {
    rmSync(draft, { force: true })
  }
  let fd: number
  try {
    fd = openSync(file, 'wx', 0o644)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw cannotCreate(file, e)
  }
  try {
    writeSync(fd, body)
  } finally {
    closeSync(fd)
  }
  return true
}

function createLock(file: string, command: string): boolean {
  if (!placeLock(file, JSON.stringify({ pid: process.pid, command, started: new Date().toISOString() } satisfies LockHolder))) return false
  held.add(file)
  if (!exitHook) {
    exitHook = true
    // A process that exits holding locks (process.exit, an uncaught error) leaves none behind.
    process.on('exit', () => {
      for (const f of held) rmSync(f, { force: true })
    })
  }
  return true
}

function releaser(file: string): SessionLock {
  let released = false
  return {
    file,
    release() {
      if (released) return
      released = true
      held.delete(file)
      // Only our own lock: a stale-lock cleanup by another writer may have replaced it.
      const h = readHolder(file)
      if (h === null || h.pid === process.pid) rmSync(file, { force: true })
    }
  }
}

function busy(session: string, h: LockHolder, what: string): StrideError {
  const who = h.pid > 0 ? `pid ${h.pid} (${h.command}, since ${h.started})` : h.command
  return new StrideError(`${session} is being written by ${who}; wait for it to end, or ${what}.`, 'invalid-input')
}

/** Shared run-writer locks of `session` held by live processes (stale ones removed). */
function sharedHolders(session: string): LockHolder[] {
  const dir = dirname(session)
  const prefix = `${basename(session)}.lock.runs.`
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  return names
    .filter((n) => n.startsWith(prefix))
    .map((n) => liveHolder(join(dir, n)))
    .filter((h): h is LockHolder => h !== null)
}

/**
 * The exclusive lock of a recording to `session` (an absolute path), taken before anything is
 * written; throws a one-line StrideError naming the holder when another writer has it.
 */
export function lockSessionForRecording(session: string, command: string): SessionLock {
  const file = lockFileOf(session)
  for (let attempt = 0; ; attempt++) {
    if (createLock(file, command)) break
    const h = liveHolder(file)
    if (h !== null || attempt >= 3) throw busy(session, h ?? { pid: 0, command: 'another Stride', started: 'now' }, 'choose another --out')
  }
  const lock = releaser(file)
  const runs = sharedHolders(session)
  if (runs.length > 0) {
    lock.release()
    throw busy(session, runs[0]!, 'choose another --out')
  }
  return lock
}

/**
 * A shared lock for storing simulation runs into `session`: refused while a recording holds
 * the session (it may replace the file), never by another simulation.
 */
export function lockSessionForRuns(session: string, command: string): SessionLock {
  // Worker threads of one process each count from 1: the thread is part of the name.
  const file = `${session}.lock.runs.${process.pid}.${threadId}.${++sharedSeq}`
  if (!createLock(file, command)) throw new StrideError(`internal: the lock ${file} already exists`, 'internal')
  const lock = releaser(file)
  const h = liveHolder(lockFileOf(session))
  if (h !== null) {
    lock.release()
    throw busy(session, h, 'simulate it once the trace has ended')
  }
  return lock
}
