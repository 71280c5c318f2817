/**
 * The little the WebSocket client needs from a socket. Keeping it this narrow lets the
 * client run on the browser's WebSocket in the app and on any other socket in tests.
 */
export interface SocketHandlers {
  onOpen(): void
  onMessage(text: string): void
  /** Called once per socket, whether it opened or not (browsers follow `error` with `close`). */
  onClose(): void
}

export interface SocketConnection {
  send(text: string): void
  close(): void
}

export type SocketConnector = (url: string, handlers: SocketHandlers) => SocketConnection
