/**
 * Worker thread: ranks a session's data structures by misses, every method in one pass over
 * the trace through the simulator (analysis/objects/session-objects.ts). Posts progress, then
 * the report; a 'stop' message ends it early.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { StrideError } from '../../shared/errors'
import { computeObjects } from '../session-analysis/session-objects'
import type { ObjectsWorkerInput, ObjectsWorkerMessage } from './objects-protocol'

const input = workerData as ObjectsWorkerInput
const post = (m: ObjectsWorkerMessage) => parentPort!.postMessage(m)
let stopRequested = false
parentPort!.on('message', (m: { type: string }) => {
  if (m.type === 'stop') stopRequested = true
})

computeObjects(input.session, input.options, (p) => post({ type: 'progress', events: p.events, total: p.total }), () => stopRequested).then(
  (report) => post({ type: 'objects-done', report }),
  (e: unknown) => post({ type: 'error', message: e instanceof Error ? e.message : String(e), code: e instanceof StrideError ? e.code : 'internal' })
)
