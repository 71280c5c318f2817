/**
 * Attach traces (Frida backend) as jobs, beside JobManager's Valgrind ones: each a trace in
 * the process's one Frida owner thread, progress events with per-function counts, cancel = stop and detach
 * (the trace is kept, marked partial), optionally followed by a simulation.
 */
import type { SessionLock } from '../store/session-lock'
import { randomUUID } from 'node:crypto'
import type { ApiEvents, ApiParsedInput, JobFinished } from '../../shared/api'
import type { FunctionProgress } from '../../shared/domain'
import { fridaOwner } from '../tracing/frida/frida-owner'
import { JobError, runSimulateWorker, type WorkerHandle } from '../workers/run-worker'
import { rememberSession } from './recent-sessions'
import { ApiEventChannel } from './event-channel'

interface AttachJob {
  id: string
  /** The client that started it: its events go there. */
  client: string
  started: number
  handle: WorkerHandle<unknown> | null
}

export type AttachInput = ApiParsedInput<'startAttach'> & { out: string }

export class AttachJobs extends ApiEventChannel {
  private readonly jobs = new Map<string, AttachJob>()
  cancel(jobId: string): boolean {
    const job = this.jobs.get(jobId)
    if (!job) return false
    job.handle?.stop()
    return true
  }

  /** Cancels every job; resolves when each has wound down (a trace keeps what it recorded). */
  cancelAll(): Promise<void> {
    const handles = [...this.jobs.values()].map((j) => j.handle)
    for (const id of this.jobs.keys()) this.cancel(id)
    return Promise.allSettled(handles.map((h) => h?.result)).then(() => undefined)
  }

  /** `lock`: the session's recording lock (session-lock.ts), released once the trace has written it. */
  start(client: string, input: AttachInput, lock?: SessionLock): string {
    const job: AttachJob = { id: randomUUID(), client, started: Date.now(), handle: null }
    this.jobs.set(job.id, job)
    void this.run(job, input, lock).finally(() => lock?.release())
    return job.id
  }

  private progress(job: AttachJob, phase: ApiEvents['progress']['phase'], events: number, total: number | null, functions?: FunctionProgress[], kind: 'trace' | 'simulate' = 'trace'): void {
    const elapsedMs = Date.now() - job.started
    this.emit(job.client, 'progress', {
      jobId: job.id,
      kind,
      phase,
      events,
      total,
      eventsPerSecond: elapsedMs > 0 ? Math.round((events * 1000) / elapsedMs) : 0,
      elapsedMs,
      message: null,
      ...(functions ? { functions } : {})
    })
  }

  private async run(job: AttachJob, input: AttachInput, lock?: SessionLock): Promise<void> {
    let session: string | null = null
    try {
      this.progress(job, 'starting', 0, input.maxEvents)
      const handle = fridaOwner().trace(
        { target: input.target, functions: input.functions, maxEvents: input.maxEvents, maxSeconds: input.maxSeconds, sampling: input.sampling, trackHeap: input.trackHeap, out: input.out },
        (p) => this.progress(job, p.phase, p.events, p.total, p.functions),
        // A launched program's own output, apart from Stride's messages (its own event), as for Valgrind traces.
        (o) => this.emit(job.client, 'output', { jobId: job.id, chunks: o.chunks, dropped: o.dropped })
      )
      job.handle = handle
      const done = await handle.result.finally(() => lock?.release())
      session = done.session
      rememberSession(done.session, done.program)
      const detached = done.targetAlive ? `detached from process ${done.pid}, which keeps running` : null
      const message = [done.message, detached].filter(Boolean).join('; ') || null
      if (input.simulate && done.events > 0) {
        const sim = runSimulateWorker({ session: done.session, configs: [input.simulate] }, (p) => this.progress(job, p.phase, p.events, p.total, undefined, 'simulate'))
        job.handle = sim
        const s = await sim.result
        this.finish(job, { session: done.session, run: s.cancelled ? null : s.runs[0]!, partial: done.partial, stopReason: done.stopReason, message })
        return
      }
      this.finish(job, { session: done.session, run: null, partial: done.partial, stopReason: done.stopReason, message })
    } catch (e) {
      this.jobs.delete(job.id)
      const error = e instanceof Error ? e.message : String(e)
      this.emit(job.client, 'failed', { jobId: job.id, kind: 'trace', error, session: e instanceof JobError ? (e.session ?? session) : session })
    }
  }

  private finish(job: AttachJob, result: Omit<JobFinished, 'jobId' | 'kind'>): void {
    this.jobs.delete(job.id)
    this.emit(job.client, 'finished', { jobId: job.id, kind: 'trace', ...result })
  }
}
