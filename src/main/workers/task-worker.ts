/**
 * A warm pool worker (workers/pool.ts): it stays alive between tasks, so a report, a query or
 * a what-if run does not pay for a thread start and module loading each time. One task at a
 * time; a stop is seen at the task's next check (the parent sets the shared stop flag), or its
 * next yield (the stop message).
 */
import { parentPort } from 'node:worker_threads'
import { taskError } from './task-error'
import type { PoolCommand, PoolMessage, TaskContext } from './protocol'
import { preloadTaskRunners, taskRunner } from './task-runners'
import { SessionCache } from './session-cache'
import { trustChecks } from '../store/checked-sessions'

/** Idle this long after start-up, the worker loads the modules of the tasks not asked for yet. */
const PRELOAD_AFTER_MS = 300

// A result of bytes (a report's JSON) moves to the main thread instead of being copied.
/** A result's bytes move to the parent instead of being copied: a report's JSON, or a simulation's figures. */
function transferOf(m: PoolMessage): ArrayBuffer[] {
  if (m.type !== 'done') return []
  if (m.result instanceof Uint8Array) return [m.result.buffer as ArrayBuffer]
  const figures = (m.result as { figures?: unknown } | null)?.figures
  return figures instanceof Uint8Array ? [figures.buffer as ArrayBuffer] : []
}
const post = (m: PoolMessage) => parentPort!.postMessage(m, transferOf(m))
let running: { id: number; stop: boolean } | null = null
// Kept for the worker's life: a what-if and then its report reuse one session's point table.
const sessions = new SessionCache()
let started = false
// Unref'd: a timer alone never keeps the worker (or the CLI's process) alive.
setTimeout(() => {
  if (!started) void preloadTaskRunners().catch(() => {})
}, PRELOAD_AFTER_MS).unref()

parentPort!.on('message', (m: PoolCommand) => {
  if (m.type === 'stop') {
    if (running?.id === m.id) running.stop = true
    return
  }
  trustChecks(m.checked)
  const task = { id: m.id, stop: false }
  running = task
  const ctx: TaskContext = {
    progress: (phase, events, total) => post({ type: 'progress', id: task.id, phase, events, total }),
    partial: (value) => post({ type: 'partial', id: task.id, value }),
    shouldStop: () => task.stop || Atomics.load(m.stopFlag, 0) === task.id,
    sessions
  }
  started = true
  taskRunner(m.kind)
    .then((run) => (run as (input: unknown, ctx: TaskContext) => Promise<unknown>)(m.input, ctx))
    .then(
      (result) => post({ type: 'done', id: task.id, result }),
      (e: unknown) => post({ type: 'error', id: task.id, ...taskError(e) })
    )
    .finally(() => {
      if (running === task) running = null
    })
})
