/** The listeners of one source of API events (trace jobs, attach jobs, queries, rankings). */
import type { ApiEventName, ApiEvents } from '../../shared/api'
import type { BackendEventListener } from './backend'

export class ApiEventChannel {
  private readonly listeners = new Set<BackendEventListener>()

  subscribe(listener: BackendEventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit<E extends ApiEventName>(event: E, payload: ApiEvents[E]): void {
    for (const l of this.listeners) l(event, payload)
  }
}
