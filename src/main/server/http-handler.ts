/** Plain HTTP side of web mode: token gate, then the built renderer as static files. */
import { createReadStream } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { hostAllowed } from './origin'
import { SECURITY_HEADERS } from './security-headers'
import { lookupStatic, mimeType } from './static-files'
import { requestToken, sessionCookie, tokenMatches } from './token'

export interface HttpHandlerOptions {
  /** Real absolute path of the built renderer. */
  root: string
  token: string
  /** Known only once listening when an ephemeral port was asked for. */
  port: () => number
}

const FORBIDDEN_TEXT =
  'Forbidden: open the exact URL that `stride serve` printed; it carries this run\'s access token.\n'

function send(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
    ...extra
  })
  res.end(text)
}

export function createHttpHandler(opts: HttpHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(opts, req, res).catch((err: unknown) => {
      console.error('[stride] web server request failed:', err)
      if (!res.headersSent) send(res, 500, 'Internal server error.\n')
      else res.destroy()
    })
  }
}

async function handle(opts: HttpHandlerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const port = opts.port()
  if (!hostAllowed(req.headers.host, port)) return send(res, 403, FORBIDDEN_TEXT)
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return send(res, 405, 'Method not allowed.\n', { Allow: 'GET, HEAD' })
  }
  let url: URL
  try {
    url = new URL(req.url ?? '/', `http://${req.headers.host}`)
  } catch {
    return send(res, 400, 'Bad request.\n')
  }
  const { token, fromQuery } = requestToken(url, req.headers.cookie, port)
  if (!tokenMatches(opts.token, token)) return send(res, 403, FORBIDDEN_TEXT)
  const cookie: Record<string, string> = fromQuery ? { 'Set-Cookie': sessionCookie(port, opts.token) } : {}

  if (url.pathname === '/api') return send(res, 426, 'The API is a WebSocket.\n', { Upgrade: 'websocket', ...cookie })

  // Take the pathname from the raw request line: the URL parser already folded `..`
  // segments, and the traversal check must see what the client actually sent.
  const rawPath = (req.url ?? '/').split('?')[0] ?? '/'
  const found = await lookupStatic(opts.root, rawPath.startsWith('/') ? rawPath : url.pathname)
  switch (found.kind) {
    case 'bad-request':
      return send(res, 400, 'Bad request.\n', cookie)
    case 'forbidden':
      return send(res, 403, 'Forbidden.\n', cookie)
    case 'not-found':
      return send(res, 404, 'Not found.\n', cookie)
    case 'file':
      break
  }
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': mimeType(found.path),
    'Content-Length': String(found.size),
    // Nothing here is secret, but a new build must show up on reload.
    'Cache-Control': 'no-cache',
    ...cookie
  })
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  const stream = createReadStream(found.path)
  stream.on('error', () => res.destroy())
  stream.pipe(res)
}
