/**
 * The only bridge between the sandboxed renderer and the main process: a message transport
 * for the wire format of src/shared/api.ts, as `window.strideTransport` (text in, text out).
 * The renderer's API client runs on top of it, as it does on web mode's WebSocket; the main
 * process validates every message. ipcRenderer itself never crosses over, and neither do IPC
 * event objects (they would hand the page `sender`).
 */
import { contextBridge, ipcRenderer } from 'electron'
import type { StrideTransport } from '../shared/api'

const SEND_CHANNEL = 'stride:send'
const MESSAGE_CHANNEL = 'stride:message'

const listeners = new Set<(text: string) => void>()

// One IPC subscription for all listeners: no MaxListeners warnings, one place to filter.
ipcRenderer.on(MESSAGE_CHANNEL, (_event, text: unknown) => {
  if (typeof text !== 'string') return
  for (const listener of [...listeners]) {
    try {
      listener(text)
    } catch (err) {
      console.error('[stride] a message listener failed:', err)
    }
  }
})

const transport: StrideTransport = {
  send(text) {
    if (typeof text !== 'string') throw new TypeError('strideTransport.send takes the text of one wire message.')
    ipcRenderer.send(SEND_CHANNEL, text)
  },
  onMessage(listener) {
    if (typeof listener !== 'function') throw new TypeError('strideTransport.onMessage takes a listener function.')
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
    }
  }
}

contextBridge.exposeInMainWorld('strideTransport', transport)
