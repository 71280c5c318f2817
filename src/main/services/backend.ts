/**
 * The backend as the two bridges (Electron IPC in src/main/index.ts, the web-mode
 * WebSocket server in src/main/server) see it: one `call` that validates and dispatches a
 * StrideApi method, and one event stream. Bridges must not know anything else.
 */
import type { ApiEventName, ApiEvents, ApiMethod } from '../../shared/api'

export type BackendEventListener = <E extends ApiEventName>(event: E, payload: ApiEvents[E]) => void

export interface StrideBackend {
  /** Validates `input` against the method's schema; rejects with StrideError on bad input. */
  call(method: ApiMethod, input: unknown): Promise<unknown>
  /** Subscribe to progress/finished/failed events of all jobs. Returns an unsubscribe function. */
  subscribe(listener: BackendEventListener): () => void
  /** Cancels running jobs (their partial sessions are kept) and releases resources. */
  dispose(): Promise<void>
}
