import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { StrideError, type JobFinished } from '../../shared/api'
import { apiUrl, resolveToken, tabClientId, TOKEN_STORAGE_KEY, type TokenStore } from './location'
import type { SocketHandlers } from './socket'
import { createApiClient, defaultBackoff, type ApiClient } from './api-client'

/** A socket the test drives by hand: what the client sent, and server-side controls. */
class FakeSocket {
  sent: unknown[] = []
  closed = false
  constructor(
    readonly url: string,
    readonly handlers: SocketHandlers
  ) {}
  open(): void {
    this.handlers.onOpen()
  }
  reply(message: unknown): void {
    this.handlers.onMessage(JSON.stringify(message))
  }
  drop(): void {
    this.handlers.onClose()
  }
  lastRequest(): { id: number; method: string; input: unknown } {
    return this.sent[this.sent.length - 1] as { id: number; method: string; input: unknown }
  }
}

let sockets: FakeSocket[]
let client: ApiClient

function start(): ApiClient {
  client = createApiClient({
    url: 'ws://127.0.0.1:4000/api?token=t',
    backoffMs: (attempt) => attempt * 100,
    connect: (url, handlers) => {
      const socket = new FakeSocket(url, handlers)
      sockets.push(socket)
      return {
        send: (text) => socket.sent.push(JSON.parse(text)),
        close: () => {
          socket.closed = true
        }
      }
    }
  })
  return client
}

const latest = (): FakeSocket => sockets[sockets.length - 1]!

beforeEach(() => {
  sockets = []
  vi.useFakeTimers()
})
afterEach(() => {
  client.close()
  vi.useRealTimers()
})

describe('WebSocket StrideApi client', () => {
  it('connects at once, queues calls until open, and resolves them by id', async () => {
    const { api } = start()
    expect(sockets).toHaveLength(1)
    expect(latest().url).toBe('ws://127.0.0.1:4000/api?token=t')
    const examples = api.listExamples({})
    const recent = api.recentSessions({})
    expect(latest().sent).toEqual([])
    latest().open()
    expect(latest().sent).toEqual([
      { id: 1, method: 'listExamples', input: {} },
      { id: 2, method: 'recentSessions', input: {} }
    ])
    latest().reply({ id: 2, ok: true, result: [] })
    latest().reply({ id: 1, ok: true, result: [{ name: 'conflict' }] })
    await expect(examples).resolves.toEqual([{ name: 'conflict' }])
    await expect(recent).resolves.toEqual([])
  })

  it('exposes exactly the contract: every API method plus on', () => {
    const { api } = start()
    expect(Object.keys(api).sort()).toEqual(
      [
        'cancelJob',
        'computeFunctionStreams',
        'getAdvice',
        'getObjects',
        'getReport',
        'getRunFigures',
        'getSharedLines',
        'getSource',
        'getThreadBreakdown',
        'inspectProgram',
        'listExamples',
        'hostHierarchy',
        'hotFunctions',
        'on',
        'openSession',
        'recentSessions',
        'renameRun',
        'simulate',
        'startTrace',
        // Frida attach
        'listProcesses',
        'inspectProcess',
        'startAttach',
        // query slices
        'querySlice',
        // file pickers
        'listDirectory',
        'checkPath',
        'chooseFile'
      ].sort()
    )
  })

  it('rejects with the server message and code as a StrideError', async () => {
    const { api } = start()
    latest().open()
    const opening = api.openSession({ path: '/x.stride' })
    latest().reply({ id: latest().lastRequest().id, ok: false, error: { message: 'No session at /x.stride.', code: 'not-found' } })
    const error = await opening.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StrideError)
    expect((error as StrideError).message).toBe('No session at /x.stride.')
    expect((error as StrideError).code).toBe('not-found')
  })

  it('hands progress for a request to that call alone, and ignores progress for unknown ids', async () => {
    const { api } = start()
    latest().open()
    const heard: unknown[] = []
    const other: unknown[] = []
    const query = api.querySlice({ session: '/s.stride', query: '[{*},{*},{misses}]' }, { onProgress: (p) => heard.push(p) })
    const id = latest().lastRequest().id
    api.getObjects({ session: '/s.stride' }, { onProgress: (p) => other.push(p) }).catch(() => undefined)
    latest().reply({ progress: id, events: 5, total: 10 })
    latest().reply({ progress: 999, events: 1, total: null })
    latest().reply({ progress: id, events: 7, total: null })
    latest().reply({ id, ok: true, result: { cells: [] } })
    await expect(query).resolves.toEqual({ cells: [] })
    expect(heard).toEqual([
      { events: 5, total: 10 },
      { events: 7, total: null }
    ])
    expect(other).toEqual([])
  })

  it('cancels by id when the signal aborts: the server is told, the call rejects as cancelled, a late answer is ignored', async () => {
    const { api } = start()
    latest().open()
    const controller = new AbortController()
    const query = api.querySlice({ session: '/s.stride', query: 'q' }, { signal: controller.signal })
    const id = latest().lastRequest().id
    controller.abort()
    await expect(query).rejects.toMatchObject({ code: 'cancelled', message: 'querySlice was cancelled.' })
    expect(latest().sent[latest().sent.length - 1]).toEqual({ cancel: id })
    latest().reply({ id, ok: true, result: 'late' })
    // An already-aborted signal never sends the request at all.
    const before = latest().sent.length
    await expect(api.getReport({ session: '/s.stride' }, { signal: controller.signal })).rejects.toMatchObject({ code: 'cancelled' })
    expect(latest().sent.length).toBe(before)
  })

  it('a call aborted before the socket opened is never sent', async () => {
    const { api } = start()
    const controller = new AbortController()
    const call = api.getReport({ session: '/s.stride' }, { signal: controller.signal })
    controller.abort()
    await expect(call).rejects.toMatchObject({ code: 'cancelled' })
    latest().open()
    expect(latest().sent).toEqual([])
  })

  it('delivers events to listeners of that event until they unsubscribe', () => {
    const { api } = start()
    latest().open()
    const finished: JobFinished[] = []
    const failedSeen = vi.fn()
    const stop = api.on('finished', (p) => finished.push(p))
    api.on('failed', failedSeen)
    const payload: JobFinished = {
      jobId: 'j',
      kind: 'trace',
      session: '/s.stride',
      run: null,
      partial: false,
      stopReason: 'completed',
      message: null
    }
    latest().reply({ event: 'finished', payload })
    expect(finished).toEqual([payload])
    expect(failedSeen).not.toHaveBeenCalled()
    stop()
    latest().reply({ event: 'finished', payload })
    expect(finished).toHaveLength(1)
    expect(() => api.on('bogus' as 'finished', () => undefined)).toThrow(/Unknown event/)
  })

  it('keeps other listeners going when one throws', () => {
    const { api } = start()
    latest().open()
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const second = vi.fn()
    api.on('progress', () => {
      throw new Error('view bug')
    })
    api.on('progress', second)
    latest().reply({ event: 'progress', payload: { jobId: 'j' } })
    expect(second).toHaveBeenCalledWith({ jobId: 'j' })
  })

  it('fails calls in flight when the socket drops, then reconnects with backoff and keeps events', async () => {
    const { api } = start()
    latest().open()
    const seen = vi.fn()
    api.on('progress', seen)
    const inFlight = api.getReport({ session: '/s.stride' })
    latest().drop()
    await expect(inFlight).rejects.toThrow(/connection to Stride was lost before getReport/)
    expect(sockets).toHaveLength(1)
    vi.advanceTimersByTime(100)
    expect(sockets).toHaveLength(2)
    latest().open()
    latest().reply({ event: 'progress', payload: { jobId: 'k' } })
    expect(seen).toHaveBeenCalledWith({ jobId: 'k' })
    const again = api.listExamples({})
    latest().reply({ id: latest().lastRequest().id, ok: true, result: [] })
    await expect(again).resolves.toEqual([])
  })

  it('backs off longer after each failed attempt and resets once connected', () => {
    start()
    latest().drop()
    vi.advanceTimersByTime(100)
    expect(sockets).toHaveLength(2)
    latest().drop()
    vi.advanceTimersByTime(199)
    expect(sockets).toHaveLength(2)
    vi.advanceTimersByTime(1)
    expect(sockets).toHaveLength(3)
    latest().open()
    latest().drop()
    vi.advanceTimersByTime(100)
    expect(sockets).toHaveLength(4)
  })

  it('rejects calls that could not be sent because the server is unreachable', async () => {
    const { api } = start()
    const call = api.listExamples({})
    latest().drop()
    await expect(call).rejects.toThrow(/Cannot reach the Stride server/)
  })

  it('close() stops reconnecting and fails pending calls', async () => {
    const c = start()
    const call = c.api.listExamples({})
    c.close()
    await expect(call).rejects.toThrow(/closed/)
    expect(latest().closed).toBe(true)
    latest().drop()
    vi.advanceTimersByTime(60_000)
    expect(sockets).toHaveLength(1)
    await expect(c.api.listExamples({})).rejects.toThrow(/closed/)
  })

  it('ignores malformed frames and answers to unknown ids', () => {
    const { api } = start()
    latest().open()
    const seen = vi.fn()
    api.on('progress', seen)
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    latest().handlers.onMessage('not json')
    latest().reply({ id: 999, ok: true, result: 1 })
    latest().reply({ event: 'nonsense', payload: 1 })
    expect(seen).not.toHaveBeenCalled()
  })
})

describe('web-mode location helpers', () => {
  function memoryStore(): TokenStore & { data: Map<string, string> } {
    const data = new Map<string, string>()
    return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) }
  }

  it('takes the token from the URL and remembers it for the tab', () => {
    const store = memoryStore()
    expect(resolveToken('?token=abc_-1', store)).toBe('abc_-1')
    expect(store.data.get(TOKEN_STORAGE_KEY)).toBe('abc_-1')
    expect(resolveToken('', store)).toBe('abc_-1')
    expect(resolveToken('', null)).toBeNull()
  })

  it('survives storage that throws', () => {
    const broken: TokenStore = {
      getItem: () => {
        throw new Error('denied')
      },
      setItem: () => {
        throw new Error('denied')
      }
    }
    expect(resolveToken('?token=x', broken)).toBe('x')
    expect(resolveToken('', broken)).toBeNull()
  })

  it('builds the ws URL from the page location', () => {
    expect(apiUrl({ protocol: 'http:', host: '127.0.0.1:5000' }, 'a+b')).toBe('ws://127.0.0.1:5000/api?token=a%2Bb')
    expect(apiUrl({ protocol: 'https:', host: 'h:1' }, null)).toBe('wss://h:1/api')
    expect(apiUrl({ protocol: 'http:', host: 'h:1' }, 't', 'c-1')).toBe('ws://h:1/api?token=t&client=c-1')
  })

  it("keeps the tab's client id for the tab's life, so its jobs' events find it after a reload", () => {
    const data = new Map<string, string>()
    const store: TokenStore = { getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) }
    let n = 0
    const fresh = () => `id-${++n}`
    expect(tabClientId(store, fresh)).toBe('id-1')
    expect(tabClientId(store, fresh)).toBe('id-1')
    expect(tabClientId(null, fresh)).toBe('id-2')
  })

  it('backs off from a quarter second up to ten seconds', () => {
    for (let i = 0; i < 50; i++) {
      const first = defaultBackoff(1)
      expect(first).toBeGreaterThanOrEqual(125)
      expect(first).toBeLessThanOrEqual(250)
      expect(defaultBackoff(40)).toBeLessThanOrEqual(10_000)
      expect(defaultBackoff(40)).toBeGreaterThanOrEqual(5_000)
    }
  })
})
