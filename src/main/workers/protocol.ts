/**
 * Messages across the worker boundary. Everything here is structured-cloned; nothing is
 * transferred (the payloads are small: counts and paths, never trace data).
 */
import type { HierarchyConfig, QuerySlice, SliceReduction, TraceStopReason, RunReport, RunAdvice } from '../../shared/domain'
import type { StrideErrorCode } from '../../shared/errors'

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
  /** 'inherit' (the CLI): the program reads Stride's stdin and writes to its terminal. */
  stdio?: 'inherit' | 'pipe'
}

/** Hierarchies to simulate over one session's trace, in one pass (each chunk decoded once). */
export interface SimulateWorkerInput {
  session: string
  configs: HierarchyConfig[]
}

/** Parent -> worker. */
/** A stored run to read back as the API's RunReport (null: the latest). */
export interface ReportWorkerInput {
  session: string
  run: number | null
  /** Present: diagnose the run at this cache level (null: its first) and answer advice-done. */
  advice?: { level: string | null }
}

/** A slice query over one stored run (null: the latest), SIGMA notation text. */
export interface QueryWorkerInput {
  session: string
  run: number | null
  query: string
  reduction: SliceReduction
}

export type WorkerCommand = { type: 'stop' }

/** Worker -> parent. */
export type WorkerMessage =
  | { type: 'progress'; phase: 'tracing' | 'symbolizing' | 'simulating' | 'saving'; events: number; total: number | null }
  | { type: 'trace-done'; session: string; events: number; partial: boolean; stopReason: TraceStopReason; message: string | null }
  /** `runs[i]` is the stored run of `configs[i]` (empty when cancelled: nothing is stored). */
  | { type: 'simulate-done'; session: string; runs: number[]; accesses: number; cancelled: boolean }
  | { type: 'report-done'; report: RunReport }
  | { type: 'advice-done'; advice: RunAdvice }
  | { type: 'query-done'; slice: QuerySlice }
  | { type: 'error'; message: string; code: StrideErrorCode; session: string | null }
