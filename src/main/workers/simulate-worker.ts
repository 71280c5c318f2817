/**
 * Worker thread: simulates one hierarchy over a stored trace, streaming the chunks in order
 * (one decoded chunk in memory at a time), then stores the run in the session.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { StrideError } from '../../shared/api'
import { Hierarchy } from '../simulate/hierarchy'
import { storeRun } from '../store/runs'
import { countEvents, iterateChunks, openSessionDb, readPointKinds } from '../store/session-reader'
import type { SimulateWorkerInput, WorkerCommand, WorkerMessage } from './protocol'

const input = workerData as SimulateWorkerInput
const post = (m: WorkerMessage) => parentPort!.postMessage(m)
let stopRequested = false
parentPort!.on('message', (m: WorkerCommand) => {
  if (m.type === 'stop') stopRequested = true
})

async function main(): Promise<void> {
  const reader = openSessionDb(input.session, { readonly: true })
  const kinds = readPointKinds(reader)
  const total = countEvents(reader)
  const hierarchy = new Hierarchy(input.config, kinds)
  let done = 0
  let lastPost = 0
  for (const chunk of iterateChunks(reader, kinds.length)) {
    hierarchy.run(chunk)
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
  post({ type: 'progress', phase: 'saving', events: done, total })
  const writer = openSessionDb(input.session)
  const run = storeRun(writer, input.config, hierarchy.accesses, hierarchy.levelTotals(), hierarchy.pointResults(), kinds.length)
  writer.close()
  post({ type: 'simulate-done', session: input.session, run, accesses: done, cancelled: false })
}

main().catch((e: unknown) => {
  post({ type: 'error', message: e instanceof Error ? e.message : String(e), code: e instanceof StrideError ? e.code : 'internal', session: input.session })
})
