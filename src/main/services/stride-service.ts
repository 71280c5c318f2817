/**
 * The backend behind both bridges: validates each call against the API contract and
 * dispatches it. Heavy work (tracing, simulating) goes to worker threads through JobManager;
 * everything here is short reads of session files and metadata.
 */
import { mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { basename, isAbsolute, join, resolve } from 'node:path'
import { parseApiInput, StrideError, type ApiMethod, type ApiParsedInput, type ApiResults } from '../../shared/api'
import { sessionsDir } from '../paths'
import { openSessionDb, readRuns, readSessionInfo } from '../store/session-reader'
import { renameRun } from '../store/runs'
import { cleanLabel } from '../../shared/run-labels'
import { assertRunnableProgram, readElf } from '../symbols/elf-reader'
import { inspectProgram } from '../symbols/inspect-program'
import type { StrideBackend } from './backend'
import type { FilePurpose } from '../../shared/domain'
import { ensureExampleBuilt, listExamples } from './examples'
import { JobManager } from './jobs'
import { checkPath, listDirectory } from './file-browser'
import { checkSessionOutput } from '../store/session-output'
import { lockSessionForRecording } from '../store/session-lock'
import { taskPool, warmTraceWorker } from '../workers/run-worker'
import type { WorkerHandle } from '../job-handle'
import { recentSessions, rememberSession } from './recent-sessions'
import { hostHierarchy } from './host-hierarchy'
// ---- Frida attach ----
import { AttachJobs } from './attach-jobs'
import { fridaOwner } from '../tracing/frida/frida-owner'
import { filterProcesses } from '../tracing/frida/process-list'
import { inspectProcess } from '../tracing/frida/process-inspect'
import { processExecutable, resolveInProcess } from '../tracing/frida/frida-tracer'
import { ModuleMap } from '../tracing/proc-maps'
import { detachedContext, type CallContext } from './backend'
import { JsonText } from './json-text'
import type { ReadyPart } from './ready-reports'
import { checkFunctions } from './function-check'

const MAX_SOURCE_BYTES = 8 * 1024 * 1024

/** A method's result, or the same already serialized by the worker that made it. */
type Answer<M extends ApiMethod> = ApiResults[M] | JsonText<ApiResults[M]>
type Handlers = { [M in ApiMethod]: (input: ApiParsedInput<M>, context: CallContext) => Promise<Answer<M>> | Answer<M> }

/** A pool task that answers one call: the call's abort stops it, its progress goes to the caller. */
function forCall<T>(handle: WorkerHandle<T>, context: CallContext): Promise<T> {
  const stop = () => handle.stop()
  if (context.signal.aborted) stop()
  else context.signal.addEventListener('abort', stop, { once: true })
  return handle.result.finally(() => context.signal.removeEventListener('abort', stop))
}

/** Builds a bundled example on first use, so a first-time user can launch it at once. */
function prepareProgram(program: string): string {
  const example = listExamples().find((e) => e.program === resolve(program))
  if (example) {
    const error = ensureExampleBuilt(example)
    if (error) throw new StrideError(error, 'tool-missing')
  }
  assertRunnableProgram(program)
  return realpathSync(program)
}

/** Attach: the names must be functions of the process's executable or of a loaded shared object. */
export async function checkFunctionsInProcess(pid: number, functions: string[]): Promise<void> {
  const exe = processExecutable(pid)
  const elf = await readElf(exe)
  const modules = new ModuleMap()
  if (!modules.refresh(pid)) throw new StrideError(`Process ${pid} is gone (it exited or the PID is wrong); pick a running process from the list.`, 'not-found')
  const main = modules.byPath(exe)
  if (!main) {
    await checkFunctions(exe, functions)
    return
  }
  await resolveInProcess(elf, main, modules.all(), functions).catch(async () => {
    await checkFunctions(exe, functions)
  })
}

export function defaultSessionPath(program: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  return join(sessionsDir(), `${basename(program)}-${stamp}.stride`)
}

/** Longest wait for running jobs at shutdown (a trace names its points after it stops). */
const DISPOSE_WAIT_MS = 65_000

/** What the desktop shell adds: its own file dialog (web mode has none). */
export interface ServiceOptions {
  chooseFile?: (purpose: FilePurpose) => Promise<string | null>
}

export function createStrideService(options: ServiceOptions = {}): StrideBackend {
  const jobs = new JobManager()
  const attachJobs = new AttachJobs()
  // The first report or what-if run should not wait for a thread start and module loading,
  // nor the first trace for its worker's (jobs.ts keeps a spare after each trace).
  taskPool.warm()
  warmTraceWorker(true)
  /** A part a job's worker built ahead for this run (ReadyReports), taken once; else null and the pool builds it. */
  const ready = (session: string, run: number | null, part: ReadyPart): Uint8Array | null => (run !== null ? jobs.readyReports.take(session, run, part) : null)

  const handlers: Handlers = {
    listExamples: () => listExamples(),
    hostHierarchy: () => hostHierarchy(),
    inspectProgram: async ({ program }) => inspectProgram(prepareProgram(program)),
    startTrace: async (input, { client }) => {
      const program = prepareProgram(input.program)
      const functions = await checkFunctions(program, input.functions)
      const out = resolve(input.out ?? defaultSessionPath(program))
      checkSessionOutput(out, { program, flag: 'The session file' })
      mkdirSync(resolve(out, '..'), { recursive: true })
      // One writer per session file: a trace to a session another trace is writing is refused now.
      const lock = lockSessionForRecording(out, `Stride's app or server, tracing ${program}`)
      try {
        return { jobId: jobs.startTrace(client, { ...input, program, functions, out }, lock) }
      } catch (e) {
        lock.release()
        throw e
      }
    },
    simulate: ({ session, config, parent }, { client }) => {
      openSessionDb(session, { readonly: true }).close() // fail now, clearly, on a bad file
      return { jobId: jobs.startSimulate(client, resolve(session), config, parent) }
    },
    renameRun: ({ session, run, label }) => {
      const db = openSessionDb(session)
      try {
        renameRun(db, run, cleanLabel(label))
        return readRuns(db)
      } finally {
        db.close()
      }
    },
    cancelJob: ({ jobId }) => ({ cancelled: jobs.cancel(jobId) || attachJobs.cancel(jobId) }),
    openSession: ({ path }) => {
      const db = openSessionDb(path, { readonly: true })
      try {
        const info = readSessionInfo(db, path)
        rememberSession(info.path, info.program)
        return info
      } finally {
        db.close()
      }
    },
    // Off the main thread: the Electron main process (or the web server) stays responsive.
    getReport: async ({ session, run }, context) => new JsonText(ready(session, run, 'report') ?? (await forCall(taskPool.run('report', { session, run }), context))),
    getRunFigures: async ({ session, run }, context) => new JsonText(ready(session, run, 'figures') ?? (await forCall(taskPool.run('report', { session, run, part: 'figures' }), context))),
    getSource: ({ session, file }) => {
      const db = openSessionDb(session, { readonly: true })
      let known: unknown
      try {
        // Only files the session's debug information names: the UI cannot read anything else.
        known = db.prepare('SELECT 1 FROM points WHERE file = ? LIMIT 1').get(file)
      } finally {
        db.close()
      }
      if (!known) throw new StrideError(`"${file}" is not a source file of this session.`, 'not-found')
      // A library's line table can name its sources relative to a build tree elsewhere
      // (glibc's ./string/...): never resolve that against Stride's own working directory.
      if (!isAbsolute(file)) throw new StrideError(`Source file "${file}" is relative to the build directory of the library it comes from, not on this machine; its lines are still listed in the table.`, 'not-found')
      let size: number
      try {
        size = statSync(file).size
      } catch {
        throw new StrideError(`Source file "${file}" is not on this machine (moved or built elsewhere); lines are still listed in the table.`, 'not-found')
      }
      if (size > MAX_SOURCE_BYTES) throw new StrideError(`Source file "${file}" is larger than 8 MiB; open it in an editor.`, 'invalid-input')
      return { path: file, text: readFileSync(file, 'utf8') }
    },
    recentSessions: () => recentSessions(),
    // ---- Advisor ----
    // In a worker: the diagnosis replays the trace (the three Cs per reference), seconds on
    // large sessions.
    getAdvice: async ({ session, run, level }, context) => {
      const made = level !== null ? ready(session, run, `advice:${level}`) : null
      return made ? new JsonText<ApiResults['getAdvice']>(made) : forCall(taskPool.run('advice', { session, run, level }), context)
    },
    // In a worker: two passes over the trace with each access's thread.
    getSharedLines: ({ session, lineSize }, context) => forCall(taskPool.run('sharing', { session, lineSize }), context),
    // In a worker: one pass over the trace.
    getThreadBreakdown: ({ session }, context) => forCall(taskPool.run('threads', { session }), context),
    // In a worker: one pass of Mohan's detectors over the stored trace, then kept in the session.
    computeFunctionStreams: ({ session }, context) => forCall(taskPool.run('functionStreams', { session }), context),
    // In a worker: the run's report rolled up by function (a whole program's thousands of points).
    hotFunctions: ({ session, run }, context) => {
      const db = openSessionDb(session, { readonly: true }) // fail now, clearly, on a bad file
      try {
        const info = readSessionInfo(db, session)
        if (info.functions.length > 0)
          throw new StrideError(`This session traced only ${info.functions.join(', ')}; finding hot functions needs a whole-program trace (no function chosen).`, 'invalid-input')
      } finally {
        db.close()
      }
      return forCall(taskPool.run('hotFunctions', { session: resolve(session), run }), context)
    },
    // ---- Frida attach ----
    listProcesses: async ({ filter }) => {
      const list = await fridaOwner().listProcesses()
      return { ...list, processes: filterProcesses(list.processes, filter) }
    },
    inspectProcess: ({ pid, module }) => inspectProcess(pid, module),
    startAttach: async (input, { client }) => {
      if (input.target.kind === 'attach' && input.target.pid === process.pid)
        throw new StrideError('Stride cannot trace itself; pick another process.', 'invalid-input')
      const target = input.target.kind === 'spawn' ? { ...input.target, program: prepareProgram(input.target.program) } : input.target
      // Names, process and Frida are checked now, so Start answers at once and clearly.
      if (target.kind === 'spawn') await checkFunctions(target.program, input.functions)
      else await checkFunctionsInProcess(target.pid, input.functions)
      await fridaOwner().check()
      const out = resolve(input.out ?? defaultSessionPath(target.kind === 'spawn' ? target.program : `pid${target.pid}`))
      checkSessionOutput(out, { program: target.kind === 'spawn' ? target.program : null, flag: 'The session file' })
      mkdirSync(resolve(out, '..'), { recursive: true })
      const lock = lockSessionForRecording(out, `Stride's app or server, tracing ${target.kind === 'spawn' ? target.program : `pid ${target.pid}`} with Frida`)
      try {
        return { jobId: attachJobs.start(client, { ...input, target, out }, lock) }
      } catch (e) {
        lock.release()
        throw e
      }
    },
    // Data structures ranked by misses: one simulated pass in a worker thread.
    getObjects: ({ session, ...options }, context) => {
      openSessionDb(session, { readonly: true }).close() // fail now, clearly, on a bad file
      return forCall(taskPool.run('objects', { session: resolve(session), options }, context.progress), context)
    },
    // Query slices: SQL and array-section re-simulation in a pool worker.
    querySlice: (input, context) => forCall(taskPool.run('query', input, context.progress), context),
    listDirectory: ({ path, purpose }) => listDirectory(path, purpose),
    checkPath: ({ path, purpose }) => checkPath(path, purpose),
    chooseFile: async ({ purpose }) => (options.chooseFile ? { available: true, path: await options.chooseFile(purpose) } : { available: false, path: null })
  }

  return {
    async call(method, input, context = detachedContext()) {
      if (!Object.prototype.hasOwnProperty.call(handlers, method)) throw new StrideError(`Unknown API method "${String(method)}".`)
      const parsed = parseApiInput(method, input)
      const handler = handlers[method] as (i: unknown, c: CallContext) => unknown
      return await handler(parsed, context)
    },
    subscribe: (client, listener) => {
      const offTraces = jobs.subscribe(client, listener)
      const offAttach = attachJobs.subscribe(client, listener)
      return () => {
        offTraces()
        offAttach()
      }
    },
    async dispose() {
      // Running traces stop and finish their sessions (partial, "cancelled") before we return,
      // bounded so a stuck worker cannot hold the shutdown forever.
      const wound = Promise.all([jobs.cancelAll(), attachJobs.cancelAll()])
      await Promise.race([wound, new Promise((resolve) => setTimeout(resolve, DISPOSE_WAIT_MS).unref())])
    }
  }
}
