/**
 * Hierarchies simulated over a stored trace, and their results as the store takes them: what
 * a `simulate` task (workers/tasks/simulate-task.ts) and a trace's first simulation beside its
 * naming (first-simulation.ts) share, so both store the same run for the same trace.
 */
import type { HierarchyConfig } from '../../shared/domain'
import type { NativeHierarchy } from '../simulate/native-hierarchy'
import type { TimelineCell } from '../simulate/hierarchy'
import type { Db } from '../store/open-db'
import type { SimulationResult } from '../store/runs'
import { iterateChunksAhead } from '../store/session-reader'
import { TextIndex } from '../text-index'
import type { DecodedChunk } from '../store/chunk-codec'
import type { StoredChunkVariables } from '../store/chunk-variables'
import type { TouchHierarchy } from '../simulate/touch-hierarchy'

/**
 * Chunks decoding ahead of the one simulated: two, so that where decoding is slower than
 * simulating (a C++ program's irregular chunks decode at ~55 M accesses/s, its simulation
 * runs at ~110) two decodes overlap it on the thread pool.
 */
const DECODE_DEPTH = 2

/** At most this many timeline intervals (more than half as many) when the user does not choose the interval. */
export const DEFAULT_INTERVALS = 100

/**
 * The timeline interval of a run over `total` accesses: the user's, else the smallest power of
 * two that holds the run in DEFAULT_INTERVALS intervals. A power of two, so that a simulation
 * that starts before the total is known (a trace's live first simulation: intervals that double
 * as it runs, live-simulation.ts) closes exactly these intervals' cells.
 */
export function timelineIntervalOf(config: HierarchyConfig, total: number): number {
  if (config.timelineInterval) return config.timelineInterval
  let interval = 1
  while (Math.ceil(total / interval) > DEFAULT_INTERVALS) interval *= 2
  return interval
}

/**
 * Every stored chunk, in order, to `onChunk` (the next one decoding on the thread pool
 * meanwhile; a chunk's arrays are valid only until the call, or the promise it returns, ends).
 * `meanwhile`, if given, runs once the first chunks have begun decoding and before the first is
 * handed over: a caller's own reads of the session then overlap the first decode instead of
 * preceding it. Every `yieldMs` of work it yields a turn of the event
 * loop (messages, child processes' output) and asks `between` whether to go on. Returns the
 * accesses handed over.
 */
export async function eachStoredChunk(
  reader: Db,
  pointCount: number,
  onChunk: (chunk: DecodedChunk, variables: Int32Array | null) => void | Promise<void>,
  between: (done: number) => boolean,
  yieldMs: number,
  meanwhile?: () => void | Promise<void>,
  /** Each chunk's data structures (store/chunk-variables.ts), handed over with it; null: none. */
  variables: StoredChunkVariables | null = null
): Promise<number> {
  let done = 0
  let last = 0 // the first chunk reports at once
  const chunks = iterateChunksAhead(reader, pointCount, { reuse: true, depth: DECODE_DEPTH })
  try {
    // The generator's first step starts the first chunks' decoding, then waits for the first.
    let next = chunks.next()
    if (meanwhile) {
      next.catch(() => {}) // a damaged first chunk is reported below, when it is awaited
      await meanwhile()
    }
    for (let step = await next; !step.done; step = await next) {
      const chunk = step.value
      await onChunk(chunk, variables ? variables.read(chunk, pointCount) : null)
      done += chunk.count
      const now = Date.now()
      if (now - last >= yieldMs) {
        last = now
        await new Promise((r) => setImmediate(r))
        if (!between(done)) break
      }
      next = chunks.next()
    }
  } finally {
    // Stopped early, or failed: no more chunks are read (a decode still running ends first).
    await chunks.return(undefined)
  }
  return done
}

/** A finished hierarchy's result, as storeRun takes it; `timeline` is its cells with their data structures' names. */
export function simulationResult(config: HierarchyConfig, hierarchy: NativeHierarchy | TouchHierarchy, pointCount: number, timeline: SimulationResult['timeline'], interval: number): SimulationResult {
  return {
    ...('touchResults' in hierarchy ? { touches: hierarchy.touchResults() } : {}),
    config,
    accesses: hierarchy.accesses,
    totals: hierarchy.levelTotals(),
    pointStats: hierarchy.pointResults(),
    pointCount,
    extras: hierarchy.levelExtras(),
    evictors: hierarchy.evictorEntries(),
    timeline,
    timelineInterval: interval
  }
}

/**
 * The timeline's data structures as a simulation takes them: one index per name, in the
 * order of the points that first fall in it (null: 'unknown'), and each point's index.
 */
export function timelineVariables(pointVariables: Array<string | null>): { variables: string[]; pointVariables: Int32Array } {
  const index = new TextIndex()
  const of = Int32Array.from(pointVariables, (variable) => index.of(variable ?? 'unknown'))
  return { variables: index.texts, pointVariables: of }
}

/**
 * Cells closed at `width` accesses per interval as at `interval` (a power-of-two multiple of it):
 * the intervals renumbered; cells of one (interval, level, variable) are summed later, where
 * they are folded to names (they stay in interval order).
 */
export function atInterval(cells: TimelineCell[], width: number, interval: number): TimelineCell[] {
  if (width === interval || cells.length === 0) return cells
  const factor = interval / width
  if (!Number.isInteger(factor)) throw new Error(`internal: the interval ${interval} is not a multiple of ${width}`)
  return cells.map((c) => ({ ...c, interval: Math.floor(c.interval / factor) }))
}
