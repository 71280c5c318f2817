/**
 * The WebSocket side of web mode: each connection is a wire session (wire-session.ts) for the
 * client the page names in its URL (`client=`, one per tab, kept across reconnections), so a
 * tab hears its own jobs' events and no one else's.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { WebSocket, WebSocketServer } from 'ws'
import type { StrideBackend } from '../services/backend'
import { createWireSession, MAX_MESSAGE_BYTES, NO_REQUEST_ID } from './wire-session'

/** A client this far behind stops getting progress ticks (later ones supersede them). */
const SLOW_CLIENT_BYTES = 8 * 1024 * 1024
const CLIENT_ID = /^[A-Za-z0-9_-]{8,64}$/

export interface ApiSocketServer {
  wss: WebSocketServer
  close(): Promise<void>
}

/** The tab's own id from the upgrade URL; a connection without a valid one is a client of its own. */
export function clientIdOf(req: IncomingMessage | undefined): string {
  const given = req?.url ? new URL(req.url, 'http://127.0.0.1').searchParams.get('client') : null
  return given && CLIENT_ID.test(given) ? `tab-${given}` : `socket-${randomUUID()}`
}

export function createApiSocketServer(backend: StrideBackend): ApiSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false })

  wss.on('connection', (ws: WebSocket, req: IncomingMessage | undefined) => {
    const session = createWireSession(backend, clientIdOf(req), (message, droppable) => {
      if (ws.readyState !== WebSocket.OPEN) return
      if (droppable && ws.bufferedAmount > SLOW_CLIENT_BYTES) return
      // Bytes too go out as a text message: they are UTF-8 JSON.
      ws.send(message, { binary: false })
    })
    ws.on('error', () => ws.terminate())
    ws.on('close', () => session.close())
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        ws.send(JSON.stringify({ id: NO_REQUEST_ID, ok: false, error: { code: 'invalid-input', message: 'Requests must be JSON text messages.' } }))
        return
      }
      session.receive(data.toString())
    })
  })

  return {
    wss,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate()
        wss.close(() => resolve())
      })
  }
}
