/**
 * A warm worker's sessions: per session file, its SessionStatics (the point table, touches,
 * data structures, loops: what no run changes), kept between tasks so that a what-if and
 * the report of its run, or the next what-if, do not each read and rebuild them (about
 * 0.1 s of CPU on a 5,000-point session).
 *
 * Kept statics are used while either
 * - the file is unchanged: same stamp (device, inode, size, times; its write-ahead log's
 *   too unless empty), taken before the file is opened and again after; or
 * - the file changed but its run-independent tables provably did not: a finished recording
 *   with the same identity (store/statics-identity.ts `staticsIdentity`: creation time,
 *   schema version, table sizes). Storing runs, by this worker or any other process, changes
 *   the stamp and nothing else; a session replaced by another recording (renamed or copied
 *   over it) has another identity; an unfinished one has none and is read afresh.
 * Stride writes a session's point tables only while recording it: a finished session edited
 * in place by hand keeping its row counts is the one change this does not see.
 *
 * Bounded: the most recently used few sessions (each a few MB of objects for ~5,000 points).
 */
import { resolve } from 'node:path'
import { fileStamp } from '../store/file-stamp'
import type { Db } from '../store/open-db'
import { openSessionDb } from '../store/session-reader'
import { SessionStatics } from '../store/session-statics'
import { staticsIdentity } from '../store/statics-identity'

/** Sessions kept per worker; a user compares a handful at most. */
export const SESSION_CACHE_SIZE = 4

interface Entry {
  stamp: string
  identity: string | null
  statics: SessionStatics
}

/** What changes whenever the file's content may have (store/file-stamp.ts). */
const stampOf = (path: string): string => fileStamp(path).key

export class SessionCache {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly capacity = SESSION_CACHE_SIZE) {}

  /** The session opened read-only, with its statics (kept ones when still valid). The caller closes `db`. */
  open(path: string): { db: Db; statics: SessionStatics } {
    const key = resolve(path)
    // Stamped before and after opening: a file replaced meanwhile is never taken for the kept one.
    const before = stampOf(key)
    const db = openSessionDb(path, { readonly: true })
    try {
      const steady = stampOf(key) === before
      return { db, statics: this.lookup(key, steady ? before : null, db) }
    } catch (e) {
      db.close()
      throw e
    }
  }

  /** `stamp` null: the file changed while being opened. */
  private lookup(key: string, stamp: string | null, db: Db): SessionStatics {
    const kept = this.entries.get(key)
    this.entries.delete(key)
    let entry: Entry
    if (kept && stamp !== null && kept.stamp === stamp) entry = kept
    else {
      const identity = staticsIdentity(db)
      const same = kept !== undefined && identity !== null && kept.identity === identity
      entry = { stamp: stamp ?? 'changing', identity, statics: same ? kept.statics : new SessionStatics({ identity }) }
    }
    this.entries.set(key, entry) // most recently used last
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!)
    return entry.statics
  }
}
