/** The preload against a stand-in for Electron's renderer-side modules. */
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { StrideTransport } from '../shared/api'

type IpcListener = (event: unknown, ...args: unknown[]) => void

const electron = vi.hoisted(() => ({
  exposed: new Map<string, unknown>(),
  send: vi.fn<(channel: string, ...args: unknown[]) => void>(),
  listeners: new Map<string, Array<(event: unknown, ...args: unknown[]) => void>>()
}))

vi.mock('electron', () => ({
  contextBridge: {
    exposeInMainWorld: (key: string, api: unknown) => electron.exposed.set(key, api)
  },
  ipcRenderer: {
    send: electron.send,
    on: (channel: string, listener: IpcListener) => {
      electron.listeners.set(channel, [...(electron.listeners.get(channel) ?? []), listener])
    },
    removeListener: () => undefined
  }
}))

/** The main process sending one wire message to the window. */
function fromMain(message: unknown): void {
  for (const listener of electron.listeners.get('stride:message') ?? []) listener({ sender: 'ipc internals' }, JSON.stringify(message))
}

let transport: StrideTransport

beforeEach(async () => {
  vi.resetModules()
  electron.exposed.clear()
  electron.listeners.clear()
  electron.send.mockReset()
  await import('./index')
  transport = electron.exposed.get('strideTransport') as StrideTransport
})

describe('preload bridge', () => {
  it('exposes only a message transport, as window.strideTransport', () => {
    expect([...electron.exposed.keys()]).toEqual(['strideTransport'])
    expect(Object.keys(transport).sort()).toEqual(['onMessage', 'send'])
  })

  it('sends text on stride:send and hands listeners the text only, never the IPC event', () => {
    const heard: unknown[][] = []
    const off = transport.onMessage((...args: unknown[]) => heard.push(args))
    transport.send('{"id":1}')
    expect(electron.send).toHaveBeenCalledWith('stride:send', '{"id":1}')
    fromMain({ event: 'progress', payload: { jobId: 'a' } })
    expect(heard).toEqual([['{"event":"progress","payload":{"jobId":"a"}}']])
    off()
    fromMain({ event: 'progress', payload: { jobId: 'b' } })
    expect(heard).toHaveLength(1)
    expect(electron.listeners.get('stride:message')).toHaveLength(1)
    expect(() => transport.send({ id: 1 } as unknown as string)).toThrow(/text of one wire message/)
  })
  it('hands listeners a message the main process sent as UTF-8 bytes as its text, and ignores anything else', () => {
    const heard: unknown[] = []
    transport.onMessage((text) => heard.push(text))
    const text = JSON.stringify({ id: 2, ok: true, result: { note: 'é —' } })
    for (const listener of electron.listeners.get('stride:message') ?? []) {
      listener({ sender: 'ipc internals' }, new TextEncoder().encode(text))
      listener({ sender: 'ipc internals' }, { id: 3 })
    }
    expect(heard).toEqual([text])
  })
})
