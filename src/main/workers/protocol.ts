/**
 * Messages across the worker boundary. Everything here is structured-cloned; nothing is
 * transferred (the payloads are small: counts, paths, reports, a stored run's rows as flat
 * typed arrays; never trace data). A run's
 * report crosses as its JSON text: one flat string, sent to the client as it is, instead of
 * a large object graph cloned and then serialized on the main thread.
 */
import type { FunctionStreams, HierarchyConfig, ObjectsOptions, ObjectsReport, QuerySlice, SliceReduction, TraceStopReason, RunId, RunReport, RunAdvice, SessionInfo, SharedLines, ThreadBreakdown } from '../../shared/domain'
import type { StrideErrorCode } from '../../shared/errors'
import type { OutputChunk } from '../../shared/api'
import type { HotFunctions } from '../../shared/hot-functions'
import type { SessionCache } from './session-cache'
import type { KeptRun } from '../store/run-rows'
import type { CheckedSession } from '../store/checked-sessions'
import type { ProgramDetached } from '../tracing/valgrind/valgrind-tracer'
import type { FirstRun } from '../session-analysis/first-simulation'
import type { StoredTraceSummary } from '../tracing/session-symbols'

export interface TraceWorkerInput {
  program: string
  args: string[]
  functions: string[]
  maxEvents: number | null
  maxSeconds: number | null
  out: string
  /** Preload the allocation interposer (heap blocks named by allocation context). */
  trackHeap: boolean
  /** Also record what the chosen functions call (Stride's Valgrind tool only). */
  followCalls?: boolean
  /** At the event or time limit: 'detach' lets the program run on uninstrumented, 'stop' ends it. */
  afterLimit?: 'detach' | 'stop'
  /** The first simulation: run beside the naming and stored with the trace when it can be (`firstRun`). */
  simulate?: HierarchyConfig
  /**
   * With `functions` and `simulate`: warm the first simulation with the rest of the program's
   * accesses (default), or false for the cold, function-only run (`--no-context`).
   */
  context?: boolean
  /**
   * Also build that run's report for a client that asks for it next: 'json', its JSON bytes
   * (`firstReport`, the app's getReport); 'lines', the lines `stride trace --cache` prints
   * (`firstReportLines`: no JSON made here to be parsed there).
   */
  reportFirstRun?: 'json' | 'lines'
  /** 'inherit' (the CLI): the program reads Stride's stdin and writes to its terminal. */
  stdio?: 'inherit' | 'pipe'
}

export type ProgressPhase = 'tracing' | 'symbolizing' | 'simulating' | 'saving'

/** How a trace worker is started (its workerData): it then waits for its trace. */
export interface TraceWorkerStart {
  /** Load the tracer's modules while waiting (a spare kept for a later trace), not on demand. */
  preload: boolean
}

/** Parent -> trace worker: the trace to run (once), then perhaps a stop. */
export type WorkerCommand = { type: 'start'; input: TraceWorkerInput } | { type: 'stop' }

/** The advisor's diagnosis of the first run at `level`, as stored with the session (first-views.ts): JSON bytes, for the app's getAdvice. */
export interface FirstAdvice {
  level: string
  json: Uint8Array
}

/** Trace worker -> parent. */
export type WorkerMessage =
  | { type: 'progress'; phase: ProgressPhase; events: number; total: number | null; detached?: ProgramDetached }
  | { type: 'output'; chunks: OutputChunk[]; dropped: number }
  | { type: 'trace-done'; session: string; events: number; partial: boolean; stopReason: TraceStopReason; message: string | null; firstRun: FirstRun | null; firstReport?: Uint8Array; firstReportLines?: string; firstAdvice?: FirstAdvice; stored: StoredTraceSummary & Pick<SessionInfo, 'programExit' | 'recorderNote'> }
  | { type: 'error'; message: string; code: StrideErrorCode; session: string | null }

// ---- The warm pool's tasks (workers/pool.ts, workers/task-worker.ts) ----

/** Hierarchies to simulate over one session's trace, in one pass (each chunk decoded once). */
export interface SimulateTaskInput {
  session: string
  configs: HierarchyConfig[]
  /**
   * Hand each run's rows out as it is being stored (`PendingRun`, a `partial` message), ahead of
   * the result: the CLI reports on its main thread while the worker writes. The app asks this
   * worker for its reports instead.
   */
  withRows?: boolean
  /** TLB levels on a thread of their own (NativeHierarchy's `tlbThread`): whether a sweep's workers leave cores free. */
  tlbThread?: boolean
  /** The run a what-if was made from, stored with the first config's run (its label is read against it). */
  parent?: RunId | null
  /**
   * The first config's run's figures (shared/report-figures.ts), as JSON bytes, built on the
   * session just written: the app asks for them next (getRunFigures), and would otherwise wait
   * for another worker to open and check the file written a moment ago, then build them again.
   */
  figures?: boolean
  /**
   * A session without a stored first level keeps the one this task replays (store/
   * first-level-store.ts), for later what-ifs below it (default true; one worker of a sweep).
   */
  keepFirstLevel?: boolean
}
/** `runs[i]` is the stored run of `configs[i]` (empty when cancelled: nothing is stored). */
export interface SimulateResult {
  runs: RunId[]
  accesses: number
  cancelled: boolean
  /** With `figures`: run `runs[0]`'s figures as JSON bytes (null: they could not be built; the client asks as for any run). */
  figures?: Uint8Array | null
}
/**
 * With `withRows`: run `run` of `configs[index]`, handed out inside its transaction, before the
 * rest of it is written (store/runs.ts storeRun's `ahead`). It is in the file once the task's
 * result says so; a task that fails after it stored nothing of it. The rows are flat (~0.4 MB
 * for 5,000 points).
 */
export interface PendingRun {
  index: number
  run: RunId
  rows: KeptRun
}

/** A stored run to read back as the API's RunReport (null: the latest). */
export interface ReportTaskInput {
  session: string
  run: RunId | null
}
/** A report task answers the whole report, or its figures only (shared/report-figures.ts). */
export interface ReportPartTaskInput extends ReportTaskInput {
  part?: 'report' | 'figures'
}
/** The advisor's diagnosis of a run at one cache level (null: its first). */
export interface AdviceTaskInput extends ReportTaskInput {
  level: string | null
}

/** A slice query over one stored run (null: the latest), SIGMA notation text. */
export interface QueryTaskInput {
  session: string
  run: RunId | null
  query: string
  reduction: SliceReduction
}

/** Mohan's function statistics of a session, computed from its trace and kept in it. */
export interface FunctionStreamsTaskInput {
  session: string
}

/** The lines a session's threads share, at one line size. */
export interface SharingTaskInput {
  session: string
  lineSize: number
}

export interface ObjectsTaskInput {
  session: string
  options: ObjectsOptions
}

/** Every task the pool runs: its input, its result, and what it may hand out ahead of the result (`partial`). */
export interface PoolTasks {
  simulate: { input: SimulateTaskInput; result: SimulateResult; partial: PendingRun }
  /** The report's JSON as UTF-8 bytes (JsonText.bytesOf). */
  report: { input: ReportPartTaskInput; result: Uint8Array; partial: never }
  advice: { input: AdviceTaskInput; result: RunAdvice; partial: never }
  sharing: { input: SharingTaskInput; result: SharedLines; partial: never }
  threads: { input: FunctionStreamsTaskInput; result: ThreadBreakdown; partial: never }
  query: { input: QueryTaskInput; result: QuerySlice; partial: never }
  objects: { input: ObjectsTaskInput; result: ObjectsReport; partial: never }
  functionStreams: { input: FunctionStreamsTaskInput; result: FunctionStreams[]; partial: never }
  hotFunctions: { input: ReportTaskInput; result: HotFunctions; partial: never }
}
export type PoolTaskKind = keyof PoolTasks

/** What a running task may do besides returning: report progress, hand out part of its result ahead of it, notice a stop, and use the worker's kept sessions. */
export interface TaskContext {
  progress(phase: ProgressPhase, events: number, total: number | null): void
  partial(value: unknown): void
  shouldStop(): boolean
  /** The worker's sessions, kept between its tasks while their files are unchanged. */
  sessions: SessionCache
}

/**
 * Parent -> pool worker: one task at a time, and stop for the one running. `stopFlag` is the
 * worker's shared cell: the parent stores a task's id there to stop it, which the task sees at
 * its next check without yielding (a stop message waits for the worker's event loop).
 * `checked`: the sessions the parent found intact, each trusted while its file is unchanged.
 */
export type PoolCommand = { type: 'task'; id: number; kind: PoolTaskKind; input: unknown; stopFlag: Int32Array; checked: CheckedSession[] } | { type: 'stop'; id: number }

/** Pool worker -> parent, each tagged with its task's id. */
export type PoolMessage =
  | { type: 'progress'; id: number; phase: ProgressPhase; events: number; total: number | null }
  | { type: 'partial'; id: number; value: unknown }
  | { type: 'done'; id: number; result: unknown }
  | { type: 'error'; id: number; message: string; code: StrideErrorCode }
