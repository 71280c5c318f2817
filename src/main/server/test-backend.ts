/** A StrideBackend test double: canned answers, recorded calls, events on demand. */
import { StrideError, type ApiEventName, type ApiEvents, type ApiMethod } from '../../shared/api'
import type { BackendEventListener, CallContext, StrideBackend } from '../services/backend'
import { ApiEventChannel } from '../services/event-channel'

export class FakeBackend implements StrideBackend {
  readonly calls: Array<{ method: ApiMethod; input: unknown }> = []
  /** Job-event listeners per client id. */
  readonly events = new ApiEventChannel()
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
    return this.events.subscribe(client, listener)
  }

  /** A job event for one client's listeners. */
  emit<E extends ApiEventName>(event: E, payload: ApiEvents[E], client: string): void {
    this.events.emit(client, event, payload)
  }

  async dispose(): Promise<void> {
    this.disposed = true
  }
}
