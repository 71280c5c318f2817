/** The preload against a stand-in for Electron's renderer-side modules. */
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { API_METHODS, type StrideApi } from '../shared/api'

type IpcListener = (event: unknown, ...args: unknown[]) => void

const electron = vi.hoisted(() => ({
  exposed: new Map<string, unknown>(),
  invoke: vi.fn<(channel: string, ...args: unknown[]) => Promise<unknown>>(),
  listeners: new Map<string, Array<(event: unknown, ...args: unknown[]) => void>>()
}))

vi.mock('electron', () => ({
  contextBridge: {
    exposeInMainWorld: (key: string, api: unknown) => electron.exposed.set(key, api)
  },
  ipcRenderer: {
    invoke: electron.invoke,
    on: (channel: string, listener: IpcListener) => {
      electron.listeners.set(channel, [...(electron.listeners.get(channel) ?? []), listener])
    },
    removeListener: () => undefined
  }
}))

function emitIpc(...args: unknown[]): void {
  for (const listener of electron.listeners.get('stride:event') ?? []) listener({ sender: 'ipc internals' }, ...args)
}

let api: StrideApi

beforeEach(async () => {
  vi.resetModules()
  electron.exposed.clear()
  electron.listeners.clear()
  electron.invoke.mockReset()
  await import('./index')
  api = electron.exposed.get('stride') as StrideApi
})

describe('preload bridge', () => {
  it('exposes exactly the StrideApi methods plus on, as window.stride, and nothing else', () => {
    expect([...electron.exposed.keys()]).toEqual(['stride'])
    expect(Object.keys(api).sort()).toEqual([...API_METHODS, 'on'].sort())
    for (const value of Object.values(api)) expect(typeof value).toBe('function')
  })

  it('invokes stride:call with the method and input and unwraps the result', async () => {
    electron.invoke.mockResolvedValue({ ok: true, result: [{ name: 'conflict' }] })
    await expect(api.listExamples({})).resolves.toEqual([{ name: 'conflict' }])
    expect(electron.invoke).toHaveBeenCalledWith('stride:call', 'listExamples', {})
  })

  it('turns an error envelope into a thrown Error with the message', async () => {
    electron.invoke.mockResolvedValue({ ok: false, error: { message: 'No session at /x; check the path.', code: 'not-found' } })
    await expect(api.openSession({ path: '/x' })).rejects.toThrow('No session at /x; check the path.')
  })

  it('delivers only the named event, without the IPC event object, until unsubscribed', () => {
    const progress = vi.fn()
    const finished = vi.fn()
    const stop = api.on('progress', progress)
    api.on('finished', finished)
    emitIpc('progress', { jobId: 'a' })
    expect(progress).toHaveBeenCalledTimes(1)
    expect(progress).toHaveBeenCalledWith({ jobId: 'a' })
    expect(finished).not.toHaveBeenCalled()
    stop()
    emitIpc('progress', { jobId: 'b' })
    expect(progress).toHaveBeenCalledTimes(1)
    expect(electron.listeners.get('stride:event')).toHaveLength(1)
    expect(() => api.on('nope' as 'progress', () => undefined)).toThrow(/Unknown event/)
  })
})
