/**
 * The `on(event, listener)` half of StrideApi, shared by both bridges (the Electron preload
 * and the web-mode WebSocket client): listeners per event, fanned out safely, so one broken
 * view never stops the others from hearing about a job.
 */
import { API_EVENT_NAMES, StrideError, type ApiEventName, type ApiEvents } from './api'

type AnyListener = (payload: unknown) => void

export function isEventName(name: unknown): name is ApiEventName {
  return typeof name === 'string' && (API_EVENT_NAMES as readonly string[]).includes(name)
}

export interface EventHub {
  on<E extends ApiEventName>(event: E, listener: (payload: ApiEvents[E]) => void): () => void
  /** Delivers a payload that arrived from the backend; unknown event names are ignored. */
  emit(event: unknown, payload: unknown): void
}

export function createEventHub(): EventHub {
  const listeners = new Map<ApiEventName, Set<AnyListener>>()
  return {
    on(event, listener) {
      if (!isEventName(event)) throw new StrideError(`Unknown event "${String(event)}".`)
      if (typeof listener !== 'function') throw new StrideError('on() needs a listener function.')
      let set = listeners.get(event)
      if (!set) listeners.set(event, (set = new Set()))
      const wrapped = listener as AnyListener
      set.add(wrapped)
      return () => {
        listeners.get(event)?.delete(wrapped)
      }
    },
    emit(event, payload) {
      if (!isEventName(event)) return
      for (const listener of [...(listeners.get(event) ?? [])]) {
        try {
          listener(payload)
        } catch (err) {
          console.error(`[stride] a ${event} listener failed:`, err)
        }
      }
    }
  }
}
