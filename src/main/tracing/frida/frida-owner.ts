/**
 * Stride's way to Frida. `frida` may be loaded by one thread per process only (a second
 * thread's device is unusable, or Node aborts) and a worker thread that loaded it crashes
 * Node when torn down, so no Stride thread imports it: one long-lived owner process does
 * (out/main/frida-owner-process.js, forked on first use, its main thread the binding's
 * only user), and the availability check, the process list and every trace are requests
 * to it. It does not keep Stride alive while idle, and exits when Stride does.
 */
import { fork } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { StrideError } from '../../../shared/errors'
import type { ProcessList } from '../../../shared/domain'
import { projectRoot } from '../../paths'
import { JobError, type WorkerHandle } from '../../job-handle'
import type { AttachWorkerInput, AttachWorkerMessage, FridaOwnerReply, FridaOwnerRequest } from './attach-protocol'

export type AttachDone = Extract<AttachWorkerMessage, { type: 'trace-done' }>
export type AttachProgress = Extract<AttachWorkerMessage, { type: 'progress' }>
export type AttachOutput = Extract<AttachWorkerMessage, { type: 'output' }>

/** The owner as the client sees it (the forked process, or an in-process host in tests). */
export interface OwnerChannel {
  post(request: FridaOwnerRequest): void
  onReply(handler: (reply: FridaOwnerReply) => void): void
  /** The owner died: every pending request fails with this message. */
  onFailure(handler: (message: string) => void): void
  /** Keep the process alive while requests are pending; not while idle. */
  busy(busy: boolean): void
}

export function fridaOwnerProcessPath(): string {
  const file = join(projectRoot(), 'out', 'main', 'frida-owner-process.js')
  if (!existsSync(file)) throw new Error(`${file} is missing; run "npm run build" first`)
  return file
}

function processChannel(): OwnerChannel {
  // Electron's own binary runs it as Node; the binding is Node-API, so either runtime loads it.
  const child = fork(fridaOwnerProcessPath(), [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } })
  const keepAlive = (on: boolean) => {
    if (on) {
      child.ref()
      child.channel?.ref()
    } else {
      child.unref()
      child.channel?.unref()
    }
  }
  keepAlive(false)
  return {
    post: (request) => void child.send(request),
    onReply: (handler) => void child.on('message', handler),
    onFailure(handler) {
      child.on('error', (e) => handler(`the Frida process failed: ${e.message}`))
      child.on('exit', (code, signal) => handler(`the Frida process stopped unexpectedly (${signal ?? `exit ${code}`})`))
    },
    busy: keepAlive
  }
}

interface Pending {
  reply(reply: FridaOwnerReply): void
  fail(message: string): void
}

export class FridaOwner {
  private channel: OwnerChannel | null = null
  private nextId = 1
  private readonly pending = new Map<number, Pending>()
  private dead: string | null = null

  constructor(private readonly connect: () => OwnerChannel = processChannel) {}

  private send(request: FridaOwnerRequest, pending: Pending): void {
    if (this.dead) return pending.fail(this.dead)
    if (!this.channel) {
      const channel = this.connect()
      channel.onReply((reply) => this.pending.get(reply.id)?.reply(reply))
      channel.onFailure((message) => {
        // Say why rather than start another silently: a second owner would fail the same way.
        this.dead ??= message
        for (const p of [...this.pending.values()]) p.fail(message)
        this.pending.clear()
      })
      this.channel = channel
    }
    this.pending.set(request.id, pending)
    this.channel.busy(true)
    this.channel.post(request)
  }

  private settle(id: number): void {
    this.pending.delete(id)
    if (this.pending.size === 0) this.channel?.busy(false)
  }

  /** One request with one answer: `answer` turns the matching reply into the result. */
  private ask<T>(request: FridaOwnerRequest, type: FridaOwnerReply['type'], answer: (reply: FridaOwnerReply) => T): Promise<T> {
    return new Promise((resolve, reject) =>
      this.send(request, {
        reply: (r) => {
          if (r.type !== type) return
          this.settle(request.id)
          try {
            resolve(answer(r))
          } catch (e) {
            reject(e)
          }
        },
        fail: (message) => reject(new StrideError(message, 'internal'))
      })
    )
  }

  /** Resolves when `frida` loads in the owner; else the one-line install hint. */
  check(): Promise<void> {
    return this.ask({ type: 'check', id: this.nextId++ }, 'checked', (r) => {
      if (r.type === 'checked' && r.error) throw new StrideError(r.error.message, r.error.code)
    })
  }

  /** Frida's process list (or /proc's, with the reason Frida is missing). */
  listProcesses(): Promise<ProcessList> {
    return this.ask({ type: 'list-processes', id: this.nextId++ }, 'processes', (r) => (r as Extract<FridaOwnerReply, { type: 'processes' }>).list)
  }

  /** One trace in the owner, written to `input.out`; stop = end and detach, kept. `onOutput`: a launched program's output. */
  trace(input: AttachWorkerInput, onProgress: (p: AttachProgress) => void, onOutput: (o: AttachOutput) => void = () => {}): WorkerHandle<AttachDone> {
    const id = this.nextId++
    const result = new Promise<AttachDone>((resolve, reject) =>
      this.send(
        { type: 'trace', id, input },
        {
          reply: (r) => {
            if (r.type !== 'trace') return
            const m = r.message
            if (m.type === 'progress') return onProgress(m)
            if (m.type === 'output') return onOutput(m)
            this.settle(id)
            if (m.type === 'trace-done') resolve(m)
            else reject(new JobError(m.message, m.code, m.session))
          },
          fail: (message) => reject(new JobError(message, 'internal', null))
        }
      )
    )
    return { result, stop: () => this.channel?.post({ type: 'stop', id }) }
  }
}

/**
 * The owner host in the calling thread, which then owns `frida` (tests: one test file per
 * process, the double or the real binding loaded nowhere else).
 */
export function inProcessChannel(host: (post: (reply: FridaOwnerReply) => void) => { handle(request: FridaOwnerRequest): void }): OwnerChannel {
  let onReply: (reply: FridaOwnerReply) => void = () => {}
  // Answers arrive asynchronously, as they would from the owner process.
  const h = host((reply) => setImmediate(() => onReply(structuredClone(reply))))
  return {
    post: (request) => setImmediate(() => h.handle(structuredClone(request))),
    onReply: (handler) => void (onReply = handler),
    onFailure: () => {},
    busy: () => {}
  }
}

let shared: FridaOwner | null = null

/** This process's one Frida owner. */
export function fridaOwner(): FridaOwner {
  shared ??= new FridaOwner()
  return shared
}

/** Replaces this process's owner before first use (tests: an in-process host). */
export function useFridaOwner(owner: FridaOwner): void {
  shared = owner
}
