/** The one API client over the desktop window's transport (as the preload exposes it). */
import { describe, expect, it, vi } from 'vitest'
import type { StrideTransport } from '../../shared/api'
import { createApiClient } from './api-client'
import { ipcSocket } from './ipc-socket'

/** What the preload's transport does, with the main process played by the test. */
function fakeTransport() {
  const sentTexts: string[] = []
  const listeners = new Set<(text: string) => void>()
  const transport: StrideTransport = {
    send: (text) => void sentTexts.push(text),
    onMessage: (listener) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    }
  }
  const fromMain = (message: unknown) => {
    for (const l of listeners) l(JSON.stringify(message))
  }
  const sent = () => sentTexts.map((t) => JSON.parse(t) as Record<string, unknown>)
  return { transport, fromMain, sent, listeners }
}

describe('API client over IPC', () => {
  it('results, error codes, progress, cancel by id and job events, as over the WebSocket', async () => {
    const { transport, fromMain, sent, listeners } = fakeTransport()
    const client = createApiClient({ url: 'ipc:', connect: ipcSocket(transport) })
    const { api } = client

    const listing = api.listExamples({})
    await vi.waitFor(() => expect(sent()).toHaveLength(1))
    expect(sent()[0]).toMatchObject({ method: 'listExamples', input: {} })
    fromMain({ id: sent()[0]!['id'], ok: true, result: [{ name: 'conflict' }] })
    await expect(listing).resolves.toEqual([{ name: 'conflict' }])

    // The error code survives (the old invoke bridge lost it).
    const opening = api.openSession({ path: '/x' })
    await vi.waitFor(() => expect(sent()).toHaveLength(2))
    fromMain({ id: sent()[1]!['id'], ok: false, error: { message: 'No session at /x; check the path.', code: 'not-found' } })
    await expect(opening).rejects.toMatchObject({ code: 'not-found', message: 'No session at /x; check the path.' })

    const controller = new AbortController()
    const progress: unknown[] = []
    const query = api.querySlice({ session: '/s', query: 'q' }, { signal: controller.signal, onProgress: (p) => progress.push(p) })
    await vi.waitFor(() => expect(sent()).toHaveLength(3))
    const id = sent()[2]!['id']
    fromMain({ progress: id, events: 3, total: 9 })
    controller.abort()
    await expect(query).rejects.toMatchObject({ code: 'cancelled' })
    expect(progress).toEqual([{ events: 3, total: 9 }])
    expect(sent()[3]).toEqual({ cancel: id })

    const events: unknown[] = []
    api.on('finished', (p) => events.push(p))
    fromMain({ event: 'finished', payload: { jobId: 'j' } })
    expect(events).toEqual([{ jobId: 'j' }])

    client.close()
    expect(listeners.size).toBe(0)
  })
})
