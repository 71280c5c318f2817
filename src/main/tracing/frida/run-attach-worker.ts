/** Starts the attach worker bundle (out/main/attach-worker.js) and follows its messages. */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { projectRoot } from '../../paths'
import { JobError, type WorkerHandle } from '../../workers/run-worker'
import type { AttachWorkerInput, AttachWorkerMessage } from './attach-protocol'

export type AttachDone = Extract<AttachWorkerMessage, { type: 'trace-done' }>
export type AttachProgress = Extract<AttachWorkerMessage, { type: 'progress' }>

export function attachWorkerPath(): string {
  const file = join(projectRoot(), 'out', 'main', 'attach-worker.js')
  if (!existsSync(file)) throw new Error(`${file} is missing; run "npm run build" first`)
  return file
}

export function runAttachWorker(input: AttachWorkerInput, onProgress: (p: AttachProgress) => void): WorkerHandle<AttachDone> {
  const worker = new Worker(attachWorkerPath(), { workerData: input })
  let settled = false
  const result = new Promise<AttachDone>((resolve, reject) => {
    worker.on('message', (m: AttachWorkerMessage) => {
      if (m.type === 'progress') onProgress(m)
      else if (m.type === 'trace-done') {
        settled = true
        resolve(m)
      } else {
        settled = true
        reject(new JobError(m.message, m.code, m.session))
      }
    })
    worker.on('error', (e) => {
      settled = true
      reject(new JobError(`internal error in the attach worker: ${e.message}`, 'internal', null))
    })
    worker.on('exit', (code) => {
      if (!settled) reject(new JobError(`the attach worker stopped unexpectedly (exit ${code})`, 'internal', null))
    })
  }).finally(() => void worker.terminate())
  return { result, stop: () => worker.postMessage({ type: 'stop' }) }
}
