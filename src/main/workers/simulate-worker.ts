/**
 * Worker thread: simulates one hierarchy over a stored trace, streaming the chunks in order
 * (one decoded chunk in memory at a time) through the layout filters, if any, then stores
 * the run in the session.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { StrideError } from '../../shared/api'
import { NativeHierarchy } from '../simulate/native-hierarchy'
import { buildLayoutMap, type LayoutMap } from '../simulate/layout-filter'
import { storeRun } from '../store/runs'
import { countEvents, iterateChunks, openSessionDb, readPointKinds, readPoints } from '../store/session-reader'
import { readPlacedVariables } from '../session-analysis/placed-variables'
import type { SimulateWorkerInput, WorkerCommand, WorkerMessage } from './protocol'

const input = workerData as SimulateWorkerInput
const post = (m: WorkerMessage) => parentPort!.postMessage(m)
let stopRequested = false
parentPort!.on('message', (m: WorkerCommand) => {
  if (m.type === 'stop') stopRequested = true
})

/** About this many timeline intervals when the user does not choose the interval. */
const DEFAULT_INTERVALS = 100

async function main(): Promise<void> {
  const reader = openSessionDb(input.session, { readonly: true })
  const kinds = readPointKinds(reader)
  const total = countEvents(reader)
  // Per point, the variable its accesses fall in (the reference's variable) for the timeline.
  const variables: string[] = []
  const varIndex = new Map<string, number>()
  const pointVariables = Int32Array.from(readPoints(reader).map((p) => {
    const name = p.variable ?? 'unknown'
    let v = varIndex.get(name)
    if (v === undefined) {
      v = variables.length
      variables.push(name)
      varIndex.set(name, v)
    }
    return v
  }))
  const interval = input.config.timelineInterval ?? Math.max(1, Math.ceil(total / DEFAULT_INTERVALS))
  let layout: LayoutMap | null = null
  if (input.config.layout && input.config.layout.length > 0) {
    try {
      layout = buildLayoutMap(await readPlacedVariables(reader), input.config.layout)
    } catch (e) {
      throw new StrideError(`Layout filter: ${(e as Error).message}.`, 'invalid-input')
    }
  }
  const hierarchy = new NativeHierarchy(input.config, kinds, { pointVariables, variableCount: variables.length, timelineInterval: interval })
  let done = 0
  let lastPost = 0
  for (const chunk of iterateChunks(reader, kinds.length)) {
    hierarchy.run(layout ? layout.mapBatch(chunk) : chunk)
    done += chunk.count
    const now = Date.now()
    if (now - lastPost > 200) {
      lastPost = now
      post({ type: 'progress', phase: 'simulating', events: done, total })
      // Let the stop message in: chunks are processed synchronously otherwise.
      await new Promise((r) => setImmediate(r))
      if (stopRequested) break
    }
  }
  reader.close()
  if (stopRequested) {
    post({ type: 'simulate-done', session: input.session, run: 0, accesses: done, cancelled: true })
    return
  }
  hierarchy.finish()
  post({ type: 'progress', phase: 'saving', events: done, total })
  const writer = openSessionDb(input.session)
  const run = storeRun(writer, {
    config: input.config,
    accesses: hierarchy.accesses,
    totals: hierarchy.levelTotals(),
    pointStats: hierarchy.pointResults(),
    pointCount: kinds.length,
    extras: hierarchy.levelExtras(),
    evictors: hierarchy.evictorEntries(),
    timeline: hierarchy.timelineCells().map((c) => ({ level: c.level, variable: variables[c.variable]!, interval: c.interval, misses: c.misses })),
    timelineInterval: interval
  })
  writer.close()
  post({ type: 'simulate-done', session: input.session, run, accesses: done, cancelled: false })
}

main().catch((e: unknown) => {
  post({ type: 'error', message: e instanceof Error ? e.message : String(e), code: e instanceof StrideError ? e.code : 'internal', session: input.session })
})
