/**
 * The owner's side (frida-owner-process.ts): the only code that loads `frida`, once, and
 * serves Stride's requests (availability, process list, traces) with that one binding. Several
 * traces may run at once; each is a FridaTrace on the shared device. Tests run it
 * in-process with a double of `frida`.
 */
import { StrideError } from '../../../shared/errors'
import type { FridaOwnerReply, FridaOwnerRequest } from './attach-protocol'
import { recordAttachSession } from './attach-session'
import { loadFrida, type FridaModule } from './frida-api'
import type { FridaTrace, FridaTraceDeps } from './frida-tracer'
import { listProcesses } from './process-list'

interface RunningTrace {
  trace: FridaTrace | null
  stopAsked: boolean
}

export class FridaOwnerHost {
  private loading: Promise<FridaModule> | null = null
  private readonly traces = new Map<number, RunningTrace>()

  constructor(
    private readonly post: (reply: FridaOwnerReply) => void,
    private readonly deps: Partial<FridaTraceDeps> = {}
  ) {}

  /** Loads `frida` on first use and keeps it: the binding is never loaded twice. */
  private frida(): Promise<FridaModule> {
    this.loading ??= (this.deps.frida ?? loadFrida)()
    return this.loading
  }

  handle(request: FridaOwnerRequest): void {
    switch (request.type) {
      case 'check':
        this.frida().then(
          () => this.post({ type: 'checked', id: request.id, error: null }),
          (e: unknown) => this.post({ type: 'checked', id: request.id, error: errorOf(e) })
        )
        return
      case 'list-processes':
        void listProcesses(() => this.frida()).then((list) => this.post({ type: 'processes', id: request.id, list }))
        return
      case 'trace':
        this.trace(request.id, request.input)
        return
      case 'stop': {
        const running = this.traces.get(request.id)
        if (!running) return
        running.stopAsked = true
        running.trace?.stop('cancelled', 'cancelled by the user')
      }
    }
  }

  private trace(id: number, input: Extract<FridaOwnerRequest, { type: 'trace' }>['input']): void {
    const running: RunningTrace = { trace: null, stopAsked: false }
    this.traces.set(id, running)
    void recordAttachSession(
      input,
      (message) => this.post({ type: 'trace', id, message }),
      {
        onTrace(t) {
          running.trace = t
          if (running.stopAsked) t.stop('cancelled', 'cancelled by the user')
        }
      },
      { ...this.deps, frida: () => this.frida() }
    ).finally(() => this.traces.delete(id))
  }
}

function errorOf(e: unknown): { message: string; code: StrideError['code'] } {
  return e instanceof StrideError ? { message: e.message, code: e.code } : { message: e instanceof Error ? e.message : String(e), code: 'internal' }
}
