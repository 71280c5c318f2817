/**
 * A session file's stamp: what changes whenever its content may have. SQLite in WAL mode writes
 * a commit to the `-wal` file first and folds it into the session later, so the stamp is the
 * session's and its log's: device, inode, size, modification and change times (ns). An empty
 * or missing log holds nothing (a reader creates an empty one, a writer's close deletes it):
 * those read alike. The `-shm` index is rebuilt from the log, so it is not content.
 */
import { statSync, type BigIntStats } from 'node:fs'

export interface FileStamp {
  /** The stamp as one string: equal strings, same file and log as stat(2) sees them. */
  key: string
  /** The latest modification or change time in it (ns since the epoch). */
  newestNs: bigint
  /** Whether the session file is there (a stamp of a missing one says nothing of a connection's file). */
  present: boolean
  /**
   * Whether every time in it has a fraction of a second: the file system keeps fine times
   * (ext4, xfs, btrfs, tmpfs: ns; exFAT: 10 ms), not whole seconds (FAT's 2 s, ext3's 1 s).
   */
  fine: boolean
}

const statOf = (path: string): BigIntStats | null => statSync(path, { bigint: true, throwIfNoEntry: false }) ?? null

export function fileStamp(path: string): FileStamp {
  const file = statOf(path)
  const wal = statOf(`${path}-wal`)
  const log = wal && wal.size > 0n ? wal : null
  const of = (s: BigIntStats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  let newestNs = 0n
  let fine = file !== null
  for (const s of [file, log])
    if (s)
      for (const t of [s.mtimeNs, s.ctimeNs]) {
        if (t > newestNs) newestNs = t
        if (t % 1_000_000_000n === 0n) fine = false
      }
  return { key: `${file ? of(file) : 'missing'}|${log ? of(log) : 'empty'}`, newestNs, present: file !== null, fine }
}
