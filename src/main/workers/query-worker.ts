/**
 * Worker thread: answers one slice query (SIGMA section 3.3) over a stored run, off the
 * main thread; array sections re-simulate the trace, with progress and stop.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { StrideError } from '../../shared/errors'
import { runSliceQuery } from '../session-analysis/run-slice-query'
import { openSessionDb } from '../store/session-reader'
import type { QueryWorkerInput, WorkerCommand, WorkerMessage } from './protocol'

const input = workerData as QueryWorkerInput
const post = (m: WorkerMessage) => parentPort!.postMessage(m)
let stopRequested = false
parentPort!.on('message', (m: WorkerCommand) => {
  if (m.type === 'stop') stopRequested = true
})

async function main(): Promise<void> {
  const db = openSessionDb(input.session, { readonly: true })
  try {
    const slice = await runSliceQuery(db, input, {
      onProgress: (events, total) => post({ type: 'progress', phase: 'simulating', events, total }),
      shouldStop: () => stopRequested
    })
    post({ type: 'query-done', slice })
  } finally {
    db.close()
  }
}

main().catch((e: unknown) => {
  post({ type: 'error', message: e instanceof Error ? e.message : String(e), code: e instanceof StrideError ? e.code : 'internal', session: null })
})
