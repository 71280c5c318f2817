/** Starts a worker bundle and turns its messages into a promise plus progress callbacks. */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { StrideError } from '../../shared/errors'
import type { HierarchyConfig, RunAdvice, RunReport } from '../../shared/domain'
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
  /** Accesses simulated so far, summed over the runs. */
  events: number
  /** Sum of the runs' totals, when known. */
  total: number | null
  finished: number
  jobs: number
}

/** One run of a sweep: its stored run id, or cancelled (nothing stored). */
export interface SweepRun {
  run: number | null
  accesses: number
}

/**
 * A sweep: several hierarchies over one session on at most `size` workers. The hierarchies
 * are dealt round-robin into one group per worker, and each worker simulates its group in
 * one pass over the trace (each chunk decoded once), so a sweep of N costs about N / size
 * simulations, not N worker starts and N decodes. Results come back in input order; the
 * first failure stops the rest.
 */
export function runSimulatePool(session: string, configs: HierarchyConfig[], size: number, onProgress: (p: PoolProgress) => void): WorkerHandle<SweepRun[]> {
  const workers = Math.max(1, Math.min(size, configs.length))
  const groups = Array.from({ length: workers }, (_, g) => configs.map((_, i) => i).filter((i) => i % workers === g))
  const events = new Array<number>(workers).fill(0)
  const totals = new Array<number | null>(workers).fill(null)
  const results: SweepRun[] = configs.map(() => ({ run: null, accesses: 0 }))
  let finished = 0
  const report = () => {
    const known = totals.every((t) => t !== null)
    onProgress({
      events: events.reduce((a, e, g) => a + e * groups[g]!.length, 0),
      total: known ? totals.reduce<number>((a, t, g) => a + t! * groups[g]!.length, 0) : null,
      finished,
      jobs: configs.length
    })
  }
  const handles = groups.map((group, g) =>
    runSimulateWorker({ session, configs: group.map((i) => configs[i]!) }, (p) => {
      events[g] = p.events
      totals[g] = p.total
      report()
    })
  )
  const result = Promise.all(
    handles.map((h, g) =>
      h.result.then(
        (done) => {
          groups[g]!.forEach((i, k) => (results[i] = { run: done.cancelled ? null : done.runs[k]!, accesses: done.accesses }))
          events[g] = done.accesses
          finished += groups[g]!.length
          report()
        },
        (e: unknown) => {
          for (const other of handles) other.stop()
          throw e
        }
      )
    )
  ).then(() => results)
  return { result, stop: () => handles.forEach((h) => h.stop()) }
}
