/** The browser's WebSocket behind the SocketConnector shape. */
import type { SocketConnector } from './socket'

export const browserSocket: SocketConnector = (url, handlers) => {
  const ws = new WebSocket(url)
  ws.onopen = () => handlers.onOpen()
  ws.onmessage = (ev: MessageEvent) => {
    // The server only sends text frames; anything else is not ours to interpret.
    if (typeof ev.data === 'string') handlers.onMessage(ev.data)
  }
  ws.onclose = () => handlers.onClose()
  return {
    send: (text) => ws.send(text),
    close: () => ws.close()
  }
}
