/** Starts the objects worker: a promise of the report, progress callbacks, and stop. */
import { Worker } from 'node:worker_threads'
import { StrideError } from '../../shared/errors'
import type { ObjectsReport } from '../../shared/domain'
import { workerPath } from '../paths'
import type { ObjectsWorkerInput, ObjectsWorkerMessage } from './objects-protocol'

export function runObjectsWorker(input: ObjectsWorkerInput, onProgress: (events: number, total: number) => void): { result: Promise<ObjectsReport>; stop(): void } {
  const worker = new Worker(workerPath('objects-worker'), { workerData: input })
  let settled = false
  const result = new Promise<ObjectsReport>((resolve, reject) => {
    worker.on('message', (m: ObjectsWorkerMessage) => {
      if (m.type === 'progress') onProgress(m.events, m.total)
      else if (m.type === 'objects-done') {
        settled = true
        resolve(m.report)
      } else {
        settled = true
        reject(new StrideError(m.message, m.code))
      }
    })
    worker.on('error', (e) => {
      settled = true
      reject(new StrideError(`internal error in objects-worker: ${e.message}`, 'internal'))
    })
    worker.on('exit', (code) => {
      if (!settled) reject(new StrideError(`objects-worker stopped unexpectedly (exit ${code})`, 'internal'))
    })
  }).finally(() => void worker.terminate())
  return { result, stop: () => worker.postMessage({ type: 'stop' }) }
}
