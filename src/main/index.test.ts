/** The Electron entry against stand-ins for Electron and the backend: wiring and lockdown. */
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { FakeBackend } from './server/test-backend'

type Fn = (...args: any[]) => any

const h = vi.hoisted(() => ({
  lock: true,
  appHandlers: new Map<string, Fn[]>(),
  ipcHandlers: new Map<string, Fn>(),
  windows: [] as any[],
  permissionRequest: null as Fn | null,
  permissionCheck: null as Fn | null,
  headers: null as Fn | null,
  quit: vi.fn(),
  backend: null as FakeBackend | null,
  packaged: false,
  setMenu: vi.fn(),
  schemes: null as unknown,
  protocolHandlers: new Map<string, Fn>()
}))

function fire(event: string, ...args: unknown[]): void {
  for (const fn of h.appHandlers.get(event) ?? []) fn(...args)
}

vi.mock('electron', () => {
  let nextContentsId = 1
  class FakeContents {
    id = nextContentsId++
    handlers = new Map<string, Fn>()
    onceHandlers = new Map<string, Fn>()
    openHandler: Fn | null = null
    send = vi.fn()
    destroyed = false
    isDestroyed = () => this.destroyed
    once(event: string, fn: Fn) {
      this.onceHandlers.set(event, fn)
      return this
    }
    setWindowOpenHandler(fn: Fn) {
      this.openHandler = fn
    }
    on(event: string, fn: Fn) {
      this.handlers.set(event, fn)
      return this
    }
  }
  class BrowserWindow {
    static getAllWindows = () => h.windows
    webContents = new FakeContents()
    loadURL = vi.fn(async () => undefined)
    constructor(readonly options: any) {
      h.windows.push(this)
      fire('web-contents-created', {}, this.webContents)
    }
    once() {
      return this
    }
    on() {
      return this
    }
    isDestroyed = () => false
    isMinimized = () => false
    focus = vi.fn()
    restore = vi.fn()
    show = vi.fn()
  }
  return {
    app: {
      get isPackaged() {
        return h.packaged
      },
      requestSingleInstanceLock: () => h.lock,
      enableSandbox: vi.fn(),
      whenReady: () => Promise.resolve(),
      quit: h.quit,
      exit: vi.fn(),
      on: (event: string, fn: Fn) => h.appHandlers.set(event, [...(h.appHandlers.get(event) ?? []), fn])
    },
    BrowserWindow,
    Menu: { setApplicationMenu: h.setMenu },
    net: { fetch: async (url: string) => new Response(`body of ${url}`, { status: 200, headers: { 'Content-Type': 'text/html' } }) },
    protocol: {
      registerSchemesAsPrivileged: (schemes: unknown) => (h.schemes = schemes),
      handle: (scheme: string, fn: Fn) => h.protocolHandlers.set(scheme, fn)
    },
    ipcMain: {
      on: (channel: string, fn: Fn) => h.ipcHandlers.set(channel, fn),
      removeListener: (channel: string, fn: Fn) => h.ipcHandlers.get(channel) === fn && h.ipcHandlers.delete(channel)
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (fn: Fn) => (h.permissionRequest = fn),
        setPermissionCheckHandler: (fn: Fn) => (h.permissionCheck = fn),
        webRequest: { onHeadersReceived: (fn: Fn) => (h.headers = fn) }
      }
    }
  }
})

vi.mock('./services/create-backend', async () => {
  const { FakeBackend } = await import('./server/test-backend')
  return {
    createBackend: () => {
      h.backend = new FakeBackend()
      return h.backend
    }
  }
})

async function boot(): Promise<void> {
  vi.resetModules()
  h.appHandlers.clear()
  h.ipcHandlers.clear()
  h.windows.length = 0
  h.quit.mockReset()
  h.setMenu.mockReset()
  h.protocolHandlers.clear()
  h.backend = null
  delete process.env['ELECTRON_RENDERER_URL']
  await import('./index')
  await new Promise((resolve) => setTimeout(resolve, 0))
}

function appUrl(): string {
  return h.windows[0].loadURL.mock.calls[0][0] as string
}

/** A wire message from a frame of the window (its URL: the app's, a foreign page's, or none). */
function sendFrom(contents: any, frameUrl: string | null, message: unknown): void {
  const handler = h.ipcHandlers.get('stride:send')!
  handler({ sender: contents, senderFrame: frameUrl === null ? null : { url: frameUrl } }, typeof message === 'string' ? message : JSON.stringify(message))
}

/** What the main process sent the window on stride:message, parsed. */
function received(contents: any): unknown[] {
  return contents.send.mock.calls.filter((c: unknown[]) => c[0] === 'stride:message').map((c: unknown[]) => JSON.parse(c[1] as string))
}

beforeEach(() => {
  h.lock = true
})

describe('Electron entry', () => {
  it('quits at once when another instance holds the lock', async () => {
    h.lock = false
    await boot()
    expect(h.quit).toHaveBeenCalled()
    expect(h.windows).toHaveLength(0)
    expect(h.backend).toBeNull()
  })

  it('opens one sandboxed, isolated window on the built renderer through the app scheme', async () => {
    await boot()
    expect(h.windows).toHaveLength(1)
    const prefs = h.windows[0].options.webPreferences
    expect(prefs).toMatchObject({ contextIsolation: true, nodeIntegration: false, sandbox: true, webSecurity: true })
    expect(prefs.preload).toMatch(/[/\\]preload[/\\]index\.js$/)
    expect(appUrl()).toBe('stride://app/index.html')
    expect(h.schemes).toEqual([{ scheme: 'stride', privileges: { standard: true, secure: true, supportFetchAPI: true } }])
  })

  it('serves only the renderer folder on the app scheme, with the desktop CSP (no WebSocket)', async () => {
    await boot()
    const handler = h.protocolHandlers.get('stride')!
    const ok: Response = await handler({ url: 'stride://app/index.html' })
    expect(ok.status).toBe(200)
    expect(await ok.text()).toMatch(/^body of file:\/\/.*\/renderer\/index\.html$/)
    expect(ok.headers.get('content-security-policy')).toMatch(/connect-src 'self'$/)
    expect(ok.headers.get('content-security-policy')).not.toMatch(/ws:/)
    const escaped: Response = await handler({ url: 'stride://app/assets/%2e%2e%2f%2e%2e%2fmain%2fcli.js' })
    expect(escaped.status).toBe(404)
  })

  it('has no application menu when packaged, the default one in development', async () => {
    await boot()
    expect(h.setMenu).not.toHaveBeenCalled()
    h.packaged = true
    try {
      await boot()
      expect(h.setMenu).toHaveBeenCalledWith(null)
    } finally {
      h.packaged = false
    }
  })

  it('answers wire requests from the window by id, validating the method and the sender', async () => {
    await boot()
    const url = appUrl()
    const contents = h.windows[0].webContents
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    sendFrom(contents, url, { id: 1, method: 'listExamples', input: {} })
    sendFrom(contents, url, { id: 2, method: 'openSession', input: { path: '/x' } })
    sendFrom(contents, url, { id: 3, method: 'rmRf', input: {} })
    sendFrom(contents, url, 'not json')
    sendFrom(contents, 'https://evil.example/', { id: 4, method: 'listExamples', input: {} })
    sendFrom(contents, null, { id: 5, method: 'listExamples', input: {} })
    await vi.waitFor(() => expect(received(contents)).toHaveLength(4))
    expect(received(contents)).toEqual(
      expect.arrayContaining([
        { id: 1, ok: true, result: [{ name: 'conflict', echo: {} }] },
        { id: 2, ok: false, error: { code: 'not-found', message: 'No session at /nope.stride; check the path.' } },
        expect.objectContaining({ id: 3, ok: false, error: expect.objectContaining({ code: 'invalid-input' }) }),
        expect.objectContaining({ id: -1, ok: false })
      ])
    )
    expect(h.backend!.calls.map((c) => c.method)).toEqual(['listExamples', 'openSession'])
    expect(h.backend!.clients).toEqual(['window-' + contents.id, 'window-' + contents.id])
    expect(errors).toHaveBeenCalledTimes(2)
  })

  it("sends a window's job events to that window, and stops when it is destroyed", async () => {
    await boot()
    const contents = h.windows[0].webContents
    sendFrom(contents, appUrl(), { id: 1, method: 'listExamples', input: {} })
    const failed = { jobId: 'j', kind: 'trace', error: 'no valgrind; install it.', session: null }
    h.backend!.emit('failed', failed as never, 'window-' + contents.id)
    h.backend!.emit('failed', { ...failed, jobId: 'other' } as never, 'window-999')
    await vi.waitFor(() => expect(received(contents)).toContainEqual({ event: 'failed', payload: failed }))
    expect(received(contents)).not.toContainEqual(expect.objectContaining({ payload: expect.objectContaining({ jobId: 'other' }) }))
    contents.onceHandlers.get('destroyed')()
    expect(h.backend!.events.clientCount).toBe(0)
  })

  it('denies new windows, foreign navigation, webviews and every permission', async () => {
    await boot()
    const contents = h.windows[0].webContents
    expect(contents.openHandler({ url: 'https://example.com' })).toEqual({ action: 'deny' })
    const away = { preventDefault: vi.fn() }
    contents.handlers.get('will-navigate')(away, 'https://example.com/')
    expect(away.preventDefault).toHaveBeenCalled()
    const home = { preventDefault: vi.fn() }
    contents.handlers.get('will-navigate')(home, appUrl())
    expect(home.preventDefault).not.toHaveBeenCalled()
    const webview = { preventDefault: vi.fn() }
    contents.handlers.get('will-attach-webview')(webview)
    expect(webview.preventDefault).toHaveBeenCalled()
    const granted = vi.fn()
    h.permissionRequest!(contents, 'media', granted)
    expect(granted).toHaveBeenCalledWith(false)
    expect(h.permissionCheck!(contents, 'clipboard-read')).toBe(false)
  })

  it('adds the CSP header to every response', async () => {
    await boot()
    const done = vi.fn()
    h.headers!({ url: appUrl(), responseHeaders: { 'Content-Type': ['text/html'] } }, done)
    const headers = done.mock.calls[0][0].responseHeaders
    expect(headers['Content-Type']).toEqual(['text/html'])
    expect(headers['Content-Security-Policy'][0]).toMatch(/^default-src 'self'; script-src 'self';/)
  })

  it('disposes the backend before quitting', async () => {
    await boot()
    const backend = h.backend!
    const event = { preventDefault: vi.fn() }
    fire('will-quit', event)
    expect(event.preventDefault).toHaveBeenCalled()
    await vi.waitFor(() => expect(h.quit).toHaveBeenCalled())
    expect(backend.disposed).toBe(true)
    expect(backend.events.clientCount).toBe(0)
    expect(h.ipcHandlers.has('stride:send')).toBe(false)
    const again = { preventDefault: vi.fn() }
    fire('will-quit', again)
    expect(again.preventDefault).not.toHaveBeenCalled()
  })
})
