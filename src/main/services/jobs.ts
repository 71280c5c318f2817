/**
 * Long-running work as jobs: a trace (optionally followed by a simulation) or a simulation.
 * A trace runs in its own worker thread, a simulation in the warm pool; each reports progress
 * as API events to the client that started it, and can be cancelled; a cancelled trace is kept, marked partial.
 */
import { randomUUID } from 'node:crypto'
import type { ApiParsedInput, JobFinished, JobPhase } from '../../shared/api'
import type { HierarchyConfig } from '../../shared/domain'
import { JobError, runSimulateWorker, runTraceWorker, warmTraceWorker, type WorkerHandle } from '../workers/run-worker'
import { rememberSession } from './recent-sessions'
import { ApiEventChannel } from './event-channel'
import { ReadyReports } from './ready-reports'
import type { SessionLock } from '../store/session-lock'

interface Job {
  id: string
  /** The client that started it: its events go there. */
  client: string
  kind: 'trace' | 'simulate'
  started: number
  handle: WorkerHandle<unknown> | null
  cancelled: boolean
  /** The last progress sample, for the current rate (not the average since the start). */
  rate: { at: number; events: number; perSecond: number }
}

/** How long after a trace ends the next trace's spare worker starts (spareLater). */
const SPARE_AFTER_MS = 1000

export class JobManager extends ApiEventChannel {
  private readonly jobs = new Map<string, Job>()
  /** First runs' reports built by their trace's worker, for the getReport that follows. */
  readonly readyReports = new ReadyReports()
  /** Trace jobs whose worker is running (a spare is not started beside them). */
  private tracesRunning = 0
  cancel(jobId: string): boolean {
    const job = this.jobs.get(jobId)
    if (!job) return false
    job.cancelled = true
    job.handle?.stop()
    return true
  }

  /** Cancels every job; resolves when each has wound down (a trace keeps what it recorded). */
  cancelAll(): Promise<void> {
    const handles = [...this.jobs.values()].map((j) => j.handle)
    for (const id of this.jobs.keys()) this.cancel(id)
    return Promise.allSettled(handles.map((h) => h?.result)).then(() => undefined)
  }

  private progress(job: Job, p: { phase: JobPhase; events: number; total: number | null }): void {
    const now = Date.now()
    const elapsedMs = now - job.started
    // The rate over the last second or so: phases differ (tracing, then simulating from 0), and
    // an average since the start hides a stall or a speed-up.
    const r = job.rate
    if (p.events < r.events) job.rate = { at: now, events: p.events, perSecond: 0 }
    else if (now - r.at >= 500) job.rate = { at: now, events: p.events, perSecond: ((p.events - r.events) * 1000) / (now - r.at) }
    this.emit(job.client, 'progress', {
      jobId: job.id,
      kind: job.kind,
      phase: p.phase,
      events: p.events,
      total: p.total,
      eventsPerSecond: Math.round(job.rate.perSecond),
      elapsedMs,
      message: null
    })
  }

  /** `lock`: the session's recording lock (session-lock.ts), released once the trace has written it. */
  startTrace(client: string, input: ApiParsedInput<'startTrace'> & { out: string }, lock?: SessionLock): string {
    const job = this.newJob(client, 'trace')
    void this.runTrace(job, input, lock)
    return job.id
  }

  /** `parent`: the run a what-if was made from, recorded with the new run (its label is read against it). */
  startSimulate(client: string, session: string, config: HierarchyConfig, parent: number | null = null): string {
    const job = this.newJob(client, 'simulate')
    void this.runSimulate(job, session, config, 'completed', false, null, parent)
    return job.id
  }

  private newJob(client: string, kind: Job['kind']): Job {
    const job: Job = { id: randomUUID(), client, kind, started: Date.now(), handle: null, cancelled: false, rate: { at: Date.now(), events: 0, perSecond: 0 } }
    this.jobs.set(job.id, job)
    return job
  }

  private async runTrace(job: Job, input: ApiParsedInput<'startTrace'> & { out: string }, lock?: SessionLock): Promise<void> {
    try {
      this.progress(job, { phase: 'starting', events: 0, total: input.maxEvents })
      const handle = runTraceWorker(
        {
          program: input.program,
          args: input.args,
          functions: input.functions,
          maxEvents: input.maxEvents,
          maxSeconds: input.maxSeconds,
          out: input.out,
          trackHeap: input.trackHeap,
          followCalls: input.followCalls && input.functions.length > 0,
          afterLimit: input.afterLimit,
          ...(input.simulate ? { simulate: input.simulate, reportFirstRun: 'json' as const } : {})
        },
        (p) => this.progress(job, p),
        // The program's own output, apart from Stride's messages (its own event).
        (o) => this.emit(job.client, 'output', { jobId: job.id, chunks: o.chunks, dropped: o.dropped })
      )
      job.handle = handle
      this.tracesRunning++
      const done = await handle.result.finally(() => {
        this.tracesRunning--
        this.spareLater()
        // Written (or failed): a simulation of the session may store runs now.
        lock?.release()
      })
      rememberSession(done.session, input.program)
      // A cancelled trace is still simulated when asked: the user sees what was recorded. The
      // trace's worker simulated it beside the naming when it could; else the pool does now.
      if (input.simulate && done.events > 0) {
        const first = done.firstRun
        if (first?.run != null) {
          // Its report, built by the trace's worker, is what the client asks for next.
          if (done.firstReport) this.readyReports.put(done.session, first.run, done.firstReport)
          // And the Advisor's diagnosis of its first level, which the client asks for beside it.
          if (done.firstAdvice) this.readyReports.put(done.session, first.run, done.firstAdvice.json, `advice:${done.firstAdvice.level}`)
          this.finish(job, { session: done.session, run: first.run, partial: done.partial, stopReason: done.stopReason, message: done.message })
        } else if (first?.cancelled) this.finish(job, { session: done.session, run: null, partial: done.partial, stopReason: 'cancelled', message: 'simulation cancelled; the trace is kept' })
        else await this.runSimulate(job, done.session, input.simulate, done.stopReason, done.partial, done.message)
        return
      }
      this.finish(job, { session: done.session, run: null, partial: done.partial, stopReason: done.stopReason, message: done.message })
    } catch (e) {
      this.fail(job, e)
    } finally {
      lock?.release()
    }
  }

  /**
   * The next trace's spare, started a moment after a trace ends: not beside a trace (it competes
   * for the cores), nor while the trace's report goes out to the client (its start and module
   * loading delayed a 3.6 MB report's arrival by ~45 ms on two cores). A trace started meanwhile
   * starts its own worker, and schedules the spare when it ends.
   */
  private spareLater(): void {
    setTimeout(() => {
      if (this.tracesRunning === 0) warmTraceWorker(true)
    }, SPARE_AFTER_MS).unref()
  }

  private async runSimulate(job: Job, session: string, config: HierarchyConfig, stopReason: JobFinished['stopReason'], partial: boolean, message: string | null, parent: number | null = null): Promise<void> {
    try {
      // The worker stores the parent with the run and builds the run's figures, which the app asks for next.
      const handle = runSimulateWorker({ session, configs: [config], parent, figures: true }, (p) => this.progress(job, p))
      job.handle = handle
      const done = await handle.result
      if (!done.cancelled && done.figures) this.readyReports.put(session, done.runs[0]!, done.figures, 'figures')
      this.finish(job, {
        session,
        run: done.cancelled ? null : done.runs[0]!,
        partial,
        stopReason: done.cancelled ? 'cancelled' : stopReason,
        message: done.cancelled ? 'simulation cancelled; the trace is kept' : message
      })
    } catch (e) {
      this.fail(job, e, session)
    }
  }

  private finish(job: Job, result: Omit<JobFinished, 'jobId' | 'kind'>): void {
    this.jobs.delete(job.id)
    this.emit(job.client, 'finished', { jobId: job.id, kind: job.kind, ...result })
  }

  private fail(job: Job, e: unknown, session: string | null = null): void {
    this.jobs.delete(job.id)
    const error = e instanceof Error ? e.message : String(e)
    this.emit(job.client, 'failed', { jobId: job.id, kind: job.kind, error, session: e instanceof JobError ? (e.session ?? session) : session })
  }
}

