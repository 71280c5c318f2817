/**
 * A stand-in for the `frida` package (tests only): a local device whose sessions run a
 * scripted agent in-process. Each failure Frida can raise at the API boundary can be set:
 * attach/spawn/createScript errors, a fatal message from the agent, the target exiting.
 */
import { RECORD, RECORD_BYTES } from '../../../../agent/protocol'
import type { AgentMessage, HostMessage } from '../../../../agent/protocol'
import type { FridaDevice, FridaMessage, FridaModule, FridaScript, FridaSession, FridaSignal, FridaSpawnOptions } from '../frida-api'

export class Signal<H extends (...args: never[]) => void> implements FridaSignal<H> {
  readonly handlers = new Set<H>()
  connect(h: H): void {
    this.handlers.add(h)
  }
  disconnect(h: H): void {
    this.handlers.delete(h)
  }
  emit(...args: Parameters<H>): void {
    for (const h of [...this.handlers]) h(...args)
  }
}

/** What the scripted agent does when the host posts a message. */
export type AgentBehaviour = (m: HostMessage, agent: ScriptedAgent) => void

export class ScriptedAgent implements FridaScript {
  readonly message = new Signal<(message: FridaMessage, data: Buffer | null) => void>()
  readonly posted: HostMessage[] = []
  loaded = false
  unloaded = false
  private seq = 0
  constructor(private readonly behaviour: AgentBehaviour, readonly session: SessionDouble) {}
  async load(): Promise<void> {
    this.loaded = true
  }
  async unload(): Promise<void> {
    this.unloaded = true
  }
  post(message: unknown): void {
    this.posted.push(message as HostMessage)
    // The agent runs on its own thread: answer asynchronously, as Frida does.
    queueMicrotask(() => this.behaviour(message as HostMessage, this))
  }
  send(payload: AgentMessage, data: Buffer | null = null): void {
    this.message.emit({ type: 'send', payload }, data)
  }
  sendBatch(records: Buffer): void {
    this.send({ type: 'batch', seq: ++this.seq, records: records.length / RECORD_BYTES, lost: 0, untraced: 0 }, records)
  }
}

export class SessionDouble implements FridaSession {
  readonly detached = new Signal<(reason: string, crash: unknown) => void>()
  script: ScriptedAgent | null = null
  detachedByHost = false
  constructor(private readonly behaviour: AgentBehaviour, private readonly createError: Error | null) {}
  async createScript(): Promise<ScriptedAgent> {
    if (this.createError) throw this.createError
    return (this.script = new ScriptedAgent(this.behaviour, this))
  }
  async detach(): Promise<void> {
    this.detachedByHost = true
  }
}

export interface DoubleOptions {
  behaviour?: AgentBehaviour
  attachError?: Error
  spawnError?: Error
  createScriptError?: Error
  /** spawn() returns this pid (a real process: the tracer reads its /proc entries). */
  spawnPid?: number
}

export function fridaDouble(options: DoubleOptions = {}): { frida: FridaModule; device: FridaDevice & { output: Signal<(pid: number, fd: number, data: Buffer) => void> }; sessions: SessionDouble[]; resumed: number[]; spawned: FridaSpawnOptions[]; killed: number[] } {
  const sessions: SessionDouble[] = []
  const resumed: number[] = []
  const spawned: FridaSpawnOptions[] = []
  const killed: number[] = []
  const device = {
    output: new Signal<(pid: number, fd: number, data: Buffer) => void>(),
    enumerateProcesses: async () => [],
    attach: async () => {
      if (options.attachError) throw options.attachError
      const s = new SessionDouble(options.behaviour ?? standardAgent(0), options.createScriptError ?? null)
      sessions.push(s)
      return s
    },
    spawn: async (_program: string | string[], spawnOptions: FridaSpawnOptions = {}) => {
      if (options.spawnError || options.spawnPid === undefined) throw options.spawnError ?? new Error('spawn is not scripted in this double')
      spawned.push(spawnOptions)
      return options.spawnPid
    },
    resume: async (pid: number) => void resumed.push(pid),
    // Killed: its sessions see it end, as Frida reports it.
    kill: async (pid: number) => {
      killed.push(pid)
      for (const s of sessions) setTimeout(() => s.detached.emit('process-terminated', null), 5)
    }
  } satisfies FridaDevice
  return { frida: { getLocalDevice: async () => device }, device, sessions, resumed, spawned, killed }
}

/** Encodes access records [pc, kind, address, size] as the agent's ring does. */
export function accessRecords(accesses: Array<[number, number, number, number]>, thread = 1): Buffer {
  const buf = Buffer.alloc(accesses.length * RECORD_BYTES)
  accesses.forEach(([pc, kind, address, size], i) => {
    const o = i * RECORD_BYTES
    buf.writeUInt8(1, o + RECORD.type)
    buf.writeUInt8(kind, o + RECORD.kind)
    buf.writeUInt16LE(size, o + RECORD.size)
    buf.writeUInt32LE(thread, o + RECORD.thread)
    buf.writeBigUInt64LE(BigInt(pc), o + RECORD.a)
    buf.writeBigUInt64LE(BigInt(address), o + RECORD.b)
  })
  return buf
}

/**
 * A well-behaved agent: on start, 'ready' and `batches` batches of 1000 reads by the first
 * chosen function's first instruction; on stop, 'stopped'.
 */
export function standardAgent(batches: number): AgentBehaviour {
  return (m, agent) => {
    if (m.type === 'start') {
      agent.send({ type: 'ready', arch: 'x64', pid: 1, functions: m.functions.map((f) => f.name) })
      const pc = Number(m.functions[0]!.start)
      for (let b = 0; b < batches; b++) agent.sendBatch(accessRecords(Array.from({ length: 1000 }, (_, i) => [pc, 0, 0x10000 + (b * 1000 + i) * 8, 8])))
    } else if (m.type === 'stop') agent.send({ type: 'stopped', lost: 0, untraced: 0 })
  }
}
