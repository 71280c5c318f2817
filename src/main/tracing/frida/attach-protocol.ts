/**
 * Messages across the attach worker's boundary (structured-cloned; small: counts and
 * paths, never trace data, which stays in the worker and the session file).
 */
import type { FunctionProgress, TraceStopReason } from '../../../shared/domain'
import type { StrideErrorCode } from '../../../shared/api'
import type { FridaTraceOptions } from './frida-tracer'

export type AttachWorkerInput = FridaTraceOptions & { out: string }

export type AttachWorkerMessage =
  | { type: 'progress'; phase: 'tracing' | 'symbolizing'; events: number; total: number | null; functions: FunctionProgress[] }
  | {
      type: 'trace-done'
      session: string
      events: number
      partial: boolean
      stopReason: TraceStopReason
      message: string | null
      pid: number
      program: string
      targetAlive: boolean
      functions: FunctionProgress[]
    }
  | { type: 'error'; message: string; code: StrideErrorCode; session: string | null }

export type AttachWorkerCommand = { type: 'stop' }
