/**
 * Messages across the Frida owner's boundary (structured-cloned; small: counts, lists and
 * paths, never trace data, which stays in the owner process and the session file). One
 * process, the owner, loads the `frida` binding (in two threads of one process the second
 * breaks; a worker thread holding it crashes Node at teardown), so the availability check,
 * the process list and every trace are requests to it, each with an id its answers carry.
 */
import type { FunctionProgress, ProcessList, TraceStopReason } from '../../../shared/domain'
import type { StrideErrorCode } from '../../../shared/errors'
import type { OutputChunk } from '../../../shared/api'
import type { FridaDetached, FridaTraceOptions } from './frida-tracer'

export type AttachWorkerInput = FridaTraceOptions & { out: string }

export type AttachWorkerMessage =
  | { type: 'progress'; phase: 'tracing' | 'symbolizing'; events: number; total: number | null; functions: FunctionProgress[]; detached?: FridaDetached }
  /** A launched program's output, in batches (OutputBatcher), ahead of the trace's end. */
  | { type: 'output'; chunks: OutputChunk[]; dropped: number }
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

/** Stride -> the owner. */
export type FridaOwnerRequest =
  | { type: 'check'; id: number }
  | { type: 'list-processes'; id: number }
  | { type: 'trace'; id: number; input: AttachWorkerInput }
  | { type: 'stop'; id: number }

/** The owner -> Stride. */
export type FridaOwnerReply =
  | { type: 'checked'; id: number; error: { message: string; code: StrideErrorCode } | null }
  | { type: 'processes'; id: number; list: ProcessList }
  | { type: 'trace'; id: number; message: AttachWorkerMessage }
