/**
 * Each pool task's function, loaded on its first use: a worker started for a what-if (the
 * CLI's `stride simulate`, whose worker start is on its critical path) need not first compile
 * the modules of the objects ranking, the advisor and slice queries. `preloadTaskRunners`
 * loads the rest when the worker has nothing else to do (the app's warm worker, before the
 * user's first report or advice).
 */
import type { PoolTaskKind, PoolTasks, TaskContext } from './protocol'
import { loadCollation } from '../../shared/report-model'

type Runner<K extends PoolTaskKind> = (input: PoolTasks[K]['input'], ctx: TaskContext) => Promise<PoolTasks[K]['result']>
type Loaders = { [K in PoolTaskKind]: () => Promise<Runner<K>> }

const LOADERS: Loaders = {
  simulate: async () => (await import('./tasks/simulate-task')).simulateTask,
  report: async () => (await import('./tasks/report-task')).reportTask,
  advice: async () => (await import('./tasks/advice-task')).adviceTask,
  sharing: async () => (await import('./tasks/sharing-task')).sharingTask,
  threads: async () => (await import('./tasks/sharing-task')).threadsTask,
  query: async () => (await import('./tasks/query-task')).queryTask,
  objects: async () => (await import('./tasks/objects-task')).objectsTask,
  functionStreams: async () => (await import('./tasks/function-streams-task')).functionStreamsTask,
  hotFunctions: async () => (await import('./tasks/hot-functions-task')).hotFunctionsTask
}

/** The task's function (its module loaded once, on the first call). */
export function taskRunner<K extends PoolTaskKind>(kind: K): Promise<Runner<K>> {
  return LOADERS[kind]()
}

/** Loads every task's module now, one at a time, so a later first use is not slowed by it. */
export async function preloadTaskRunners(): Promise<void> {
  for (const kind of Object.keys(LOADERS) as PoolTaskKind[]) await taskRunner(kind)
  loadCollation()
}
