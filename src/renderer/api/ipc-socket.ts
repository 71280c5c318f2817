/** The desktop window's IPC transport behind the SocketConnector shape: open at once, never dropped. */
import type { StrideTransport } from '../../shared/api'
import type { SocketConnector } from './socket'

export function ipcSocket(transport: StrideTransport): SocketConnector {
  return (_url, handlers) => {
    const off = transport.onMessage((text) => handlers.onMessage(text))
    // Opened after the caller has stored the connection, as a socket's open event would be.
    queueMicrotask(() => handlers.onOpen())
    return {
      send: (text) => transport.send(text),
      close: () => {
        off()
        handlers.onClose()
      }
    }
  }
}
