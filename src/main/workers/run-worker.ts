/** Worker threads for the backend and the CLI: a trace's own worker, and the warm task pool. */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { HierarchyConfig } from '../../shared/domain'
import { workerPath } from '../paths'
import { JobError, type WorkerHandle } from '../job-handle'
import { WorkerPool, type TaskProgress } from './pool'
import { WorkerSlots } from './worker-slots'
import { sweepJobs } from './sweep-jobs'
import { tlbThreadPays } from '../simulate/tlb-thread'
import type { PendingRun, SimulateResult, SimulateTaskInput, TraceWorkerInput, TraceWorkerStart, WorkerCommand, WorkerMessage } from './protocol'

export type TraceDone = Extract<WorkerMessage, { type: 'trace-done' }>
export type WorkerProgress = Extract<WorkerMessage, { type: 'progress' }>
export type WorkerOutput = Extract<WorkerMessage, { type: 'output' }>

export { JobError, type WorkerHandle } from '../job-handle'
export type { TaskProgress } from './pool'

/**
 * Worker threads at once, process-wide (web mode serves many clients): the rest wait their
 * turn. Memory, not cores, is the limit: each worker holds a decoded chunk and a simulator.
 */
export const MAX_WORKERS = Math.max(2, Math.min(8, availableParallelism()))
const slots = new WorkerSlots(MAX_WORKERS)

/** Reports, advice, queries, rankings and simulations: warm workers, reused between tasks. */
export const taskPool = new WorkerPool({ spawn: () => new Worker(workerPath('task-worker')), slots })

/** A trace gets a worker of its own: it runs the program, and winds down by naming its points. */
const TRACE_STOP_GRACE_MS = 60_000

/** A trace worker started ahead of its trace (warmTraceWorker), waiting for it. */
let spare: Worker | null = null

/**
 * Starts the next trace's worker now, so that Node's start of a worker thread (~70 ms) is not
 * between the user's click (or the command line) and Valgrind's start. The CLI calls it before
 * reading its arguments; the app keeps one spare, which also loads the tracer's modules while
 * it waits (`preload`). An idle spare keeps no process alive.
 */
export function warmTraceWorker(preload: boolean): void {
  if (spare) return
  const w = new Worker(workerPath('trace-worker'), { workerData: { preload } satisfies TraceWorkerStart })
  w.unref()
  const forget = () => {
    if (spare === w) spare = null
  }
  w.once('error', forget)
  w.once('exit', forget)
  spare = w
}

function traceWorker(): Worker {
  const w = spare ?? new Worker(workerPath('trace-worker'), { workerData: { preload: false } satisfies TraceWorkerStart })
  spare = null
  w.ref()
  return w
}

/** `onOutput`: the program's output in batches (piped stdio only; the CLI's program writes to the terminal). */
export function runTraceWorker(input: TraceWorkerInput, onProgress: (p: WorkerProgress) => void, onOutput?: (o: WorkerOutput) => void): WorkerHandle<TraceDone> {
  let worker: Worker | null = null
  let stopped = false
  let settled = false
  let fail: (e: JobError) => void = () => {}
  const result = new Promise<TraceDone>((resolve, reject) => {
    fail = (e) => {
      if (settled) return
      settled = true
      reject(e)
    }
    void slots.acquire().then(() => {
      if (stopped) {
        slots.release()
        fail(new JobError('the trace was cancelled before it started', 'cancelled', null))
        return
      }
      let started: Worker | null = null
      try {
        started = traceWorker()
        started.postMessage({ type: 'start', input } satisfies WorkerCommand)
      } catch (e) {
        // Not built, or an input that cannot be cloned: thrown in this callback, it would
        // reject a promise nobody holds and leave the trace unsettled and its slot taken.
        void started?.terminate()
        slots.release()
        fail(new JobError(`the trace could not be handed to its worker (${(e as Error).message})`, 'internal', null))
        return
      }
      const w = started
      worker = w
      w.on('message', (m: WorkerMessage) => {
        if (m.type === 'progress') onProgress(m)
        else if (m.type === 'output') onOutput?.(m)
        else if (m.type === 'trace-done') {
          settled = true
          resolve(m)
        } else if (m.type === 'error') fail(new JobError(m.message, m.code, m.session))
      })
      w.on('error', (e) => fail(new JobError(`internal error in the trace worker: ${e.message}`, 'internal', null)))
      w.on('exit', (code) => {
        slots.release()
        fail(stopped ? new JobError('the trace worker was stopped', 'cancelled', null) : new JobError(`the trace worker stopped unexpectedly (exit ${code})`, 'internal', null))
      })
    })
  }).finally(() => void worker?.terminate())
  const stop = () => {
    if (stopped || settled) return
    stopped = true
    if (!worker) return // still waiting for a slot: it will not start
    worker.postMessage({ type: 'stop' } satisfies WorkerCommand)
    // A worker busy in a long loop never reads the message: end it for real.
    const w = worker
    setTimeout(() => void w.terminate(), TRACE_STOP_GRACE_MS).unref()
  }
  return { result, stop }
}

/** Simulations of a session in one pass; a failure names the session, which keeps its trace. */
export function runSimulateWorker(input: SimulateTaskInput, onProgress: (p: TaskProgress) => void, onPending?: (p: PendingRun) => void): WorkerHandle<SimulateResult> {
  const handle = taskPool.run('simulate', input, onProgress, onPending)
  return { stop: handle.stop, result: handle.result.catch((e: unknown) => Promise.reject(e instanceof JobError && e.session === null ? new JobError(e.message, e.code, input.session) : e)) }
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
 * are split into one group per worker (sweep-jobs.ts: those sharing a first level together,
 * where it runs once for all of them), and each worker simulates its group in one pass over
 * the trace (each chunk decoded once), so a sweep of N costs about N / size simulations, or
 * one and N lower levels, not N worker starts and N decodes. Results come back in input order; the
 * first failure stops the rest. `onPending`, if given, gets each run's rows while it is being
 * stored (`PendingRun`, its index that of `configs`), before the result settles.
 */
export function runSimulatePool(
  session: string,
  configs: HierarchyConfig[],
  size: number,
  onProgress: (p: PoolProgress) => void,
  onPending?: (p: PendingRun) => void
): WorkerHandle<SweepRun[]> {
  // Hierarchies sharing a first level run on one worker, where that level runs once for all.
  const groups = sweepJobs(configs, size)
  const workers = groups.length
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
    // Each worker's TLB thread only where the workers leave cores free (as NativeHierarchy's default for one).
    runSimulateWorker(
      // One worker keeps the session's first level, where it has none yet (two would write it at once).
      { session, configs: group.map((i) => configs[i]!), withRows: onPending !== undefined, tlbThread: tlbThreadPays(2 * workers), keepFirstLevel: g === 0 },
      (p) => {
        events[g] = p.events
        totals[g] = p.total
        report()
      },
      onPending && ((p) => onPending({ ...p, index: group[p.index]! }))
    )
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
