/**
 * The WebSocket side of web mode: WireRequest in, WireResponse out, and every backend event
 * pushed to every connected client as a WireEvent.
 */
import { WebSocket, WebSocketServer, type RawData } from 'ws'
import type { WireEvent, WireResponse } from '../../shared/api'
import type { StrideBackend } from '../services/backend'
import { callBackend, type CallEnvelope } from './envelope'

/** Requests are method names with paths and small configs; 1 MiB is generous. */
export const MAX_MESSAGE_BYTES = 1024 * 1024
/** A client this far behind stops getting progress ticks (later ones supersede them). */
const SLOW_CLIENT_BYTES = 8 * 1024 * 1024
/** Id used when a request is too broken to have one of its own. */
export const NO_REQUEST_ID = -1

export interface ApiSocketServer {
  wss: WebSocketServer
  close(): Promise<void>
}

type ParsedRequest = { ok: true; id: number; method: unknown; input: unknown } | { ok: false; id: number; message: string }

function parseRequest(data: RawData, isBinary: boolean): ParsedRequest {
  if (isBinary) return { ok: false, id: NO_REQUEST_ID, message: 'Requests must be JSON text messages.' }
  let value: unknown
  try {
    value = JSON.parse(data.toString())
  } catch {
    return { ok: false, id: NO_REQUEST_ID, message: 'The request is not valid JSON.' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, id: NO_REQUEST_ID, message: 'A request must be an object {id, method, input}.' }
  }
  const { id, method, input } = value as Record<string, unknown>
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) {
    return { ok: false, id: NO_REQUEST_ID, message: 'A request needs an integer id.' }
  }
  return { ok: true, id, method, input }
}

function sendJson(ws: WebSocket, message: WireResponse | WireEvent): void {
  if (ws.readyState !== WebSocket.OPEN) return
  let text: string
  try {
    text = JSON.stringify(message)
  } catch (err) {
    // A result that does not serialise is a backend bug; answer the request regardless.
    if (!('id' in message)) return
    console.error('[stride] could not serialise a response:', err)
    text = JSON.stringify({
      id: message.id,
      ok: false,
      error: { code: 'internal', message: 'Stride produced a result it could not send; the details are in the terminal.' }
    } satisfies WireResponse)
  }
  ws.send(text)
}

function toResponse(id: number, envelope: CallEnvelope): WireResponse {
  return envelope.ok ? { id, ok: true, result: envelope.result } : { id, ok: false, error: envelope.error }
}

export function createApiSocketServer(backend: StrideBackend): ApiSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false })

  wss.on('connection', (ws) => {
    ws.on('error', () => ws.terminate())
    ws.on('message', (data, isBinary) => {
      const request = parseRequest(data, isBinary)
      if (!request.ok) {
        sendJson(ws, { id: request.id, ok: false, error: { code: 'invalid-input', message: request.message } })
        return
      }
      void callBackend(backend, request.method, request.input).then((envelope) =>
        sendJson(ws, toResponse(request.id, envelope))
      )
    })
  })

  const unsubscribe = backend.subscribe((event, payload) => {
    const text = JSON.stringify({ event, payload } satisfies WireEvent)
    for (const client of wss.clients) {
      if (client.readyState !== WebSocket.OPEN) continue
      if (event === 'progress' && client.bufferedAmount > SLOW_CLIENT_BYTES) continue
      client.send(text)
    }
  })

  return {
    wss,
    close: () =>
      new Promise<void>((resolve) => {
        unsubscribe()
        for (const client of wss.clients) client.terminate()
        wss.close(() => resolve())
      })
  }
}
