/** Starts a worker bundle and turns its messages into a promise plus progress callbacks. */
import { Worker } from 'node:worker_threads'
import { StrideError } from '../../shared/api'
import { workerPath } from '../paths'
import type { SimulateWorkerInput, TraceWorkerInput, WorkerMessage } from './protocol'

export type TraceDone = Extract<WorkerMessage, { type: 'trace-done' }>
export type SimulateDone = Extract<WorkerMessage, { type: 'simulate-done' }>
export type WorkerProgress = Extract<WorkerMessage, { type: 'progress' }>

/** A failed job; `session` still holds what was recorded before the failure, if anything. */
export class JobError extends StrideError {
  constructor(message: string, code: StrideError['code'], readonly session: string | null) {
    super(message, code)
  }
}

export interface WorkerHandle<T> {
  result: Promise<T>
  stop(): void
}

function start<T extends WorkerMessage>(name: 'trace-worker' | 'simulate-worker', input: unknown, doneType: T['type'], onProgress: (p: WorkerProgress) => void): WorkerHandle<T> {
  const worker = new Worker(workerPath(name), { workerData: input })
  let settled = false
  const result = new Promise<T>((resolve, reject) => {
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'progress') onProgress(m)
      else if (m.type === doneType) {
        settled = true
        resolve(m as T)
      } else if (m.type === 'error') {
        settled = true
        reject(new JobError(m.message, m.code, m.session))
      }
    })
    worker.on('error', (e) => {
      settled = true
      reject(new JobError(`internal error in ${name}: ${e.message}`, 'internal', null))
    })
    worker.on('exit', (code) => {
      if (!settled) reject(new JobError(`${name} stopped unexpectedly (exit ${code})`, 'internal', null))
    })
  }).finally(() => void worker.terminate())
  return { result, stop: () => worker.postMessage({ type: 'stop' }) }
}

export function runTraceWorker(input: TraceWorkerInput, onProgress: (p: WorkerProgress) => void): WorkerHandle<TraceDone> {
  return start<TraceDone>('trace-worker', input, 'trace-done', onProgress)
}

export function runSimulateWorker(input: SimulateWorkerInput, onProgress: (p: WorkerProgress) => void): WorkerHandle<SimulateDone> {
  return start<SimulateDone>('simulate-worker', input, 'simulate-done', onProgress)
}
