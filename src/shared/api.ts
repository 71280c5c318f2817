/**
 * The one contract between the renderer and the backend: `StrideApi`, carried as the wire
 * messages below over the web-mode WebSocket or the desktop window's IPC channel (the
 * preload exposes only that transport), with one client for both (src/renderer/api). The
 * backend implements it once (src/main/services/stride-service.ts) and validates every
 * input with `API_INPUT_SCHEMAS` before acting on it.
 */
import { z } from 'zod'
import { StrideError, type StrideErrorCode } from './errors'
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
  RecentSession,
  RunAdvice,
  RunReport,
  SessionInfo,
  SourceFile,
  TraceStopReason
} from './domain'

const levelName = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,15}$/, 'a level name like L1')
const powerOfTwo = (what: string) =>
  z
    .number()
    .int()
    .positive()
    .refine((n) => (n & (n - 1)) === 0, `${what} must be a power of two`)

export const cacheLevelSchema = z
  .object({
    name: levelName,
    // The simulator keeps state for every line: a larger "cache" is a mistyped size.
    size: z.number().int().positive().max(2 ** 29, 'a cache level holds at most 512 MiB'),
    assoc: z.number().int().positive().max(1024),
    lineSize: powerOfTwo('line size').refine((n) => n >= 4 && n <= 4096, 'line size must be 4..4096 bytes'),
    policy: z.enum(['lru', 'fifo', 'plru', 'random']).default('lru'),
    seed: z.number().int().min(0).max(2 ** 32 - 1).optional(),
    writePolicy: z.enum(['write-back', 'write-through']).optional(),
    writeAllocate: z.boolean().optional(),
    inclusive: z.boolean().optional(),
    prefetch: z.enum(['none', 'next-line', 'stride']).optional()
  })
  .refine((l) => l.policy !== 'plru' || (l.assoc & (l.assoc - 1)) === 0, 'tree-PLRU needs a power-of-two associativity')
  .refine((l) => l.size % (l.assoc * l.lineSize) === 0, 'size must be a multiple of associativity x line size')
  .refine((l) => {
    const sets = l.size / (l.assoc * l.lineSize)
    return (sets & (sets - 1)) === 0
  }, 'the number of sets (size / (associativity x line size)) must be a power of two')

export const tlbLevelSchema = z
  .object({
    name: levelName,
    entries: z.number().int().positive().max(1 << 16, 'a TLB level holds at most 65,536 entries'),
    assoc: z.number().int().positive().max(1 << 16),
    pageSize: powerOfTwo('page size').refine((n) => n >= 256 && n <= 2 ** 30, 'page size must be 256 bytes..1 GiB'),
    policy: z.enum(['lru', 'fifo', 'plru', 'random']).optional()
  })
  .refine((t) => t.entries % t.assoc === 0, 'entries must be a multiple of the associativity')
  .refine((t) => {
    const sets = t.entries / t.assoc
    return (sets & (sets - 1)) === 0
  }, 'the number of TLB sets (entries / associativity) must be a power of two')

const variableName = z.string().min(1).max(512)
export const layoutFilterSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('external'), variable: variableName, bytes: z.number().int().min(0).max(2 ** 40) }).strict(),
  z
    .object({
      kind: z.literal('internal'),
      variable: variableName,
      dim: z.number().int().min(0).max(31),
      extent: z.number().int().positive().max(2 ** 40),
      order: z.enum(['row', 'column']).default('row'),
      dims: z.array(z.number().int().positive()).min(1).max(32).optional(),
      elementSize: z.number().int().positive().max(1 << 20).optional()
    })
    .strict()
])

export const hierarchySchema = z.object({
  levels: z.array(cacheLevelSchema).min(1).max(8),
  cachegrindCompatible: z.boolean().default(false),
  tlb: z.array(tlbLevelSchema).max(2).optional(),
  layout: z.array(layoutFilterSchema).max(256).optional(),
  timelineInterval: z.number().int().positive().nullable().optional()
})

const sessionPath = z.string().min(1).max(4096)
/** What a file is being picked for: a program to trace, or a session to open. */
const filePurpose = z.enum(['program', 'session'])

// ---- Frida attach ----
/** Mohan et al. section 4 sampling modes (src/agent/protocol.ts SamplingMode). */
export const samplingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('complete') }).strict(),
  z.object({ kind: z.literal('max-samples'), samples: z.number().int().positive().max(1e9) }).strict(),
  z.object({ kind: z.literal('periodic'), periodMs: z.number().int().min(1).max(3_600_000), intervalMs: z.number().int().min(1).max(3_600_000) }).strict(),
  z.object({ kind: z.literal('convergence'), threshold: z.number().positive().max(10), minSamples: z.number().int().min(2).max(1e6).default(2) }).strict()
])
const pid = z.number().int().min(1).max(2 ** 22)
export const attachTargetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('attach'), pid }).strict(),
  z.object({ kind: z.literal('spawn'), program: z.string().min(1).max(4096), args: z.array(z.string().max(4096)).max(256).default([]) }).strict()
])
// --- getObjects: data structures ranked by misses, four methods next to exact ---
export const objectsInputSchema = z
  .object({
    session: sessionPath,
    run: z.number().int().positive().nullable().default(null),
    level: levelName.nullable().default(null),
    methods: z.array(z.enum(['exact', 'sample', 'search', 'approx-raw', 'approx-loop', 'approx-skid'])).min(1).max(6).default(['exact', 'sample', 'search', 'approx-raw', 'approx-loop', 'approx-skid']),
    sampleEvery: z.number().int().min(1).max(1e9).nullable().default(null),
    sampleInterval: z.enum(['prime', 'random', 'regular']).default('prime'),
    ways: z.number().int().min(2).max(64).default(10),
    threshold: z.number().min(0).max(1).default(0.01),
    searchInterval: z.number().int().positive().max(1e12).nullable().default(null),
    approxEvery: z.number().int().min(1).max(1e9).default(1),
    loopThreshold: z.number().min(0).max(1).default(0.75),
    skid: z.object({ mean: z.number().min(-50).max(50), sigma: z.number().min(0).max(50) }).strict().nullable().default(null),
    approxSource: z.enum(['simulated', 'perf']).default('simulated')
  })
  .strict()

export const API_INPUT_SCHEMAS = {
  listExamples: z.object({}).strict(),
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
  simulate: z.object({ session: sessionPath, config: hierarchySchema }).strict(),
  cancelJob: z.object({ jobId: z.string().min(1).max(64) }).strict(),
  openSession: z.object({ path: sessionPath }).strict(),
  getReport: z.object({ session: sessionPath, run: z.number().int().positive().nullable().default(null) }).strict(),
  getSource: z.object({ session: sessionPath, file: z.string().min(1).max(4096) }).strict(),
  recentSessions: z.object({}).strict(),
  // ---- Advisor ----
  /** METRIC Fig. 8 / Mohan Table 1 diagnoses of a run's hot references at one cache level (default: the innermost). */
  getAdvice: z
    .object({ session: sessionPath, run: z.number().int().positive().nullable().default(null), level: levelName.nullable().default(null) })
    .strict(),
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
  /** A folder inside the user's home or the bundled examples (web mode's file browser). */
  listDirectory: z.object({ path: z.string().min(1).max(4096).nullable().default(null), purpose: filePurpose }).strict(),
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

/**
 * Job events, delivered only to the client that started the job (a window, or a browser tab
 * across its reconnections).
 */
export interface ApiEvents {
  progress: JobProgress
  finished: JobFinished
  failed: JobFailed
}
export type ApiEventName = keyof ApiEvents
export const API_EVENT_NAMES: readonly ApiEventName[] = ['progress', 'finished', 'failed']

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
  inspectProgram: ProgramSymbols
  startTrace: JobStarted
  simulate: JobStarted
  cancelJob: { cancelled: boolean }
  openSession: SessionInfo
  getReport: RunReport
  getSource: SourceFile
  recentSessions: RecentSession[]
  // ---- Advisor ----
  getAdvice: RunAdvice
  listProcesses: ProcessList
  inspectProcess: ProcessInspection
  startAttach: JobStarted
  getObjects: ObjectsReport
  querySlice: QuerySlice
  listDirectory: DirectoryListing
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
