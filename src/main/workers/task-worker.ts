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

/**
 * A result's bytes move to the parent instead of being copied: a result that is bytes (a
 * report's JSON), or a result's fields that are (a simulation's figures). Tasks make them whole
 * (JsonText.bytesOf), never a view of a shared buffer.
 */
function transferOf(m: PoolMessage): ArrayBuffer[] {
  if (m.type !== 'done' || m.result === null || typeof m.result !== 'object') return []
  const values = m.result instanceof Uint8Array ? [m.result] : Object.values(m.result)
  return values.filter((v): v is Uint8Array => v instanceof Uint8Array).map((v) => v.buffer as ArrayBuffer)
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
