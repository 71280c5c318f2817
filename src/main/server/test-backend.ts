/** A StrideBackend test double: canned answers, recorded calls, events on demand. */
import { StrideError, type ApiEventName, type ApiEvents, type ApiMethod } from '../../shared/api'
import type { BackendEventListener, CallContext, StrideBackend } from '../services/backend'

export class FakeBackend implements StrideBackend {
  readonly calls: Array<{ method: ApiMethod; input: unknown }> = []
  /** Listeners per client id. */
  readonly listeners = new Map<string, Set<BackendEventListener>>()
  /** Clients whose calls were made, in order; and calls whose signal was aborted. */
  readonly clients: string[] = []
  readonly aborted: ApiMethod[] = []
  disposed = false

  async call(method: ApiMethod, input: unknown, context?: CallContext): Promise<unknown> {
    this.calls.push({ method, input })
    if (context) this.clients.push(context.client)
    switch (method) {
      case 'listExamples':
        return [{ name: 'conflict', echo: input }]
      case 'openSession':
        throw new StrideError('No session at /nope.stride; check the path.', 'not-found')
      case 'getReport':
        throw new Error('database handle exploded at /secret/internal/path')
      case 'querySlice':
        // A long call: progress, then it waits until cancelled.
        context?.progress({ events: 1, total: 2 })
        await new Promise<void>((resolve) => {
          if (!context || context.signal.aborted) resolve()
          else context.signal.addEventListener('abort', () => resolve(), { once: true })
        })
        this.aborted.push(method)
        throw new StrideError('Query cancelled.', 'cancelled')
      default:
        return { method, input }
    }
  }

  subscribe(client: string, listener: BackendEventListener): () => void {
    let set = this.listeners.get(client)
    if (!set) this.listeners.set(client, (set = new Set()))
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0) this.listeners.delete(client)
    }
  }

  /** To one client's listeners, or to every client's when none is named. */
  emit<E extends ApiEventName>(event: E, payload: ApiEvents[E], client?: string): void {
    for (const [id, set] of this.listeners) if (client === undefined || id === client) for (const listener of set) listener(event, payload)
  }

  async dispose(): Promise<void> {
    this.disposed = true
  }
}
