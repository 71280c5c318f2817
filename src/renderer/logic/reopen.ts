/**
 * Whether a session opened again still holds the run on screen as it was: the same trace (a
 * what-if adds runs, never changes one; a trace made again over the same file does) and that
 * run still in it, made at the same time. Then the report in memory stands, and reopening it
 * (a what-if's end) need not ask for it again: for a whole-program session that was a few
 * megabytes of figures, built, sent and parsed again, before the new run's.
 */
import type { SessionInfo } from '../../shared/domain'

export function runStillShown(before: SessionInfo | null, after: SessionInfo, run: number | null): boolean {
  if (!before || run === null) return false
  const sameTrace =
    before.path === after.path && before.createdAt === after.createdAt && before.events === after.events && before.points === after.points && before.schemaVersion === after.schemaVersion
  if (!sameTrace) return false
  const was = before.runs.find((r) => r.run === run)
  const is = after.runs.find((r) => r.run === run)
  return was !== undefined && is !== undefined && was.createdAt === is.createdAt && was.accesses === is.accesses
}
