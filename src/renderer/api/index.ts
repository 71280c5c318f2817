/**
 * The renderer's way to the backend: the Electron preload's `window.stride` when running
 * in the desktop window, else a WebSocket client to the web-mode server that served the page.
 */
import type { StrideApi } from '../../shared/api'
import { browserSocket } from './browser-socket'
import { apiUrl, resolveToken, type TokenStore } from './location'
import { createWebSocketClient } from './ws-client'

let webApi: StrideApi | null = null

function tabStorage(): TokenStore | null {
  try {
    return window.sessionStorage
  } catch {
    return null
  }
}

export function getStrideApi(): StrideApi {
  if (window.stride) return window.stride
  webApi ??= createWebSocketClient({
    url: apiUrl(window.location, resolveToken(window.location.search, tabStorage())),
    connect: browserSocket
  }).api
  return webApi
}

export { createWebSocketClient } from './ws-client'
export type { SocketConnector } from './socket'
