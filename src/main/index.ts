/**
 * Electron entry, deliberately thin: one window on the built renderer, the typed API over
 * one IPC channel, backend events forwarded, and every door the app does not use shut
 * (new windows, navigation, permissions, remote content). All real work is in the backend.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { app, BrowserWindow, dialog, ipcMain, Menu, net, protocol, session, type IpcMainEvent, type WebContents } from 'electron'
import { APP_INDEX_URL, APP_SCHEME, appFileFor } from './app-protocol'
import { createBackend } from './services/create-backend'
import type { StrideBackend } from './services/backend'
import { createWireSession, MAX_MESSAGE_BYTES, type WireSession } from './server/wire-session'
import { DESKTOP_CONTENT_SECURITY_POLICY } from './server/security-headers'

/** Renderer -> main: wire requests and cancels; main -> renderer: answers, progress, job events. */
const SEND_CHANNEL = 'stride:send'
const MESSAGE_CHANNEL = 'stride:message'
/** A backend that will not finish cleaning up must not keep the app from quitting. */
const DISPOSE_TIMEOUT_MS = 5000

const rendererDir = join(__dirname, '../renderer')
// The dev server URL is honoured only in development: a packaged app must never be
// pointed at other content by an environment variable.
const devServerUrl = !app.isPackaged ? process.env['ELECTRON_RENDERER_URL'] : undefined
const appUrl = devServerUrl ?? APP_INDEX_URL

// Must happen before the app is ready: the app's scheme behaves like https (secure origin,
// fetch, relative URLs), so the renderer is served from stride://app, never from file://.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }])

/** Is `url` part of this app (the built renderer or, in development, the dev server)? */
function isAppUrl(url: string): boolean {
  try {
    return new URL(url).origin === new URL(appUrl).origin
  } catch {
    return false
  }
}

/** Serves the built renderer on the app's scheme, with the desktop CSP on every response. */
function serveRenderer(): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = appFileFor(request.url, rendererDir)
    if (!file) return new Response('not found', { status: 404 })
    const response = await net.fetch(pathToFileURL(file).href)
    const headers = new Headers(response.headers)
    headers.set('Content-Security-Policy', DESKTOP_CONTENT_SECURITY_POLICY)
    headers.set('X-Content-Type-Options', 'nosniff')
    return new Response(response.body, { status: response.status, headers })
  })
}

function trustedSender(event: IpcMainEvent): boolean {
  const url = event.senderFrame?.url
  return typeof url === 'string' && isAppUrl(url)
}

function lockDown(contents: WebContents): void {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault()
  })
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault()
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
}

function secureSession(): void {
  const ses = session.defaultSession
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false))
  ses.setPermissionCheckHandler(() => false)
  // Also set by a <meta> tag in index.html; the header covers responses the tag cannot.
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        'Content-Security-Policy': [DESKTOP_CONTENT_SECURITY_POLICY],
        'X-Content-Type-Options': ['nosniff']
      }
    })
  })
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Stride',
    autoHideMenuBar: true,
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      sandbox: true,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false
    }
  })
  win.once('ready-to-show', () => win.show())
  win.loadURL(appUrl).catch((err: unknown) => {
    console.error(`[stride] could not load the UI from ${appUrl}; run \`npm run build\` first.`, err)
  })
  return win
}

/** Each window is one client with one wire session (the same protocol as web mode's socket). */
function serveApi(backend: StrideBackend): () => void {
  const sessions = new Map<number, WireSession>()
  const sessionFor = (contents: WebContents): WireSession => {
    let session = sessions.get(contents.id)
    if (session) return session
    const id = contents.id
    session = createWireSession(backend, `window-${id}`, (message) => {
      // Text, or UTF-8 bytes that the preload decodes in the window's process.
      if (!contents.isDestroyed()) contents.send(MESSAGE_CHANNEL, message)
    })
    sessions.set(id, session)
    contents.once('destroyed', () => {
      sessions.get(id)?.close()
      sessions.delete(id)
    })
    return session
  }
  const onSend = (event: IpcMainEvent, text: unknown) => {
    if (!trustedSender(event)) {
      console.error('[stride] ignored an API message from a frame that is not the Stride window')
      return
    }
    if (typeof text !== 'string' || text.length > MAX_MESSAGE_BYTES) return
    sessionFor(event.sender).receive(text)
  }
  ipcMain.on(SEND_CHANNEL, onSend)
  return () => {
    ipcMain.removeListener(SEND_CHANNEL, onSend)
    for (const session of sessions.values()) session.close()
    sessions.clear()
  }
}

function disposeOnQuit(backend: StrideBackend, stopServing: () => void): void {
  let disposed = false
  app.on('will-quit', (event) => {
    if (disposed) return
    // Electron does not wait for async handlers: hold the quit, clean up, then quit again.
    event.preventDefault()
    disposed = true
    stopServing()
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, DISPOSE_TIMEOUT_MS).unref())
    Promise.race([backend.dispose(), timeout])
      .catch((err: unknown) => console.error('[stride] backend cleanup failed:', err))
      .finally(() => app.quit())
  })
}

function main(): void {
  if (!app.requestSingleInstanceLock()) {
    app.quit()
    return
  }
  app.enableSandbox()
  app.on('web-contents-created', (_event, contents) => lockDown(contents))

  let mainWindow: BrowserWindow | null = null
  const showWindow = (): void => {
    if (mainWindow === null || mainWindow.isDestroyed()) {
      mainWindow = createWindow()
      return
    }
    if (mainWindow.isMinimized()) mainWindow.restore()
    mainWindow.focus()
  }
  app.on('second-instance', showWindow)

  app
    .whenReady()
    .then(() => {
      // A packaged app has no developer menu (reload, devtools); development keeps the default.
      if (app.isPackaged) Menu.setApplicationMenu(null)
      serveRenderer()
      secureSession()
      // The desktop app picks files with the system's own dialog (web mode browses instead).
      const backend = createBackend({
        chooseFile: async (purpose) => {
          const parent = BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0]
          const options: Electron.OpenDialogOptions = {
            title: purpose === 'program' ? 'Choose a program to trace' : 'Open a Stride session',
            properties: ['openFile'],
            filters: purpose === 'session' ? [{ name: 'Stride sessions', extensions: ['stride'] }] : []
          }
          const r = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options)
          return r.canceled ? null : (r.filePaths[0] ?? null)
        }
      })
      disposeOnQuit(backend, serveApi(backend))
      showWindow()
      // macOS keeps apps alive without windows; the dock icon brings one back.
      app.on('activate', () => {
        if (BrowserWindow.getAllWindows().length === 0) showWindow()
      })
    })
    .catch((err: unknown) => {
      console.error('[stride] failed to start:', err)
      app.exit(1)
    })

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
}

main()
