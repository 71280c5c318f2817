/**
 * A warm worker's sessions: per session file, its SessionStatics (the point table, touches,
 * data structures, loops: what no run changes), kept between tasks so that a what-if and
 * the report of its run do not each read and rebuild them (about 0.15 s on a 5,000-point
 * session). An entry holds while the file is the one it was read from: same device and
 * inode, size and modification time, for the file and its write-ahead log. A file changed
 * by anyone else is read afresh; a run this worker stored itself only added rows the
 * statics do not hold, so `wrote` takes the file's new stamp as the entry's.
 *
 * Bounded: the most recently used few sessions (each a few MB of objects for ~5,000 points).
 */
import { statSync, type BigIntStats } from 'node:fs'
import { resolve } from 'node:path'
import { SessionStatics } from '../store/session-statics'

/** Sessions kept per worker; a user compares a handful at most. */
export const SESSION_CACHE_SIZE = 4

interface Entry {
  stamp: string
  /** Device and inode of the file when read: a file renamed over it (a new trace) is another. */
  identity: string
  statics: SessionStatics
}

const statOf = (path: string): BigIntStats | null => statSync(path, { bigint: true, throwIfNoEntry: false }) ?? null

function identityOf(path: string): string {
  const s = statOf(path)
  return s ? `${s.dev}:${s.ino}` : 'missing'
}

/**
 * What changes whenever the file's content may have: the file's identity, size and times, and
 * its write-ahead log's unless the log is empty (a reader opening the session creates an
 * empty one, a writer closing it deletes it: neither changes the content).
 */
function stampOf(path: string): string {
  const file = statOf(path)
  const log = statOf(`${path}-wal`)
  const of = (s: BigIntStats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  return `${file ? of(file) : 'missing'}|${log && log.size > 0n ? of(log) : 'empty'}`
}

export class SessionCache {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly capacity = SESSION_CACHE_SIZE) {}

  /**
   * The statics of the session at `path`: the kept ones while the file is unchanged, else a
   * fresh (empty, lazily filled) set. Stamped before anything is read, so a change made while
   * they are being read shows as a change next time (read again, never kept stale).
   */
  get(path: string): SessionStatics {
    const key = resolve(path)
    const stamp = stampOf(key)
    const kept = this.entries.get(key)
    this.entries.delete(key)
    const entry = kept && kept.stamp === stamp ? kept : { stamp, identity: identityOf(key), statics: new SessionStatics() }
    this.entries.set(key, entry) // most recently used last
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!)
    return entry.statics
  }

  /**
   * This worker stored runs in the session, which changed its stamp but nothing the statics
   * hold: keep them under the new stamp, unless the file is no longer the one they were read
   * from (replaced meanwhile) or they were dropped or replaced since.
   */
  wrote(path: string, statics: SessionStatics): void {
    const key = resolve(path)
    const entry = this.entries.get(key)
    if (!entry || entry.statics !== statics) return
    if (identityOf(key) !== entry.identity) {
      this.entries.delete(key)
      return
    }
    entry.stamp = stampOf(key)
  }
}
