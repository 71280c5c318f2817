/** Job events, each for the client that started the job (trace jobs, attach jobs). */
import type { ApiEventName, ApiEvents } from '../../shared/api'
import type { BackendEventListener } from './backend'

export class ApiEventChannel {
  private readonly listeners = new Map<string, Set<BackendEventListener>>()

  subscribe(client: string, listener: BackendEventListener): () => void {
    let set = this.listeners.get(client)
    if (!set) this.listeners.set(client, (set = new Set()))
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0 && this.listeners.get(client) === set) this.listeners.delete(client)
    }
  }

  /** Clients with at least one listener. */
  get clientCount(): number {
    return this.listeners.size
  }

  emit<E extends ApiEventName>(client: string, event: E, payload: ApiEvents[E]): void {
    for (const l of this.listeners.get(client) ?? []) l(event, payload)
  }
}
