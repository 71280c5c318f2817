/**
 * Worker thread: simulates one or more hierarchies over a stored trace in one pass, streaming
 * the chunks in order (the next one decoding on the thread pool meanwhile, so at most two in
 * memory; each chunk is decoded once and fed to every hierarchy, through its own layout
 * filters, if any), then stores one run per hierarchy in the session. A sweep splits its
 * hierarchies over a few of these workers.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { StrideError } from '../../shared/errors'
import type { HierarchyConfig } from '../../shared/domain'
import { NativeHierarchy } from '../simulate/native-hierarchy'
import { buildLayoutMap, type LayoutMap, type PlacedVariable } from '../simulate/layout-filter'
import { storeRun } from '../store/runs'
import { foldLog, type Db } from '../store/open-db'
import { countEvents, iterateChunksAhead, openSessionDb, readPointKinds, readPointVariables } from '../store/session-reader'
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

interface Simulation {
  config: HierarchyConfig
  hierarchy: NativeHierarchy
  layout: LayoutMap | null
  interval: number
}

async function simulation(reader: Db, config: HierarchyConfig, kinds: Uint8Array, pointVariables: Int32Array, variableCount: number, total: number, placed: () => Promise<PlacedVariable[]>): Promise<Simulation> {
  const interval = config.timelineInterval ?? Math.max(1, Math.ceil(total / DEFAULT_INTERVALS))
  let layout: LayoutMap | null = null
  if (config.layout && config.layout.length > 0) {
    try {
      layout = buildLayoutMap(await placed(), config.layout)
    } catch (e) {
      throw new StrideError(`Layout filter: ${(e as Error).message}.`, 'invalid-input')
    }
  }
  return { config, layout, interval, hierarchy: new NativeHierarchy(config, kinds, { pointVariables, variableCount, timelineInterval: interval }) }
}

async function main(): Promise<void> {
  const reader = openSessionDb(input.session, { readonly: true })
  const kinds = readPointKinds(reader)
  const total = countEvents(reader)
  // Per point, the variable its accesses fall in (the reference's variable) for the timeline.
  const variables: string[] = []
  const varIndex = new Map<string, number>()
  const pointVariables = Int32Array.from(readPointVariables(reader).map((variable) => {
    const name = variable ?? 'unknown'
    let v = varIndex.get(name)
    if (v === undefined) {
      v = variables.length
      variables.push(name)
      varIndex.set(name, v)
    }
    return v
  }))
  let placed: Promise<PlacedVariable[]> | null = null
  const placedOnce = () => (placed ??= readPlacedVariables(reader))
  const sims: Simulation[] = []
  for (const config of input.configs) sims.push(await simulation(reader, config, kinds, pointVariables, variables.length, total, placedOnce))
  let done = 0
  let lastPost = 0
  for await (const chunk of iterateChunksAhead(reader, kinds.length)) {
    for (const s of sims) s.hierarchy.run(s.layout ? s.layout.mapBatch(chunk) : chunk)
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
    post({ type: 'simulate-done', session: input.session, runs: [], accesses: done, cancelled: true })
    return
  }
  post({ type: 'progress', phase: 'saving', events: done, total })
  const writer = openSessionDb(input.session)
  const runs = sims.map(({ config, hierarchy, interval }) => {
    hierarchy.finish()
    return storeRun(writer, {
      config,
      accesses: hierarchy.accesses,
      totals: hierarchy.levelTotals(),
      pointStats: hierarchy.pointResults(),
      pointCount: kinds.length,
      extras: hierarchy.levelExtras(),
      evictors: hierarchy.evictorEntries(),
      timeline: hierarchy.timelineCells().map((c) => ({ level: c.level, variable: variables[c.variable]!, interval: c.interval, misses: c.misses })),
      timelineInterval: interval
    })
  })
  foldLog(writer)
  writer.close()
  post({ type: 'simulate-done', session: input.session, runs, accesses: done, cancelled: false })
}

main().catch((e: unknown) => {
  post({ type: 'error', message: e instanceof Error ? e.message : String(e), code: e instanceof StrideError ? e.code : 'internal', session: input.session })
})
