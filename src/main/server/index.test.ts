import http from 'node:http'
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, afterAll, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import type { JobProgress, WireResponse } from '../../shared/api'
import { CONTENT_SECURITY_POLICY, startWebServer, type WebServer } from './index'
import { FakeBackend } from './test-backend'

const SECRET = 'TOP-SECRET-OUTSIDE-THE-BUILD'
let base: string
let rendererDir: string

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'stride-web-'))
  rendererDir = join(base, 'renderer')
  mkdirSync(join(rendererDir, 'assets'), { recursive: true })
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Stride</title>')
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log("app")')
  writeFileSync(join(rendererDir, 'assets', 'app.css'), 'body{}')
  writeFileSync(join(base, 'secret.txt'), SECRET)
  symlinkSync(join(base, 'secret.txt'), join(rendererDir, 'assets', 'link.txt'))
})
afterAll(() => rmSync(base, { recursive: true, force: true }))

let server: WebServer | null = null
let backend: FakeBackend
const sockets: WebSocket[] = []

async function start(): Promise<WebServer> {
  backend = new FakeBackend()
  server = await startWebServer({ backend, rendererDir })
  return server
}

afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate()
  await server?.close()
  server = null
  vi.restoreAllMocks()
})

interface Reply {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** Raw request: `path` goes on the wire exactly as given (no URL normalisation). */
function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

function cookieOf(reply: Reply): string {
  const setCookie = reply.headers['set-cookie']?.[0] ?? ''
  return setCookie.split(';')[0] ?? ''
}

function connect(s: WebServer, opts: { query?: string; headers?: Record<string, string> } = {}): WebSocket {
  const query = opts.query ?? `?token=${s.token}`
  const ws = new WebSocket(`ws://127.0.0.1:${s.port}/api${query}`, {
    headers: { Origin: `http://127.0.0.1:${s.port}`, ...opts.headers }
  })
  sockets.push(ws)
  return ws
}

function opened(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
}

/** Resolves with the HTTP status the upgrade was refused with. */
function refused(ws: WebSocket): Promise<number> {
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.once('open', () => reject(new Error('upgrade was accepted')))
    ws.once('error', () => undefined)
  })
}

function nextMessage(ws: WebSocket): Promise<unknown> {
  return new Promise((resolve) => ws.once('message', (data) => resolve(JSON.parse(data.toString()))))
}

async function request(ws: WebSocket, message: unknown): Promise<WireResponse> {
  const reply = nextMessage(ws)
  ws.send(typeof message === 'string' ? message : JSON.stringify(message))
  return (await reply) as WireResponse
}

describe('web server: binding and access token', () => {
  it('listens on 127.0.0.1 only and prints a URL carrying the token', async () => {
    const listen = vi.spyOn(http.Server.prototype, 'listen')
    const s = await start()
    expect(listen).toHaveBeenCalledWith(0, '127.0.0.1', expect.any(Function))
    expect(s.url).toBe(`http://127.0.0.1:${s.port}/?token=${s.token}`)
    expect(s.token).toMatch(/^[A-Za-z0-9_-]{32}$/)
  })

  it('uses a fresh token each run', async () => {
    const first = (await start()).token
    await server?.close()
    const second = (await start()).token
    expect(second).not.toBe(first)
  })

  it('answers 403 without the token or with a wrong one', async () => {
    const s = await start()
    for (const path of ['/', '/index.html', '/assets/app.js', '/?token=wrong', `/?token=${s.token}x`]) {
      const reply = await get(s.port, path)
      expect(reply.status, path).toBe(403)
      expect(reply.body).not.toContain('Stride</title>')
      expect(reply.headers['set-cookie']).toBeUndefined()
    }
  })

  it('serves the app with ?token= and sets an HttpOnly SameSite=Strict cookie that then suffices', async () => {
    const s = await start()
    const first = await get(s.port, `/?token=${s.token}`)
    expect(first.status).toBe(200)
    expect(first.body).toContain('<title>Stride</title>')
    const setCookie = first.headers['set-cookie']?.[0] ?? ''
    expect(setCookie).toMatch(/HttpOnly/)
    expect(setCookie).toMatch(/SameSite=Strict/)
    expect(setCookie).toMatch(/Path=\//)

    const asset = await get(s.port, '/assets/app.js', { Cookie: cookieOf(first) })
    expect(asset.status).toBe(200)
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(asset.body).toBe('console.log("app")')
    const css = await get(s.port, '/assets/app.css', { Cookie: cookieOf(first) })
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8')
    expect((await get(s.port, '/assets/app.js', { Cookie: `${cookieOf(first)}x` })).status).toBe(403)
  })

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const s = await start()
    const reply = await get(s.port, `/?token=${s.token}`, { Host: `evil.example:${s.port}` })
    expect(reply.status).toBe(403)
  })

  it('sends the strict CSP and nosniff on every response', async () => {
    const s = await start()
    for (const path of ['/', `/?token=${s.token}`, `/assets/missing.js?token=${s.token}`]) {
      const reply = await get(s.port, path)
      expect(reply.headers['content-security-policy'], path).toBe(CONTENT_SECURITY_POLICY)
      expect(reply.headers['x-content-type-options'], path).toBe('nosniff')
    }
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; " +
        "img-src 'self' data:; font-src 'self' data:; connect-src 'self' ws://127.0.0.1:*"
    )
  })

  it('falls back to index.html for client routes, 404 for missing assets, 405 for POST', async () => {
    const s = await start()
    const route = await get(s.port, `/sessions/3/lines?token=${s.token}`)
    expect(route.status).toBe(200)
    expect(route.headers['content-type']).toBe('text/html; charset=utf-8')
    expect((await get(s.port, `/assets/missing.js?token=${s.token}`)).status).toBe(404)
    expect((await get(s.port, `/?token=${s.token}`, {}, 'POST')).status).toBe(405)
    const head = await get(s.port, `/assets/app.js?token=${s.token}`, {}, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.body).toBe('')
  })

  it('refuses path traversal, encoded or not, and symlinks out of the build', async () => {
    const s = await start()
    const attempts = [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/..%2fsecret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/..%5csecret.txt',
      '/assets/link.txt',
      '/%00/index.html',
      `/${encodeURIComponent(join(base, 'secret.txt'))}`
    ]
    for (const path of attempts) {
      const reply = await get(s.port, `${path}?token=${s.token}`)
      expect(reply.body, path).not.toContain(SECRET)
      expect([400, 403, 404], path).toContain(reply.status)
    }
  })

  it('reports a missing build clearly', async () => {
    await expect(startWebServer({ backend: new FakeBackend(), rendererDir: join(base, 'nope') })).rejects.toThrow(
      /npm run build/
    )
  })
})

describe('web server: WebSocket API', () => {
  it('rejects upgrades without the token, with a wrong token, or on another path', async () => {
    const s = await start()
    expect(await refused(connect(s, { query: '' }))).toBe(403)
    expect(await refused(connect(s, { query: '?token=nope' }))).toBe(403)
    const other = new WebSocket(`ws://127.0.0.1:${s.port}/other?token=${s.token}`, {
      headers: { Origin: `http://127.0.0.1:${s.port}` }
    })
    sockets.push(other)
    expect(await refused(other)).toBe(404)
  })

  it('rejects a foreign Origin even with the right token', async () => {
    const s = await start()
    expect(await refused(connect(s, { headers: { Origin: 'http://evil.example' } }))).toBe(403)
    expect(await refused(connect(s, { headers: { Origin: `http://127.0.0.1:${s.port + 1}` } }))).toBe(403)
  })

  it('accepts the cookie from the page load with the own origin, but not the cookie alone without Origin', async () => {
    const s = await start()
    const cookie = cookieOf(await get(s.port, `/?token=${s.token}`))
    const ws = connect(s, { query: '', headers: { Cookie: cookie } })
    await opened(ws)
    const bare = new WebSocket(`ws://127.0.0.1:${s.port}/api`, { headers: { Cookie: cookie } })
    sockets.push(bare)
    expect(await refused(bare)).toBe(403)
  })

  it('round-trips a request to the backend', async () => {
    const s = await start()
    const ws = connect(s)
    await opened(ws)
    const reply = await request(ws, { id: 7, method: 'listExamples', input: {} })
    expect(reply).toEqual({ id: 7, ok: true, result: [{ name: 'conflict', echo: {} }] })
    expect(backend.calls).toEqual([{ method: 'listExamples', input: {} }])
  })

  it('answers concurrent requests by id', async () => {
    const s = await start()
    const ws = connect(s)
    await opened(ws)
    const replies: WireResponse[] = []
    const done = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        replies.push(JSON.parse(data.toString()) as WireResponse)
        if (replies.length === 3) resolve()
      })
    )
    for (const id of [1, 2, 3]) ws.send(JSON.stringify({ id, method: 'recentSessions', input: { n: id } }))
    await done
    expect(replies.map((r) => r.id).sort()).toEqual([1, 2, 3])
    for (const r of replies) expect(r).toMatchObject({ ok: true, result: { method: 'recentSessions', input: { n: r.id } } })
  })

  it('sends StrideError message and code, and hides internal errors behind code internal', async () => {
    const s = await start()
    const ws = connect(s)
    await opened(ws)
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    expect(await request(ws, { id: 1, method: 'openSession', input: { path: '/nope.stride' } })).toEqual({
      id: 1,
      ok: false,
      error: { code: 'not-found', message: 'No session at /nope.stride; check the path.' }
    })
    const internal = await request(ws, { id: 2, method: 'getReport', input: { session: 'x' } })
    expect(internal).toMatchObject({ id: 2, ok: false, error: { code: 'internal' } })
    expect(JSON.stringify(internal)).not.toContain('/secret/internal/path')
  })

  it('rejects unknown methods without calling the backend', async () => {
    const s = await start()
    const ws = connect(s)
    await opened(ws)
    for (const method of ['dropTables', 'constructor', '__proto__', 42]) {
      const reply = await request(ws, { id: 5, method, input: {} })
      expect(reply).toMatchObject({ id: 5, ok: false, error: { code: 'invalid-input' } })
    }
    expect(backend.calls).toEqual([])
  })

  it('answers malformed requests with an error instead of dropping the connection', async () => {
    const s = await start()
    const ws = connect(s)
    await opened(ws)
    expect(await request(ws, 'not json')).toMatchObject({ id: -1, ok: false, error: { code: 'invalid-input' } })
    expect(await request(ws, { method: 'listExamples' })).toMatchObject({ id: -1, ok: false })
    expect(await request(ws, [1, 2])).toMatchObject({ id: -1, ok: false })
    expect(await request(ws, { id: 9, method: 'listExamples', input: {} })).toMatchObject({ id: 9, ok: true })
  })

  it('closes the connection on an oversized message', async () => {
    const s = await start()
    const ws = connect(s)
    await opened(ws)
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)))
    ws.send(JSON.stringify({ id: 1, method: 'listExamples', input: { pad: 'x'.repeat(2 * 1024 * 1024) } }))
    expect(await closed).toBe(1009)
    expect(backend.calls).toEqual([])
  })

  it("sends a client's job events to that client's connections only", async () => {
    const s = await start()
    const a1 = connect(s, { query: `?token=${s.token}&client=aaaaaaaa` })
    const a2 = connect(s, { query: `?token=${s.token}&client=aaaaaaaa` })
    const b = connect(s, { query: `?token=${s.token}&client=bbbbbbbb` })
    await Promise.all([opened(a1), opened(a2), opened(b)])
    const progress: JobProgress = {
      jobId: 'j1',
      kind: 'trace',
      phase: 'tracing',
      events: 10,
      total: null,
      eventsPerSecond: 5,
      elapsedMs: 2000,
      message: null
    }
    const heardByB: unknown[] = []
    b.on('message', (data) => heardByB.push(JSON.parse(data.toString())))
    const received = Promise.all([nextMessage(a1), nextMessage(a2)])
    backend.emit('progress', progress, 'tab-aaaaaaaa')
    expect(await received).toEqual([
      { event: 'progress', payload: progress },
      { event: 'progress', payload: progress }
    ])
    const failed = { jobId: 'j2', kind: 'trace' as const, error: 'valgrind is not installed; apt install valgrind.', session: null }
    const toB = nextMessage(b)
    backend.emit('failed', failed, 'tab-bbbbbbbb')
    expect(await toB).toEqual({ event: 'failed', payload: failed })
    expect(heardByB).toEqual([{ event: 'failed', payload: failed }])
    // A connection without a client id of its own is a client alone.
    const lone = connect(s)
    await opened(lone)
    expect(backend.events.clientCount).toBe(3)
  })

  it('tells a call which client made it, sends its progress by request id, and cancels it by id', async () => {
    const s = await start()
    const ws = connect(s, { query: `?token=${s.token}&client=cccccccc` })
    await opened(ws)
    const messages: unknown[] = []
    const answered = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as Record<string, unknown>
        messages.push(m)
        if (m['progress'] === 4) ws.send(JSON.stringify({ cancel: 4 }))
        if (m['id'] === 4) resolve()
      })
    )
    ws.send(JSON.stringify({ id: 4, method: 'querySlice', input: { session: 's', query: '[{*},{*},{misses}]' } }))
    await answered
    expect(messages).toEqual([
      { progress: 4, events: 1, total: 2 },
      { id: 4, ok: false, error: { code: 'cancelled', message: 'Query cancelled.' } }
    ])
    expect(backend.aborted).toEqual(['querySlice'])
    expect(backend.clients).toEqual(['tab-cccccccc'])
  })

  it('aborts the calls of a connection that goes away', async () => {
    const s = await start()
    const ws = connect(s)
    await opened(ws)
    const progress = nextMessage(ws)
    ws.send(JSON.stringify({ id: 1, method: 'querySlice', input: {} }))
    await progress
    ws.terminate()
    await vi.waitFor(() => expect(backend.aborted).toEqual(['querySlice']))
  })

  it('close() drops clients and unsubscribes from the backend without disposing it', async () => {
    const s = await start()
    const ws = connect(s)
    await opened(ws)
    await vi.waitFor(() => expect(backend.events.clientCount).toBe(1))
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()))
    await s.close()
    await closed
    await vi.waitFor(() => expect(backend.events.clientCount).toBe(0))
    expect(backend.disposed).toBe(false)
  })
})
