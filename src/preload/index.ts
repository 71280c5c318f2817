/**
 * The only bridge between the sandboxed renderer and the main process: exactly the
 * StrideApi methods plus `on`, as `window.stride`. ipcRenderer itself never crosses over,
 * and neither do IPC event objects (they would hand the page `sender`).
 */
import { contextBridge, ipcRenderer } from 'electron'
import {
  API_EVENT_NAMES,
  API_METHODS,
  type ApiEventName,
  type ApiEvents,
  type ApiMethod,
  type StrideApi
} from '../shared/api'

const CALL_CHANNEL = 'stride:call'
const EVENT_CHANNEL = 'stride:event'

type Envelope = { ok: true; result: unknown } | { ok: false; error: { message: string; code: string } }

async function call(method: ApiMethod, input: unknown): Promise<unknown> {
  const envelope = (await ipcRenderer.invoke(CALL_CHANNEL, method, input ?? {})) as Envelope
  if (envelope.ok) return envelope.result
  // Only the message survives the context bridge (custom properties are dropped), so the
  // message is what carries the problem and its fix to the user.
  throw new Error(envelope.error.message)
}

type AnyListener = (payload: unknown) => void
const listeners = new Map<ApiEventName, Set<AnyListener>>()

// One IPC subscription for all listeners: no MaxListeners warnings, one place to filter.
ipcRenderer.on(EVENT_CHANNEL, (_event, name: unknown, payload: unknown) => {
  const set = typeof name === 'string' ? listeners.get(name as ApiEventName) : undefined
  if (!set) return
  for (const listener of [...set]) {
    try {
      listener(payload)
    } catch (err) {
      console.error(`[stride] a ${String(name)} listener failed:`, err)
    }
  }
})

function on<E extends ApiEventName>(event: E, listener: (payload: ApiEvents[E]) => void): () => void {
  if (!(API_EVENT_NAMES as readonly string[]).includes(event)) throw new Error(`Unknown event "${String(event)}".`)
  if (typeof listener !== 'function') throw new Error('on() needs a listener function.')
  let set = listeners.get(event)
  if (!set) listeners.set(event, (set = new Set()))
  const wrapped = listener as AnyListener
  set.add(wrapped)
  return () => {
    listeners.get(event)?.delete(wrapped)
  }
}

const methods = Object.fromEntries(API_METHODS.map((m) => [m, (input: unknown) => call(m, input)]))
const api = { ...methods, on } as StrideApi

contextBridge.exposeInMainWorld('stride', api)
