/**
 * The one contract between the renderer and the backend: `StrideApi`, carried as the wire
 * messages below over the web-mode WebSocket or the desktop window's IPC channel (the
 * preload exposes only that transport), with one client for both (src/renderer/api). The
 * backend implements it once (src/main/services/stride-service.ts) and validates every
 * input with `API_INPUT_SCHEMAS` before acting on it.
 */
import { z } from 'zod'
import { StrideError, type StrideErrorCode } from './errors'
import { MAX_RUN_LABEL } from './run-labels'
import { attachTargetSchema, hierarchySchema, levelName, objectsOptionsSchema, pid, powerOfTwo, samplingSchema } from './schemas'
import type {
  ExampleProgram,
  FunctionProgress,
  ProcessInspection,
  ProcessList,
  ObjectsReport,
  ProgramSymbols,
  QuerySlice,
  DirectoryListing,
  FileChoice,
  CheckedPath,
  HostHierarchy,
  RecentSession,
  RunAdvice,
  FunctionStreams,
  RunReport,
  RunFigures,
  RunSummary,
  SessionInfo,
  SourceFile,
  TraceStopReason,
  SharedLines,
  ThreadBreakdown
} from './domain'
import type { HotFunctions } from './hot-functions'

const sessionPath = z.string().min(1).max(4096)
/** What a file is being picked for: a program to trace, or a session to open. */
const filePurpose = z.enum(['program', 'session'])

// --- getObjects: data structures ranked by misses, four methods next to exact ---
export const objectsInputSchema = z.object({ session: sessionPath, ...objectsOptionsSchema.shape }).strict()

export const API_INPUT_SCHEMAS = {
  listExamples: z.object({}).strict(),
  /** This machine's D1 and LL as Cachegrind simulates them: the default hierarchy. */
  hostHierarchy: z.object({}).strict(),
  inspectProgram: z.object({ program: z.string().min(1).max(4096) }).strict(),
  startTrace: z
    .object({
      program: z.string().min(1).max(4096),
      args: z.array(z.string().max(4096)).max(256).default([]),
      functions: z.array(z.string().min(1).max(512)).max(1000).default([]),
      maxEvents: z.number().int().positive().max(1e12).nullable().default(null),
      maxSeconds: z.number().positive().max(24 * 86400, 'a time limit is at most 24 days').nullable().default(null),
      /** Name heap blocks by allocation context (preloads Stride's malloc interposer). */
      trackHeap: z.boolean().default(true),
      /** Also record what the chosen functions call (needs functions). */
      followCalls: z.boolean().default(false),
      /** At the event or time limit: the program runs on uninstrumented ('detach') or is stopped. */
      afterLimit: z.enum(['detach', 'stop']).default('detach'),
      /** Where to write the session; a fresh file in the sessions folder when omitted. */
      out: sessionPath.nullable().default(null),
      /** Simulate right after tracing (what the launch dialog does). */
      simulate: hierarchySchema.nullable().default(null)
    })
    .strict(),
  /** `parent`: the run a what-if was made from (recorded with the new run; its label is read against it). */
  simulate: z.object({ session: sessionPath, config: hierarchySchema, parent: z.number().int().positive().nullable().default(null) }).strict(),
  /** Gives a run the user's label; an empty one goes back to the derived label. Returns the session's runs. */
  renameRun: z.object({ session: sessionPath, run: z.number().int().positive(), label: z.string().max(MAX_RUN_LABEL * 4) }).strict(),
  cancelJob: z.object({ jobId: z.string().min(1).max(64) }).strict(),
  openSession: z.object({ path: sessionPath }).strict(),
  getReport: z.object({ session: sessionPath, run: z.number().int().positive().nullable().default(null) }).strict(),
  /**
   * A run's report without what no run changes (shared/report-figures.ts): a client holding an
   * earlier report of the same recording (its staticsKey) completes it from that one.
   */
  getRunFigures: z.object({ session: sessionPath, run: z.number().int().positive().nullable().default(null) }).strict(),
  getSource: z.object({ session: sessionPath, file: z.string().min(1).max(4096) }).strict(),
  recentSessions: z.object({}).strict(),
  // ---- Advisor ----
  /** METRIC Fig. 8 / Mohan Table 1 diagnoses of a run's hot references at one cache level (default: the innermost). */
  getAdvice: z
    .object({ session: sessionPath, run: z.number().int().positive().nullable().default(null), level: levelName.nullable().default(null) })
    .strict(),
  /**
   * The cache lines several threads share, one writing (issue 50), found whatever the schedule,
   * at `lineSize` bytes a line: per line each thread's bytes and fields, true or false sharing,
   * and two figures of coherence misses (recorded order; fine interleaving). Two passes over
   * the trace; a session without per-access threads is an error saying so.
   */
  getSharedLines: z
    .object({ session: sessionPath, lineSize: powerOfTwo('line size').refine((n) => n >= 4 && n <= 4096, 'line size must be 4..4096 bytes').default(64) })
    .strict(),
  /** Each reference's accesses per thread (one pass over the trace); a session without per-access threads is an error saying so. */
  getThreadBreakdown: z.object({ session: sessionPath }).strict(),
  /**
   * "What is hot": a whole-program session's functions ranked by the first-level misses of a
   * run (null: the latest), self costs only (shared/hot-functions.ts). The Launch dialog's
   * "Find hot functions" asks it of the whole-program trace it starts.
   */
  hotFunctions: z.object({ session: sessionPath, run: z.number().int().positive().nullable().default(null) }).strict(),
  /** Mohan's stream statistics per function, computed from the stored trace (once; then kept in the session). */
  computeFunctionStreams: z.object({ session: sessionPath }).strict(),
  // ---- Frida attach ----
  listProcesses: z.object({ filter: z.string().max(256).default('') }).strict(),
  inspectProcess: z.object({ pid, module: z.string().min(1).max(4096).nullable().default(null) }).strict(),
  startAttach: z
    .object({
      target: attachTargetSchema,
      functions: z.array(z.string().min(1).max(512)).min(1, 'choose at least one function to trace').max(1000),
      maxEvents: z.number().int().positive().max(1e12).nullable().default(null),
      maxSeconds: z.number().positive().max(24 * 86400, 'a time limit is at most 24 days').nullable().default(null),
      sampling: samplingSchema.default({ kind: 'complete' }),
      trackHeap: z.boolean().default(true),
      out: sessionPath.nullable().default(null),
      simulate: hierarchySchema.nullable().default(null)
    })
    .strict(),
  getObjects: objectsInputSchema,
  // --- Query slices (SIGMA section 3.3) ---
  /** A slice of a run in SIGMA's notation, e.g. [{A,B},{sumfunc},{misses}]; runs in a worker. */
  querySlice: z
    .object({
      session: sessionPath,
      run: z.number().int().positive().nullable().default(null),
      query: z.string().min(1).max(20_000),
      reduction: z.enum(['sum', 'min', 'max']).default('sum')
    })
    .strict(),
  // --- Files ---
  /** A folder the user can read (web mode's file browser; null: the first of its places). */
  listDirectory: z.object({ path: z.string().min(1).max(4096).nullable().default(null), purpose: filePurpose }).strict(),
  /** A typed absolute path, checked: a folder to go into, or a file the purpose can use. */
  checkPath: z.object({ path: z.string().min(1).max(4096), purpose: filePurpose }).strict(),
  /** The desktop app's own file dialog; `available: false` where there is none (web mode). */
  chooseFile: z.object({ purpose: filePurpose }).strict()
} as const

export type ApiMethod = keyof typeof API_INPUT_SCHEMAS
export type ApiInput<M extends ApiMethod> = z.input<(typeof API_INPUT_SCHEMAS)[M]>
export type ApiParsedInput<M extends ApiMethod> = z.output<(typeof API_INPUT_SCHEMAS)[M]>

export interface JobStarted {
  jobId: string
}

export type JobPhase = 'starting' | 'tracing' | 'symbolizing' | 'simulating' | 'saving' | 'done'

export interface JobProgress {
  jobId: string
  kind: 'trace' | 'simulate'
  phase: JobPhase
  /** Accesses captured (tracing) or simulated (simulating). */
  events: number
  /** Total known ahead (simulation), else null. */
  total: number | null
  eventsPerSecond: number
  elapsedMs: number
  message: string | null
  /** Attach traces: per chosen function, sampled calls and accesses so far. */
  functions?: FunctionProgress[]
}

export interface JobFinished {
  jobId: string
  kind: 'trace' | 'simulate'
  /** Session written or updated; present even when the job failed part-way, if anything was kept. */
  session: string | null
  run: number | null
  partial: boolean
  stopReason: TraceStopReason
  message: string | null
}

export interface JobFailed {
  jobId: string
  kind: 'trace' | 'simulate'
  /** One clear line naming the problem and the fix. */
  error: string
  /** A session that still holds what was recorded before the failure. */
  session: string | null
}

/** Most text one output event carries: more written between two events is cut from the front (`dropped`). */
export const MAX_OUTPUT_EVENT_CHARS = 64 * 1024

/**
 * What the traced program wrote (its stdout and stderr, in the order they arrived), sent in
 * batches while it runs: never mixed with Stride's own messages.
 */
export const jobOutputSchema = z
  .object({
    jobId: z.string().min(1).max(100),
    chunks: z.array(z.object({ stream: z.enum(['stdout', 'stderr']), text: z.string().max(MAX_OUTPUT_EVENT_CHARS) }).strict()).max(10_000),
    /** Characters the program wrote before these chunks that no event carries (it wrote faster than they go out). */
    dropped: z.number().int().nonnegative()
  })
  .strict()
export type JobOutput = z.infer<typeof jobOutputSchema>
export type OutputChunk = JobOutput['chunks'][number]

/**
 * Job events, delivered only to the client that started the job (a window, or a browser tab
 * across its reconnections).
 */
export interface ApiEvents {
  progress: JobProgress
  finished: JobFinished
  failed: JobFailed
  /** Trace jobs of a program Stride starts: the program's output. */
  output: JobOutput
}
export type ApiEventName = keyof ApiEvents
export const API_EVENT_NAMES: readonly ApiEventName[] = ['progress', 'finished', 'failed', 'output']

/** Progress of one call that takes a while (a ranking, a slice re-simulating array sections). */
export interface CallProgress {
  /** Accesses simulated so far. */
  events: number
  total: number | null
}

/**
 * Per call: cancel it by aborting the signal (the backend stops the work; the promise rejects
 * with code 'cancelled'), and hear its progress. Jobs outlive their start call: they are
 * cancelled with cancelJob.
 */
export interface CallOptions {
  signal?: AbortSignal
  onProgress?: (progress: CallProgress) => void
}

export interface ApiResults {
  listExamples: ExampleProgram[]
  hostHierarchy: HostHierarchy
  inspectProgram: ProgramSymbols
  startTrace: JobStarted
  simulate: JobStarted
  renameRun: RunSummary[]
  cancelJob: { cancelled: boolean }
  openSession: SessionInfo
  getReport: RunReport
  getRunFigures: RunFigures
  getSource: SourceFile
  recentSessions: RecentSession[]
  // ---- Advisor ----
  getAdvice: RunAdvice
  getSharedLines: SharedLines
  getThreadBreakdown: ThreadBreakdown
  computeFunctionStreams: FunctionStreams[]
  hotFunctions: HotFunctions
  listProcesses: ProcessList
  inspectProcess: ProcessInspection
  startAttach: JobStarted
  getObjects: ObjectsReport
  querySlice: QuerySlice
  listDirectory: DirectoryListing
  checkPath: CheckedPath
  chooseFile: FileChoice
}

/** What the renderer's one API client (src/renderer/api) offers, over either transport. */
export type StrideApi = {
  [M in ApiMethod]: (input: ApiInput<M>, options?: CallOptions) => Promise<ApiResults[M]>
} & {
  on<E extends ApiEventName>(event: E, listener: (payload: ApiEvents[E]) => void): () => void
}

export const API_METHODS = Object.keys(API_INPUT_SCHEMAS) as ApiMethod[]

// The error type lives apart from the schemas so that workers can throw it without loading zod.
export { StrideError, type StrideErrorCode } from './errors'

/** Validate one method's input; throws StrideError with the first problem spelled out. */
export function parseApiInput<M extends ApiMethod>(method: M, input: unknown): ApiParsedInput<M> {
  const schema = API_INPUT_SCHEMAS[method]
  if (!schema) throw new StrideError(`Unknown API method "${String(method)}".`)
  const result = schema.safeParse(input ?? {})
  if (!result.success) {
    const issue = result.error.issues[0]
    const where = issue && issue.path.length > 0 ? ` (${issue.path.join('.')})` : ''
    throw new StrideError(`Invalid input to ${method}${where}: ${issue?.message ?? 'rejected'}.`)
  }
  return result.data as ApiParsedInput<M>
}

/**
 * The wire format of both transports (the web-mode WebSocket and Electron's IPC channel):
 * JSON text. The client numbers its requests and may cancel one by its id; the backend
 * answers each id once, may send progress for it before, and sends job events to the
 * client that started the job.
 */
export type WireRequest = { id: number; method: ApiMethod; input: unknown }
export type WireCancel = { cancel: number }
export type WireResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { message: string; code: StrideErrorCode } }
export type WireProgress = { progress: number; events: number; total: number | null }
export type WireEvent = { event: ApiEventName; payload: unknown }
export type WireServerMessage = WireResponse | WireProgress | WireEvent

/**
 * What the desktop preload exposes as `window.strideTransport`: wire text both ways and
 * nothing else (the renderer's API client runs on top; an AbortSignal or a progress callback
 * could not cross Electron's context bridge intact).
 */
export interface StrideTransport {
  send(text: string): void
  /** The listener gets every message from the backend; returns an unsubscribe function. */
  onMessage(listener: (text: string) => void): () => void
}
