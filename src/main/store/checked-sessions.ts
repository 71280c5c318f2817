/**
 * The sessions this thread found intact (`openSessionDb`: its schema, `assertSession`, and its
 * contents, `checkIntegrity`), so that a command opening one file several times, and the pool
 * worker it hands the file to, check it once: the checks read the whole point table (10-30 ms
 * of each open of a whole-program session).
 *
 * A check is kept under the file's stamp (file-stamp.ts: the session's and its write-ahead
 * log's identity, size and times) and the digests the file stores, and used while both are the
 * same. Same stamp, same content, where the stamp is settled: every time in it older, when it
 * was taken, than one tick of the file system's clock. A write sets the file's modification
 * and change times to that clock's time: a write after a settled stamp is later than any time
 * in it, and changes it; setting the times back changes the change time; a file renamed over
 * it has another inode. So a check is kept only when the stamp taken before the open was
 * settled and is the same after the check (nothing was written or renamed meanwhile), and used
 * only when the stamp before the open and after it is the kept one. A file written within the
 * tick might be written again within it, unseen: its check is not kept.
 * The tick: where the file system keeps fractions of a second (fine times), the kernel's coarse
 * clock's (4-10 ms; exFAT's 10 ms), FINE_SETTLE_MS covering it; where it keeps whole seconds (or
 * FAT's two), SETTLE_MS. A script that traces and then simulates at once has its check kept.
 * Not seen: the clock stepped back by more than the settle time, a network file system whose
 * clock runs that far behind this machine's, a disk changing under its file system.
 *
 * Per thread (module state): a worker is handed its parent's (`trustChecks`), each entry still
 * used only while its file's stamp is unchanged.
 */
import { resolve } from 'node:path'
import { fileStamp, type FileStamp } from './file-stamp'
import { hasTable, type Db } from './open-db'

/** A check this thread made: the file, its stamp then, and the digests it stored. */
export interface CheckedSession {
  path: string
  stamp: string
  digests: string
}

/** Longer than any file system's time granularity (FAT: 2 s) and the coarse clock's tick. */
const SETTLE_MS = 3000

/** Where the times have fractions of a second: five ticks of a 100 Hz kernel's coarse clock. */
const FINE_SETTLE_MS = 50

/** Sessions kept; a command opens one or two, the app a handful. */
const KEPT = 16

const checked = new Map<string, CheckedSession>()

/** Whether every time in `stamp` is older than one tick of its file system's clock at `nowMs`. */
export function settled(stamp: Pick<FileStamp, 'newestNs' | 'fine'>, nowMs: number): boolean {
  return stamp.newestNs <= BigInt(nowMs - (stamp.fine ? FINE_SETTLE_MS : SETTLE_MS)) * 1_000_000n
}

/** The digests the session stores (`integrity` table), as one text. */
function storedDigests(db: Db): string {
  return hasTable(db, 'integrity') ? JSON.stringify(db.prepare('SELECT key, value FROM integrity ORDER BY key').raw(true).all()) : ''
}

function keep(entry: CheckedSession): void {
  checked.delete(entry.path)
  checked.set(entry.path, entry) // most recently used last
  while (checked.size > KEPT) checked.delete(checked.keys().next().value!)
}

/** A session's stamp taken before it is opened, and the clock then. */
export interface BeforeOpening {
  full: string
  stamp: FileStamp
  nowMs: number
}

/** Taken before opening `path`, for `checkedBefore` and `checkedNow`. */
export function beforeOpening(path: string): BeforeOpening {
  const full = resolve(path)
  const nowMs = Date.now()
  return { full, stamp: fileStamp(full), nowMs }
}

const unchanged = (before: BeforeOpening) => before.stamp.present && fileStamp(before.full).key === before.stamp.key

/**
 * Whether this thread found the session `db`, opened after `before` was taken, intact before,
 * and it has not changed since: the same settled stamp before the open and now is the same
 * file, unchanged throughout (its schema too, so its digests are read only then).
 */
export function checkedBefore(db: Db, before: BeforeOpening): boolean {
  const kept = checked.get(before.full)
  if (!kept || kept.stamp !== before.stamp.key || !unchanged(before)) return false
  if (storedDigests(db) !== kept.digests || !unchanged(before)) return false
  keep(kept)
  return true
}

/**
 * The session `db`, opened after `before` was taken, was found intact: kept if its stamp was
 * settled then and is the same now (nothing was written while it was checked).
 */
export function checkedNow(db: Db, before: BeforeOpening): void {
  checked.delete(before.full)
  if (!settled(before.stamp, before.nowMs)) return
  const digests = storedDigests(db)
  if (unchanged(before)) keep({ path: before.full, stamp: before.stamp.key, digests })
}

/** What this thread found intact, for a worker it hands sessions to. */
export function checkedSessions(): CheckedSession[] {
  return [...checked.values()]
}

/** Checks another thread of this process made; each is used only while its file's stamp is unchanged. */
export function trustChecks(list: readonly CheckedSession[]): void {
  for (const entry of list) keep(entry)
}
