/**
 * The wire between Stride's Frida agent and the host (src/main/tracing/frida/): message
 * shapes both sides agree on, and the binary layouts of the ring records and the agent's
 * shared state. Pure: no Frida or Node globals, so the agent bundle and the host both
 * import it. The C side (cmodule/stride-cmodule.h) must match RECORD_* and STATE_*; the
 * native test checks the layout against the C compiler's offsetof.
 */
import type { SamplingMode } from '../shared/domain'

/** One ring record: u8 type, u8 kind, u16 size, u32 thread, u64 a, u64 b, u64 c (little-endian). */
export const RECORD_BYTES = 32
export const RECORD = { type: 0, kind: 1, size: 2, thread: 4, a: 8, b: 16, c: 24 } as const

export const RecordType = {
  access: 1,
  enter: 2,
  exit: 3,
  alloc: 4,
  free: 5,
  frame: 6,
  untraced: 7
} as const

export const AllocKind = { malloc: 0, calloc: 1, realloc: 2 } as const

export const UntracedReason = { gather: 1, repScan: 2, segment: 3, operand: 4 } as const

/** StrideState (stride-cmodule.h) field offsets on a 64-bit target. */
export const STATE = { head: 0, tail: 4, lost: 8, enabled: 12, capacity: 16, rangeCount: 20, ranges: 24, records: 32, untraced: 40, spinLimit: 44 } as const
export const STATE_BYTES = 48

/** Mohan et al. section 4: how much of each chosen function is sampled (the API's schema). */
export type { SamplingMode }

export interface AgentFunction {
  name: string
  /** Runtime start address, hex ("0x..."). */
  start: string
  size: number
}

/** Host -> agent. */
export type HostMessage =
  | {
      type: 'start'
      functions: AgentFunction[]
      sampling: SamplingMode
      /** Record every allocator (malloc family, aligned allocators; C++ new reaches malloc) and free with a short backtrace. */
      trackHeap: boolean
      /** Ring slots (a power of two). */
      ringCapacity: number
      /** Batches sent and not yet acknowledged before the agent stops draining (backpressure). */
      maxInFlight: number
    }
  | { type: 'ack'; seq: number }
  /** The host decided this function is sampled enough (convergence). */
  | { type: 'stop-function'; start: string }
  | { type: 'stop' }

/** Agent -> host (the payload of `send`). */
export type AgentMessage =
  | {
      type: 'ready'
      arch: string
      pid: number
      functions: string[]
      /** Per function: memory-touching instructions Interceptor relocates out of its range (not recorded, once per call). */
      prologue?: Record<string, number>
    }
  /** A failure the agent can name; `code` maps to a StrideError on the host. */
  | { type: 'fatal'; code: 'architecture' | 'function-not-found' | 'cmodule'; message: string }
  /** `records` x RECORD_BYTES bytes follow as the message's binary data. */
  | { type: 'batch'; seq: number; records: number; lost: number; untraced: number }
  | { type: 'sampling'; start: string; state: 'removed' | 'paused' | 'resumed' }
  /** Every function has finished sampling (max-samples): nothing more will come. */
  | { type: 'sampling-done' }
  /** The target crashed (Frida's exception handler); sent before the last records. */
  | { type: 'crash'; description: string }
  | { type: 'stopped'; lost: number; untraced: number }
  /** The program called exit or _exit with this status (sent before Frida's own exit handling ends the script). */
  | { type: 'exit'; code: number }
