/**
 * The backend's side of one connection, whatever carries it (a web-mode WebSocket, or the
 * desktop window's IPC channel): parses WireRequest/WireCancel text, runs each call with its
 * own AbortController and progress channel, answers each request id once, and forwards the
 * job events of this connection's client. Closing the connection aborts its calls in flight
 * (no one is left to read their answers); its client's jobs go on, and their events reach the
 * client again when it reconnects under the same id.
 */
import type { WireEvent, WireProgress, WireResponse, WireServerMessage } from '../../shared/api'
import type { StrideBackend } from '../services/backend'
import { callBackend, type CallEnvelope } from './envelope'
import { JsonText } from '../services/json-text'

/** Requests are method names with paths and small configs; 1 MiB is generous. */
export const MAX_MESSAGE_BYTES = 1024 * 1024
/** Id used when a request is too broken to have one of its own. */
export const NO_REQUEST_ID = -1
/** The most calls one connection may have running (each may hold a worker slot). */
const MAX_IN_FLIGHT = 64

export interface WireSession {
  /** One text message from the client. */
  receive(text: string): void
  /** The connection is gone: abort its calls, stop its events. */
  close(): void
}

/**
 * One message to the client: JSON text, or its UTF-8 bytes (a result a worker serialized: sent
 * as a text message all the same). `droppable`: a progress tick the transport may skip for a
 * client that is far behind.
 */
export type WireSend = (message: string | Uint8Array, droppable: boolean) => void

type Parsed =
  | { kind: 'request'; id: number; method: unknown; input: unknown }
  | { kind: 'cancel'; id: number }
  | { kind: 'bad'; id: number; message: string }

function parse(text: string): Parsed {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { kind: 'bad', id: NO_REQUEST_ID, message: 'The request is not valid JSON.' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'bad', id: NO_REQUEST_ID, message: 'A request must be an object {id, method, input} or {cancel: id}.' }
  }
  const m = value as Record<string, unknown>
  if ('cancel' in m) {
    return typeof m.cancel === 'number' && Number.isSafeInteger(m.cancel) ? { kind: 'cancel', id: m.cancel } : { kind: 'bad', id: NO_REQUEST_ID, message: 'A cancel needs the integer id of a request.' }
  }
  if (typeof m.id !== 'number' || !Number.isSafeInteger(m.id)) return { kind: 'bad', id: NO_REQUEST_ID, message: 'A request needs an integer id.' }
  return { kind: 'request', id: m.id, method: m.method, input: m.input }
}

function serialise(message: WireServerMessage): string | Uint8Array | null {
  try {
    // A result a worker serialized already goes out as its bytes (the same JSON, not made twice).
    if ('ok' in message && message.ok && message.result instanceof JsonText)
      return Buffer.concat([Buffer.from(`{"id":${JSON.stringify(message.id)},"ok":true,"result":`), message.result.json, Buffer.from('}')])
    return JSON.stringify(message)
  } catch (err) {
    // A result that does not serialise is a backend bug; answer the request regardless.
    if (!('id' in message)) return null
    console.error('[stride] could not serialise a response:', err)
    return JSON.stringify({
      id: message.id,
      ok: false,
      error: { code: 'internal', message: 'Stride produced a result it could not send; the details are in the terminal.' }
    } satisfies WireResponse)
  }
}

function toResponse(id: number, envelope: CallEnvelope): WireResponse {
  return envelope.ok ? { id, ok: true, result: envelope.result } : { id, ok: false, error: envelope.error }
}

export function createWireSession(backend: StrideBackend, client: string, send: WireSend): WireSession {
  const inFlight = new Map<number, AbortController>()
  let open = true
  const emit = (message: WireServerMessage, droppable = false) => {
    if (!open) return
    const text = serialise(message)
    if (text !== null) send(text, droppable)
  }
  const unsubscribe = backend.subscribe(client, (event, payload) => emit({ event, payload } satisfies WireEvent, event === 'progress'))

  function start(id: number, method: unknown, input: unknown): void {
    if (inFlight.has(id)) {
      emit({ id, ok: false, error: { code: 'invalid-input', message: `Request id ${id} is already running; number each request afresh.` } })
      return
    }
    if (inFlight.size >= MAX_IN_FLIGHT) {
      emit({ id, ok: false, error: { code: 'invalid-input', message: `More than ${MAX_IN_FLIGHT} requests are running on this connection; wait for some to answer.` } })
      return
    }
    const controller = new AbortController()
    inFlight.set(id, controller)
    const progress = (p: { events: number; total: number | null }) => emit({ progress: id, events: p.events, total: p.total } satisfies WireProgress, true)
    void callBackend(backend, method, input, { client, signal: controller.signal, progress }).then((envelope) => {
      inFlight.delete(id)
      emit(toResponse(id, envelope))
    })
  }

  return {
    receive(text) {
      if (!open) return
      const m = parse(text)
      if (m.kind === 'bad') emit({ id: m.id, ok: false, error: { code: 'invalid-input', message: m.message } })
      else if (m.kind === 'cancel') inFlight.get(m.id)?.abort()
      else start(m.id, m.method, m.input)
    },
    close() {
      if (!open) return
      open = false
      unsubscribe()
      for (const controller of inFlight.values()) controller.abort()
      inFlight.clear()
    }
  }
}
