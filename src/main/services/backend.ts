/**
 * The backend as the two bridges (Electron IPC in src/main/index.ts, the web-mode
 * WebSocket server in src/main/server) see it: one `call` that validates and dispatches a
 * StrideApi method for one client, and that client's job events. Bridges must not know
 * anything else.
 */
import type { ApiEventName, ApiEvents, ApiMethod, CallProgress } from '../../shared/api'

export type BackendEventListener = <E extends ApiEventName>(event: E, payload: ApiEvents[E]) => void

/** Who is calling, and the call's own channel back. */
export interface CallContext {
  /** The calling client (a window, or a browser tab across reconnections): its jobs' events go to it alone. */
  client: string
  /** Aborted when the client cancels the call or goes away: the work stops. */
  signal: AbortSignal
  progress(progress: CallProgress): void
}

export interface StrideBackend {
  /** Validates `input` against the method's schema; rejects with StrideError on bad input. Without a context: a detached call (tests, the CLI). */
  call(method: ApiMethod, input: unknown, context?: CallContext): Promise<unknown>
  /** Events of the jobs `client` started. Returns an unsubscribe function. */
  subscribe(client: string, listener: BackendEventListener): () => void
  /** Cancels running jobs (their partial sessions are kept) and releases resources. */
  dispose(): Promise<void>
}

/** A context for calls made outside any client (tests, the CLI): never aborted, progress unheard. */
export function detachedContext(client = 'local'): CallContext {
  return { client, signal: new AbortController().signal, progress: () => {} }
}
