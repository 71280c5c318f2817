/** Starts a worker bundle and turns its messages into a promise plus progress callbacks. */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { StrideError } from '../../shared/api'
import type { RunAdvice, RunReport } from '../../shared/domain'
import { workerPath, type WorkerName } from '../paths'
import { JobError, type WorkerHandle } from '../job-handle'
import { WorkerSlots } from './worker-slots'
import type { QueryWorkerInput, ReportWorkerInput, SimulateWorkerInput, TraceWorkerInput, WorkerMessage } from './protocol'

export type TraceDone = Extract<WorkerMessage, { type: 'trace-done' }>
export type SimulateDone = Extract<WorkerMessage, { type: 'simulate-done' }>
export type ReportDone = Extract<WorkerMessage, { type: 'report-done' }>
export type AdviceDone = Extract<WorkerMessage, { type: 'advice-done' }>
export type QueryDone = Extract<WorkerMessage, { type: 'query-done' }>
export type WorkerProgress = Extract<WorkerMessage, { type: 'progress' }>

export { JobError, type WorkerHandle } from '../job-handle'

/**
 * Worker threads at once, process-wide (web mode serves many clients): the rest wait their
 * turn. Memory, not cores, is the limit: each worker holds a decoded chunk and a simulator.
 */
export const MAX_WORKERS = Math.max(2, Math.min(8, availableParallelism()))
const slots = new WorkerSlots(MAX_WORKERS)

/** How long a stopped worker may take to wind down (a trace names its points) before it is terminated. */
const STOP_GRACE_MS: Partial<Record<WorkerName, number>> = { 'trace-worker': 60_000 }
const DEFAULT_STOP_GRACE_MS = 2_000

function start<T extends WorkerMessage>(name: WorkerName, input: unknown, doneType: T['type'], onProgress: (p: WorkerProgress) => void): WorkerHandle<T> {
  let worker: Worker | null = null
  let stopped = false
  let settled = false
  let fail: (e: JobError) => void = () => {}
  const result = new Promise<T>((resolve, reject) => {
    fail = (e) => {
      if (settled) return
      settled = true
      reject(e)
    }
    void slots.acquire().then(() => {
      if (stopped) {
        slots.release()
        fail(new JobError(`${name} was cancelled before it started`, 'cancelled', null))
        return
      }
      const w = new Worker(workerPath(name), { workerData: input })
      worker = w
      w.on('message', (m: WorkerMessage) => {
        if (m.type === 'progress') onProgress(m)
        else if (m.type === doneType) {
          settled = true
          resolve(m as T)
        } else if (m.type === 'error') fail(new JobError(m.message, m.code, m.session))
      })
      w.on('error', (e) => fail(new JobError(`internal error in ${name}: ${e.message}`, 'internal', null)))
      w.on('exit', (code) => {
        slots.release()
        fail(stopped ? new JobError(`${name} was stopped`, 'cancelled', null) : new JobError(`${name} stopped unexpectedly (exit ${code})`, 'internal', null))
      })
    })
  }).finally(() => void worker?.terminate())
  const stop = () => {
    if (stopped || settled) return
    stopped = true
    if (!worker) return // still waiting for a slot: it will not start
    worker.postMessage({ type: 'stop' })
    // A worker busy in a long loop never reads the message: end it for real.
    const w = worker
    setTimeout(() => void w.terminate(), STOP_GRACE_MS[name] ?? DEFAULT_STOP_GRACE_MS).unref()
  }
  return { result, stop }
}

export function runTraceWorker(input: TraceWorkerInput, onProgress: (p: WorkerProgress) => void): WorkerHandle<TraceDone> {
  return start<TraceDone>('trace-worker', input, 'trace-done', onProgress)
}

/** Builds a run's report in a worker: on a big session the queries and roll-ups take seconds. */
export function runReportWorker(input: ReportWorkerInput): Promise<RunReport> {
  return start<ReportDone>('report-worker', input, 'report-done', () => {}).result.then((m) => m.report)
}

/** The advisor in a worker: the report, a replay of the trace (miss classes), the diagnosis. */
export function runAdviceWorker(input: ReportWorkerInput & { advice: { level: string | null } }): Promise<RunAdvice> {
  return start<AdviceDone>('report-worker', input, 'advice-done', () => {}).result.then((m) => m.advice)
}

/** A slice query in a worker: SQL over the run's tables, and a re-simulation for array sections. */
export function runQueryWorker(input: QueryWorkerInput, onProgress: (p: WorkerProgress) => void): WorkerHandle<QueryDone> {
  return start<QueryDone>('query-worker', input, 'query-done', onProgress)
}

export function runSimulateWorker(input: SimulateWorkerInput, onProgress: (p: WorkerProgress) => void): WorkerHandle<SimulateDone> {
  return start<SimulateDone>('simulate-worker', input, 'simulate-done', onProgress)
}

export interface PoolProgress {
  /** Accesses simulated so far, summed over the pool's jobs. */
  events: number
  /** Sum of the jobs' totals, when known. */
  total: number | null
  finished: number
  jobs: number
}

/**
 * Several simulations (a sweep) on a pool of `size` workers: each job is one worker over the
 * same session; the pool starts the next job as one finishes. Results come back in input
 * order; the first failure stops the rest.
 */
export function runSimulatePool(inputs: SimulateWorkerInput[], size: number, onProgress: (p: PoolProgress) => void): WorkerHandle<Array<SimulateDone | undefined>> {
  const events = new Array<number>(inputs.length).fill(0)
  const totals = new Array<number | null>(inputs.length).fill(null)
  const running = new Set<WorkerHandle<SimulateDone>>()
  const results: Array<SimulateDone | undefined> = new Array(inputs.length).fill(undefined)
  let next = 0
  let finished = 0
  let stopped = false
  const report = () => {
    const known = totals.every((t) => t !== null)
    onProgress({ events: events.reduce((a, b) => a + b, 0), total: known ? (totals as number[]).reduce((a, b) => a + b, 0) : null, finished, jobs: inputs.length })
  }
  const result = new Promise<Array<SimulateDone | undefined>>((resolve, reject) => {
    const launch = () => {
      if (stopped) return
      if (next >= inputs.length) {
        // Done, or stopped with jobs never started (their results stay undefined).
        if (running.size === 0) resolve(results)
        return
      }
      const i = next++
      const handle = runSimulateWorker(inputs[i]!, (p) => {
        events[i] = p.events
        totals[i] = p.total
        report()
      })
      running.add(handle)
      handle.result.then(
        (done) => {
          running.delete(handle)
          results[i] = done
          events[i] = done.accesses
          finished++
          report()
          launch()
        },
        (e: unknown) => {
          running.delete(handle)
          stopped = true
          for (const h of running) h.stop()
          reject(e)
        }
      )
    }
    for (let k = 0; k < Math.max(1, Math.min(size, inputs.length)); k++) launch()
  })
  return {
    result,
    stop: () => {
      // Running jobs end cancelled (their done message says so); queued ones never start.
      next = inputs.length
      for (const h of running) h.stop()
    }
  }
}
