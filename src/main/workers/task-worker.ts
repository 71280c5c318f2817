/**
 * A warm pool worker (workers/pool.ts): it stays alive between tasks, so a report, a query or
 * a what-if run does not pay for a thread start and module loading each time. One task at a
 * time; a stop message for it is seen at the task's next yield.
 */
import { parentPort } from 'node:worker_threads'
import { StrideError } from '../../shared/errors'
import type { PoolCommand, PoolMessage, PoolTaskKind, PoolTasks, TaskContext } from './protocol'
import { objectsTask } from './tasks/objects-task'
import { queryTask } from './tasks/query-task'
import { adviceTask, reportTask } from './tasks/report-task'
import { simulateTask } from './tasks/simulate-task'
import { SessionCache } from './session-cache'

type Runners = { [K in PoolTaskKind]: (input: PoolTasks[K]['input'], ctx: TaskContext) => Promise<PoolTasks[K]['result']> }
const RUNNERS: Runners = { simulate: simulateTask, report: reportTask, advice: adviceTask, query: queryTask, objects: objectsTask }

const post = (m: PoolMessage) => parentPort!.postMessage(m)
let running: { id: number; stop: boolean } | null = null
// Kept for the worker's life: a what-if and then its report reuse one session's point table.
const sessions = new SessionCache()

parentPort!.on('message', (m: PoolCommand) => {
  if (m.type === 'stop') {
    if (running?.id === m.id) running.stop = true
    return
  }
  const task = { id: m.id, stop: false }
  running = task
  const ctx: TaskContext = {
    progress: (phase, events, total) => post({ type: 'progress', id: task.id, phase, events, total }),
    shouldStop: () => task.stop,
    sessions
  }
  const run = RUNNERS[m.kind] as (input: unknown, ctx: TaskContext) => Promise<unknown>
  Promise.resolve()
    .then(() => run(m.input, ctx))
    .then(
      (result) => post({ type: 'done', id: task.id, result }),
      (e: unknown) => post({ type: 'error', id: task.id, message: e instanceof Error ? e.message : String(e), code: e instanceof StrideError ? e.code : 'internal' })
    )
    .finally(() => {
      if (running === task) running = null
    })
})
