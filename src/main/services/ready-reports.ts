/**
 * Reports built before they are asked for: a trace job's first run, whose report (and the
 * Advisor's diagnosis stored with it) the trace's worker builds while what it reads is still in
 * its memory, and a what-if's run, whose figures the simulating worker builds on the file it has
 * just written. Each is handed out once, to the getReport (getAdvice, getRunFigures) of that run
 * of that file, while the file is the one it was built from (a new trace to the same path
 * replaces the file, and its run ids start again); else the pool builds it as for any run.
 */
import { statSync } from 'node:fs'

/** A few at most (a trace job finishing hands over two: its report and its diagnosis), for a few minutes. */
const MAX_READY = 8
const READY_MS = 5 * 60_000

/** The file itself: another recording at the same path is another inode or size or time. */
function fileStamp(path: string): string | null {
  try {
    const s = statSync(path)
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return null
  }
}

/** The whole report (getReport), the run's figures (getRunFigures), or its diagnosis of a level (getAdvice). */
export type ReadyPart = 'report' | 'figures' | `advice:${string}`

export class ReadyReports {
  private readonly ready = new Map<string, { json: Uint8Array; stamp: string; at: number }>()

  /** `json`: the part's JSON bytes. */
  put(session: string, run: number, json: Uint8Array, part: ReadyPart = 'report'): void {
    const stamp = fileStamp(session)
    if (stamp === null) return
    const key = `${part}\0${run}\0${session}`
    this.ready.delete(key)
    this.ready.set(key, { json, stamp, at: Date.now() })
    while (this.ready.size > MAX_READY) this.ready.delete(this.ready.keys().next().value!)
  }

  /** That part of `run` in `session` if ready (then no longer kept), else null. */
  take(session: string, run: number, part: ReadyPart = 'report'): Uint8Array | null {
    const key = `${part}\0${run}\0${session}`
    const r = this.ready.get(key)
    if (!r) return null
    this.ready.delete(key)
    return Date.now() - r.at <= READY_MS && fileStamp(session) === r.stamp ? r.json : null
  }
}
