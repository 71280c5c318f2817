/**
 * The slice of Electron 40's API that src/main/index.ts and src/preload use. Electron is an
 * optional dependency whose package (and so its bundled types) is absent where its binary
 * cannot be downloaded, which would fail `tsc`. Signatures follow electron.d.ts; where the
 * real package is installed, skipLibCheck lets its types and this declaration coexist.
 */
declare module 'electron' {
  type Listener = (...args: any[]) => void

  interface PreventableEvent {
    preventDefault(): void
  }

  interface WebFrameMain {
    readonly url: string
  }

  interface HandlerDetails {
    url: string
  }

  interface WebContents {
    readonly id: number
    send(channel: string, ...args: unknown[]): void
    isDestroyed(): boolean
    setWindowOpenHandler(handler: (details: HandlerDetails) => { action: 'deny' } | { action: 'allow' }): void
    on(event: 'will-navigate' | 'will-redirect', listener: (event: PreventableEvent, url: string) => void): this
    on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): this
    on(event: string, listener: Listener): this
  }

  interface WebPreferences {
    preload?: string
    contextIsolation?: boolean
    nodeIntegration?: boolean
    nodeIntegrationInWorker?: boolean
    sandbox?: boolean
    webSecurity?: boolean
    allowRunningInsecureContent?: boolean
    webviewTag?: boolean
    spellcheck?: boolean
  }

  interface BrowserWindowConstructorOptions {
    width?: number
    height?: number
    minWidth?: number
    minHeight?: number
    show?: boolean
    title?: string
    backgroundColor?: string
    autoHideMenuBar?: boolean
    webPreferences?: WebPreferences
  }

  class BrowserWindow {
    constructor(options?: BrowserWindowConstructorOptions)
    static getAllWindows(): BrowserWindow[]
    readonly webContents: WebContents
    loadURL(url: string): Promise<void>
    show(): void
    focus(): void
    restore(): void
    isMinimized(): boolean
    isDestroyed(): boolean
    once(event: 'ready-to-show', listener: () => void): this
    on(event: 'closed', listener: () => void): this
  }

  interface App {
    readonly isPackaged: boolean
    requestSingleInstanceLock(): boolean
    enableSandbox(): void
    whenReady(): Promise<void>
    quit(): void
    exit(exitCode?: number): void
    on(event: 'second-instance' | 'window-all-closed' | 'activate', listener: () => void): this
    on(event: 'will-quit', listener: (event: PreventableEvent) => void): this
    on(event: 'web-contents-created', listener: (event: unknown, contents: WebContents) => void): this
  }

  interface IpcMainInvokeEvent {
    readonly sender: WebContents
    readonly senderFrame: WebFrameMain | null
  }

  interface IpcMain {
    handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: any[]) => unknown): void
    removeHandler(channel: string): void
  }

  interface OnHeadersReceivedDetails {
    url: string
    responseHeaders?: Record<string, string[]>
  }

  interface Session {
    setPermissionRequestHandler(
      handler: ((webContents: WebContents, permission: string, callback: (granted: boolean) => void) => void) | null
    ): void
    setPermissionCheckHandler(handler: ((webContents: WebContents | null, permission: string) => boolean) | null): void
    readonly webRequest: {
      onHeadersReceived(
        listener: (
          details: OnHeadersReceivedDetails,
          callback: (response: { responseHeaders?: Record<string, string[] | string> }) => void
        ) => void
      ): void
    }
  }

  interface IpcRendererEvent {
    readonly sender: unknown
  }

  interface IpcRenderer {
    invoke(channel: string, ...args: unknown[]): Promise<any>
    on(channel: string, listener: (event: IpcRendererEvent, ...args: any[]) => void): this
    removeListener(channel: string, listener: (...args: any[]) => void): this
  }

  interface ContextBridge {
    exposeInMainWorld(apiKey: string, api: unknown): void
  }

  export const app: App
  export const ipcMain: IpcMain
  export const session: { readonly defaultSession: Session }
  export const ipcRenderer: IpcRenderer
  export const contextBridge: ContextBridge
  export { BrowserWindow }
  export type { IpcMainInvokeEvent, IpcRendererEvent, WebContents }
}
