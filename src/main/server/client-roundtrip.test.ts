/** The renderer's API client against the real web-mode server, over real sockets. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { StrideError, type JobFailed } from '../../shared/api'
import type { SocketConnector } from '../../renderer/api/socket'
import { createApiClient, type ApiClient } from '../../renderer/api/api-client'
import { startWebServer, type WebServer } from './index'
import { FakeBackend } from './test-backend'

let rendererDir: string
let server: WebServer
let backend: FakeBackend
let client: ApiClient

/** What browsers do: send the page's Origin. */
function nodeSocket(origin: string): SocketConnector {
  return (url, handlers) => {
    const ws = new WebSocket(url, { headers: { Origin: origin } })
    ws.on('open', () => handlers.onOpen())
    ws.on('message', (data, isBinary) => {
      if (!isBinary) handlers.onMessage(data.toString())
    })
    ws.on('close', () => handlers.onClose())
    ws.on('error', () => undefined)
    return { send: (text) => ws.send(text), close: () => ws.close() }
  }
}

beforeAll(() => {
  rendererDir = mkdtempSync(join(tmpdir(), 'stride-client-'))
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html>')
})
afterAll(() => rmSync(rendererDir, { recursive: true, force: true }))
afterEach(async () => {
  client.close()
  await server.close()
})

async function setup(token?: string): Promise<ApiClient> {
  backend = new FakeBackend()
  server = await startWebServer({ backend, rendererDir })
  const url = `ws://127.0.0.1:${server.port}/api?token=${token ?? server.token}&client=roundtrip1`
  client = createApiClient({ url, connect: nodeSocket(`http://127.0.0.1:${server.port}`), backoffMs: () => 20 })
  return client
}

it('calls, errors and events travel end to end', async () => {
  const { api } = await setup()
  await expect(api.listExamples({})).resolves.toEqual([{ name: 'conflict', echo: {} }])

  const error = await api.openSession({ path: '/nope.stride' }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(StrideError)
  expect(error).toMatchObject({ code: 'not-found', message: 'No session at /nope.stride; check the path.' })

  const failed: JobFailed = { jobId: 'j', kind: 'simulate', error: 'Session is damaged; re-record it.', session: null }
  const heard = new Promise<JobFailed>((resolve) => api.on('failed', resolve))
  backend.emit('failed', failed, 'tab-roundtrip1')
  await expect(heard).resolves.toEqual(failed)
})

it('a call hears its progress, and aborting its signal cancels it on the server', async () => {
  const { api } = await setup()
  const controller = new AbortController()
  const progress: unknown[] = []
  const call = api.querySlice({ session: 's', query: '[{*},{*},{misses}]' }, {
    signal: controller.signal,
    onProgress: (p) => {
      progress.push(p)
      controller.abort()
    }
  })
  await expect(call).rejects.toMatchObject({ code: 'cancelled', message: 'querySlice was cancelled.' })
  expect(progress).toEqual([{ events: 1, total: 2 }])
  await vi.waitFor(() => expect(backend.aborted).toEqual(['querySlice']))
  // The connection stays usable after a cancel.
  await expect(api.listExamples({})).resolves.toEqual([{ name: 'conflict', echo: {} }])
})

it('a wrong token surfaces as a clear rejection, not a hang', async () => {
  const { api } = await setup('wrong')
  await expect(api.listExamples({})).rejects.toThrow(/Cannot reach the Stride server/)
})
