/**
 * Web mode: the same app as the Electron window, served to a browser on 127.0.0.1 only,
 * behind a per-run token. The caller owns the backend (and disposes it); `close()` only
 * stops serving.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { realpath, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { StrideError } from '../../shared/errors'
import type { StrideBackend } from '../services/backend'
import { createHttpHandler } from './http-handler'
import { hostAllowed, LOOPBACK_HOST, originAllowed, serverUrl } from './origin'
import { createToken, requestToken, tokenMatches } from './token'
import { createApiSocketServer } from './ws-bridge'

export { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from './security-headers'
export { serverUrl } from './origin'

export interface WebServerOptions {
  backend: StrideBackend
  /** 0 or omitted: let the OS pick a free port. */
  port?: number
  /** The built renderer (out/renderer); from the bundled main: join(__dirname, '../renderer'). */
  rendererDir: string
}

export interface WebServer {
  /** `http://127.0.0.1:PORT/?token=TOKEN`: what `stride serve` prints. */
  url: string
  token: string
  port: number
  close(): Promise<void>
}

export const API_PATH = '/api'

async function rendererRoot(dir: string): Promise<string> {
  const root = await realpath(resolve(dir)).catch(() => null)
  const index = root === null ? null : await stat(join(root, 'index.html')).catch(() => null)
  if (root === null || index === null || !index.isFile()) {
    throw new StrideError(
      `The web UI is not built (no index.html in ${resolve(dir)}); run \`npm run build\` first.`,
      'not-found'
    )
  }
  return root
}

function checkPort(port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new StrideError(`Invalid port ${port}; use a whole number from 1 to 65535, or omit --port.`)
  }
}

function refuseUpgrade(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
  socket.destroy()
}

/** Same gate as the pages, plus the Origin check browsers make possible for WebSockets. */
function upgradeAllowed(req: IncomingMessage, port: number, token: string): '403 Forbidden' | '404 Not Found' | null {
  let url: URL
  try {
    url = new URL(req.url ?? '/', `http://${LOOPBACK_HOST}`)
  } catch {
    return '404 Not Found'
  }
  if (url.pathname !== API_PATH) return '404 Not Found'
  if (!hostAllowed(req.headers.host, port)) return '403 Forbidden'
  const given = requestToken(url, req.headers.cookie, port)
  if (!tokenMatches(token, given.token)) return '403 Forbidden'
  const origin = req.headers.origin
  // Browsers always send Origin; a client without one is a script that must then hold
  // the token itself rather than riding on a browser's cookie.
  if (origin === undefined ? !given.fromQuery : !originAllowed(origin, port)) return '403 Forbidden'
  return null
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const requestedPort = options.port ?? 0
  checkPort(requestedPort)
  const root = await rendererRoot(options.rendererDir)
  const token = createToken()
  let port = requestedPort

  const api = createApiSocketServer(options.backend)
  const server = createServer(createHttpHandler({ root, token, port: () => port }))
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    const refusal = upgradeAllowed(req, port, token)
    if (refusal !== null) return refuseUpgrade(socket, refusal)
    api.wss.handleUpgrade(req, socket, head, (ws) => api.wss.emit('connection', ws, req))
  })

  try {
    await new Promise<void>((resolveListen, rejectListen) => {
      server.once('error', rejectListen)
      server.listen(requestedPort, LOOPBACK_HOST, () => {
        server.off('error', rejectListen)
        resolveListen()
      })
    })
  } catch (err) {
    await api.close()
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new StrideError(
        `Port ${requestedPort} is already in use; pass another --port or omit it to pick a free one.`,
        'invalid-input'
      )
    }
    throw err
  }
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('web server has no TCP address')
  port = address.port

  let closing: Promise<void> | null = null
  return {
    url: serverUrl(port, token),
    token,
    port,
    close: () =>
      (closing ??= (async () => {
        await api.close()
        server.closeAllConnections()
        await new Promise<void>((done) => server.close(() => done()))
      })())
  }
}
