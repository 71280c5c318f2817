/**
 * Which Host and Origin headers count as "this server". The server binds 127.0.0.1 only;
 * `localhost` is accepted as the same machine. Checking Host defeats DNS rebinding (a
 * hostile name resolving to 127.0.0.1); checking Origin on the WebSocket defeats
 * cross-site WebSocket hijacking.
 */
export const LOOPBACK_HOST = '127.0.0.1'

function ownHosts(port: number): string[] {
  return [`${LOOPBACK_HOST}:${port}`, `localhost:${port}`]
}

export function hostAllowed(host: string | undefined, port: number): boolean {
  return typeof host === 'string' && ownHosts(port).includes(host.toLowerCase())
}

export function originAllowed(origin: string | undefined, port: number): boolean {
  return typeof origin === 'string' && ownHosts(port).some((h) => origin.toLowerCase() === `http://${h}`)
}

export function serverUrl(port: number, token: string): string {
  return `http://${LOOPBACK_HOST}:${port}/?token=${encodeURIComponent(token)}`
}
