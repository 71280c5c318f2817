/**
 * The one StrideApi client, over either transport (the web-mode WebSocket, or the desktop
 * window's IPC channel, both speaking the wire format in shared/api.ts): one request id per
 * call, answers and progress matched by id, cancel by id when the call's signal aborts, job
 * events fanned out to `on` listeners, and reconnection with backoff so a dropped socket
 * does not leave the UI deaf to job events. Written against `SocketConnector` only (no DOM
 * or Node types) so the same code runs in the browser, in the desktop window and in tests.
 */
import { API_METHODS, StrideError, type ApiMethod, type CallOptions, type CallProgress, type StrideApi, type StrideErrorCode } from '../../shared/api'
import { createEventHub } from '../../shared/event-hub'
import type { SocketConnection, SocketConnector } from './socket'

export interface ApiClientOptions {
  url: string
  connect: SocketConnector
  /** Delay before the next reconnect after `attempt` consecutive failures (1, 2, ...). */
  backoffMs?: (attempt: number) => number
}

export interface ApiClient {
  api: StrideApi
  /** Stop reconnecting, fail whatever is pending, close the socket. */
  close(): void
}

/** 0.25 s doubling to 10 s, with jitter so many tabs do not retry in lockstep. */
export function defaultBackoff(attempt: number): number {
  const ceiling = Math.min(10_000, 250 * 2 ** Math.min(attempt - 1, 6))
  return ceiling / 2 + Math.random() * (ceiling / 2)
}

interface Pending {
  method: ApiMethod
  text: string
  sent: boolean
  onProgress: ((progress: CallProgress) => void) | undefined
  resolve(value: unknown): void
  reject(error: Error): void
}

const cancelledError = (method: ApiMethod) => new StrideError(`${method} was cancelled.`, 'cancelled')

export function createApiClient(options: ApiClientOptions): ApiClient {
  const backoff = options.backoffMs ?? defaultBackoff
  const pending = new Map<number, Pending>()
  const events = createEventHub()
  let nextId = 1
  let socket: SocketConnection | null = null
  let open = false
  let failedAttempts = 0
  let retryTimer: ReturnType<typeof setTimeout> | null = null
  let closed = false

  function connect(): void {
    if (closed || socket) return
    let opened = false
    let current: SocketConnection | null = null
    const isCurrent = (): boolean => current !== null && socket === current
    current = options.connect(options.url, {
      onOpen: () => {
        if (!isCurrent()) return
        opened = true
        open = true
        failedAttempts = 0
        for (const entry of pending.values()) {
          if (!entry.sent) send(entry)
        }
      },
      onMessage: (text) => {
        if (isCurrent()) receive(text)
      },
      onClose: () => {
        if (!isCurrent()) return
        socket = null
        open = false
        dropPending(opened)
        if (!opened) failedAttempts += 1
        scheduleReconnect()
      }
    })
    socket = current
  }

  function send(entry: Pending): void {
    entry.sent = true
    socket?.send(entry.text)
  }

  function scheduleReconnect(): void {
    if (closed || retryTimer !== null) return
    retryTimer = setTimeout(() => {
      retryTimer = null
      connect()
    }, backoff(Math.max(1, failedAttempts)))
  }

  /**
   * A request already sent on a lost socket may or may not have run, and one that never
   * got a socket cannot be sent: either way its caller must hear about it now rather than
   * wait for a reconnect that may never come (a restarted server has a new token).
   */
  function dropPending(wasOpen: boolean): void {
    for (const [id, entry] of pending) {
      if (entry.sent) {
        entry.reject(
          new StrideError(
            `The connection to Stride was lost before ${entry.method} answered; check that \`stride serve\` is still running and retry.`,
            'internal'
          )
        )
        pending.delete(id)
      } else if (!wasOpen) {
        entry.reject(
          new StrideError(
            'Cannot reach the Stride server; check that `stride serve` is still running and open the exact URL it printed (it carries the access token).',
            'internal'
          )
        )
        pending.delete(id)
      }
    }
  }

  function receive(text: string): void {
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      return
    }
    if (typeof message !== 'object' || message === null) return
    const m = message as Record<string, unknown>
    if ('event' in m) {
      events.emit(m.event, m.payload)
      return
    }
    if (typeof m.progress === 'number') {
      const entry = pending.get(m.progress)
      if (entry?.onProgress && typeof m.events === 'number') {
        try {
          entry.onProgress({ events: m.events, total: typeof m.total === 'number' ? m.total : null })
        } catch (err) {
          console.error(`[stride] a ${entry.method} progress listener failed:`, err)
        }
      }
      return
    }
    if (typeof m.id !== 'number') return
    const entry = pending.get(m.id)
    if (!entry) {
      if (m.ok === false) console.warn('[stride] the server refused a request:', m.error)
      return
    }
    pending.delete(m.id)
    if (m.ok === true) {
      entry.resolve(m.result)
      return
    }
    const error = (m.error ?? {}) as { message?: unknown; code?: unknown }
    const messageText = typeof error.message === 'string' ? error.message : `${entry.method} failed.`
    const code = (typeof error.code === 'string' ? error.code : 'internal') as StrideErrorCode
    entry.reject(new StrideError(messageText, code))
  }

  function call(method: ApiMethod, input: unknown, callOptions: CallOptions = {}): Promise<unknown> {
    if (closed) return Promise.reject(new StrideError('The Stride connection is closed; reload the page.', 'internal'))
    const { signal, onProgress } = callOptions
    if (signal?.aborted) return Promise.reject(cancelledError(method))
    return new Promise((resolve, reject) => {
      const id = nextId++
      const onAbort = () => {
        const entry = pending.get(id)
        if (!entry) return
        pending.delete(id)
        // Sent: the backend stops the work (its late answer is ignored); not sent: it never runs.
        if (entry.sent && open) socket?.send(JSON.stringify({ cancel: id }))
        entry.reject(cancelledError(method))
      }
      const settle = <T>(done: (value: T) => void) => (value: T) => {
        signal?.removeEventListener('abort', onAbort)
        done(value)
      }
      const entry: Pending = {
        method,
        text: JSON.stringify({ id, method, input: input ?? {} }),
        sent: false,
        onProgress,
        resolve: settle(resolve),
        reject: settle(reject)
      }
      pending.set(id, entry)
      signal?.addEventListener('abort', onAbort, { once: true })
      if (open) send(entry)
      else connect()
    })
  }

  const methods = Object.fromEntries(API_METHODS.map((m) => [m, (input: unknown, callOptions?: CallOptions) => call(m, input, callOptions)]))
  const api = Object.freeze({ ...methods, on: events.on }) as StrideApi

  connect()

  return {
    api,
    close: () => {
      closed = true
      if (retryTimer !== null) clearTimeout(retryTimer)
      retryTimer = null
      const last = socket
      socket = null
      open = false
      for (const entry of pending.values()) {
        entry.reject(new StrideError('The Stride connection was closed.', 'internal'))
      }
      pending.clear()
      last?.close()
    }
  }
}
