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
const utf8 = new TextDecoder()

// One IPC subscription for all listeners: no MaxListeners warnings, one place to filter. A
// message comes as text, or as its UTF-8 bytes (a report a worker serialized): decoded here,
// in the window's process, not on the main process's thread.
ipcRenderer.on(MESSAGE_CHANNEL, (_event, message: unknown) => {
  const text = typeof message === 'string' ? message : message instanceof Uint8Array ? utf8.decode(message) : null
  if (text === null) return
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
