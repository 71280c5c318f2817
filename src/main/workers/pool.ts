/**
 * A warm pool of task workers (task-worker.ts) for reports, advice, slice queries, the
 * objects ranking and simulations (what-if runs and sweeps). A worker stays alive between
 * tasks, so only the first task pays for a thread start and module loading; idle workers
 * beyond `keepWarm` end after `idleMs`, and idle workers never keep the process alive.
 *
 * Concurrency is bounded by the shared WorkerSlots (trace workers take slots too): a task
 * waits for a slot, then takes an idle worker or starts one. A task asked to stop is told
 * so; one that does not wind down within the grace period has its worker terminated (a
 * report is one synchronous read: it cannot look at the message), and the pool starts a
 * fresh one for the next task.
 */
import type { Worker } from 'node:worker_threads'
import { JobError, type WorkerHandle } from '../job-handle'
import { checkedSessions } from '../store/checked-sessions'
import type { PoolCommand, PoolMessage, PoolTaskKind, PoolTasks, ProgressPhase } from './protocol'
import type { WorkerSlots } from './worker-slots'

export interface TaskProgress {
  phase: ProgressPhase
  events: number
  total: number | null
}

export interface PoolOptions {
  /** Starts one task worker (a test passes an eval'd stand-in). */
  spawn: () => Worker
  slots: WorkerSlots
  /** Idle workers kept indefinitely. */
  keepWarm?: number
  /** How long an idle worker beyond keepWarm lives. */
  idleMs?: number
  /** How long a stopped task may take to wind down before its worker is terminated. */
  stopGraceMs?: number
}

interface Task {
  id: number
  kind: PoolTaskKind
  stopped: boolean
  onProgress(p: TaskProgress): void
  onPartial(value: unknown): void
  settle(error: JobError | null, result?: unknown): void
}

interface Pooled {
  worker: Worker
  /** Shared with the worker (PoolCommand's stopFlag): the id of the task told to stop. */
  stopFlag: Int32Array
  task: Task | null
  idleTimer: ReturnType<typeof setTimeout> | null
  gone: boolean
}

export class WorkerPool {
  private readonly idle: Pooled[] = []
  private readonly all = new Set<Pooled>()
  private nextId = 1
  private closed = false
  private readonly keepWarm: number
  private readonly idleMs: number
  private readonly stopGraceMs: number

  constructor(private readonly options: PoolOptions) {
    this.keepWarm = options.keepWarm ?? 1
    this.idleMs = options.idleMs ?? 60_000
    this.stopGraceMs = options.stopGraceMs ?? 2_000
  }

  /** Live workers, busy or idle. */
  get size(): number {
    return this.all.size
  }

  get idleCount(): number {
    return this.idle.length
  }

  /** Starts workers ahead of the first task (the app does this at start-up). */
  warm(count = this.keepWarm): void {
    try {
      while (!this.closed && this.all.size < count) this.park(this.start())
    } catch {
      // Not built yet, say: the first task reports the problem to whoever asked.
    }
  }

  /** `onPartial` gets what the task hands out ahead of its result (PoolTasks' `partial`), before the result settles. */
  run<K extends PoolTaskKind>(
    kind: K,
    input: PoolTasks[K]['input'],
    onProgress: (p: TaskProgress) => void = () => {},
    onPartial: (value: PoolTasks[K]['partial']) => void = () => {}
  ): WorkerHandle<PoolTasks[K]['result']> {
    let task: Task | null = null
    let pooled: Pooled | null = null
    let stopped = false
    let settled = false
    const result = new Promise<PoolTasks[K]['result']>((resolve, reject) => {
      const acquired = this.closed ? Promise.reject(new JobError('Stride is shutting down; the task did not start.', 'cancelled', null)) : this.options.slots.acquire()
      acquired.then(
        () => {
          if (stopped || this.closed) {
            this.options.slots.release()
            settled = true
            reject(new JobError(`the ${kind} task was cancelled before it started`, 'cancelled', null))
            return
          }
          let p: Pooled
          try {
            p = this.take()
          } catch (e) {
            this.options.slots.release()
            settled = true
            reject(e)
            return
          }
          pooled = p
          const t: Task = {
            id: this.nextId++,
            kind,
            stopped: false,
            onProgress,
            onPartial: onPartial as (value: unknown) => void,
            settle: (error, value) => {
              if (settled) return
              settled = true
              this.options.slots.release()
              if (p.task === t) p.task = null
              if (!p.gone) this.park(p)
              if (error) reject(error)
              else resolve(value as PoolTasks[K]['result'])
            }
          }
          task = t
          p.task = t
          p.worker.ref()
          try {
            // With the sessions this thread found intact: the worker opening one of them again,
            // unchanged, need not read its point table again (store/checked-sessions.ts).
            p.worker.postMessage({ type: 'task', id: t.id, kind, input, stopFlag: p.stopFlag, checked: checkedSessions() } satisfies PoolCommand)
          } catch (e) {
            // An input that cannot be cloned: thrown here, it would reject a promise nobody
            // holds and leave the task unsettled and its slot taken.
            t.settle(new JobError(`the ${kind} task could not be handed to its worker (${(e as Error).message})`, 'internal', null))
          }
        },
        (e: unknown) => {
          settled = true
          reject(e)
        }
      )
    })
    const stop = () => {
      if (stopped || settled) return
      stopped = true
      const t = task as Task | null
      const p = pooled as Pooled | null
      if (!t || !p) return // still waiting for a slot: it will not start
      t.stopped = true
      Atomics.store(p.stopFlag, 0, t.id)
      p.worker.postMessage({ type: 'stop', id: t.id } satisfies PoolCommand)
      setTimeout(() => {
        if (p.task === t) void this.retire(p)
      }, this.stopGraceMs).unref()
    }
    return { result, stop }
  }

  /**
   * Ends the idle workers now, the pool staying open (a later task starts one). A command
   * line calls it when its last task is done: a worker's teardown (its heap unmapped, ~30 ms)
   * then runs on its own thread beside the printing, instead of at exit, where Node waits for it.
   */
  retireIdle(): void {
    for (const p of [...this.idle]) void this.retire(p)
  }

  /** Ends every worker; running tasks fail as cancelled. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.all].map((p) => this.retire(p)))
  }

  private take(): Pooled {
    const p = this.idle.pop() ?? this.start()
    if (p.idleTimer) clearTimeout(p.idleTimer)
    p.idleTimer = null
    return p
  }

  /** Back to the idle list, unref'd; extra idle workers end after idleMs. */
  private park(p: Pooled): void {
    if (this.closed) {
      void this.retire(p)
      return
    }
    p.worker.unref()
    this.idle.push(p)
    if (this.all.size > this.keepWarm) {
      p.idleTimer = setTimeout(() => {
        if (p.task === null && this.all.size > this.keepWarm) void this.retire(p)
      }, this.idleMs)
      p.idleTimer.unref()
    }
  }

  private start(): Pooled {
    const worker = this.options.spawn()
    const p: Pooled = { worker, stopFlag: new Int32Array(new SharedArrayBuffer(4)), task: null, idleTimer: null, gone: false }
    this.all.add(p)
    worker.on('message', (m: PoolMessage) => {
      const t = p.task
      if (!t || m.id !== t.id) return // a late message from a task already given up on
      if (m.type === 'progress') t.onProgress({ phase: m.phase, events: m.events, total: m.total })
      else if (m.type === 'partial') t.onPartial(m.value)
      else if (m.type === 'done') t.settle(null, m.result)
      else t.settle(new JobError(m.message, t.stopped && m.code === 'internal' ? 'cancelled' : m.code, null))
    })
    worker.on('error', (e) => {
      this.forget(p)
      p.task?.settle(new JobError(`internal error in the ${p.task.kind} task: ${e.message}`, 'internal', null))
    })
    worker.on('exit', (code) => {
      this.forget(p)
      const t = p.task
      if (t) t.settle(t.stopped || this.closed ? new JobError(`the ${t.kind} task was stopped`, 'cancelled', null) : new JobError(`the ${t.kind} task's worker stopped unexpectedly (exit ${code})`, 'internal', null))
    })
    return p
  }

  private forget(p: Pooled): void {
    p.gone = true
    this.all.delete(p)
    const i = this.idle.indexOf(p)
    if (i >= 0) this.idle.splice(i, 1)
    if (p.idleTimer) clearTimeout(p.idleTimer)
  }

  private async retire(p: Pooled): Promise<void> {
    this.forget(p)
    await p.worker.terminate()
  }
}
