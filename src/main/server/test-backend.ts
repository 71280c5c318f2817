/** A StrideBackend test double: canned answers, recorded calls, events on demand. */
import { StrideError, type ApiEventName, type ApiEvents, type ApiMethod } from '../../shared/api'
import type { BackendEventListener, StrideBackend } from '../services/backend'

export class FakeBackend implements StrideBackend {
  readonly calls: Array<{ method: ApiMethod; input: unknown }> = []
  readonly listeners = new Set<BackendEventListener>()
  disposed = false

  async call(method: ApiMethod, input: unknown): Promise<unknown> {
    this.calls.push({ method, input })
    switch (method) {
      case 'listExamples':
        return [{ name: 'conflict', echo: input }]
      case 'openSession':
        throw new StrideError('No session at /nope.stride; check the path.', 'not-found')
      case 'getReport':
        throw new Error('database handle exploded at /secret/internal/path')
      default:
        return { method, input }
    }
  }

  subscribe(listener: BackendEventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit<E extends ApiEventName>(event: E, payload: ApiEvents[E]): void {
    for (const listener of this.listeners) listener(event, payload)
  }

  async dispose(): Promise<void> {
    this.disposed = true
  }
}
