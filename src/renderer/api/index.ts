/**
 * The renderer's way to the backend: one API client, over the desktop preload's IPC
 * transport when running in the Electron window, else over a WebSocket to the web-mode
 * server that served the page.
 */
import type { StrideApi } from '../../shared/api'
import { createApiClient } from './api-client'
import { browserSocket } from './browser-socket'
import { ipcSocket } from './ipc-socket'
import { apiUrl, resolveToken, tabClientId, type TokenStore } from './location'

let api: StrideApi | null = null

function tabStorage(): TokenStore | null {
  try {
    return window.sessionStorage
  } catch {
    return null
  }
}

export function getStrideApi(): StrideApi {
  if (api) return api
  const transport = window.strideTransport
  const storage = tabStorage()
  api = transport
    ? createApiClient({ url: 'ipc:', connect: ipcSocket(transport) }).api
    : createApiClient({ url: apiUrl(window.location, resolveToken(window.location.search, storage), tabClientId(storage)), connect: browserSocket }).api
  return api
}

export { createApiClient } from './api-client'
export type { SocketConnector } from './socket'
