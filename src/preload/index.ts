/**
 * The only bridge between the sandboxed renderer and the main process: exactly the
 * StrideApi methods plus `on`, as `window.stride`. ipcRenderer itself never crosses over,
 * and neither do IPC event objects (they would hand the page `sender`).
 */
import { contextBridge, ipcRenderer } from 'electron'
import { API_METHODS, type ApiMethod, type StrideApi } from '../shared/api'
import { createEventHub } from '../shared/event-hub'

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

const events = createEventHub()

// One IPC subscription for all listeners: no MaxListeners warnings, one place to filter.
ipcRenderer.on(EVENT_CHANNEL, (_event, name: unknown, payload: unknown) => events.emit(name, payload))

const methods = Object.fromEntries(API_METHODS.map((m) => [m, (input: unknown) => call(m, input)]))
const api = { ...methods, on: events.on } as StrideApi

contextBridge.exposeInMainWorld('stride', api)
