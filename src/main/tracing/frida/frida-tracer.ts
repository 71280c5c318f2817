/**
 * The Frida backend (METRIC section 2's online flow): attach to a running process (or
 * spawn one suspended), load the agent, instrument the chosen functions, take batches
 * until N events, T seconds, the sampling mode's end or a stop; then remove all
 * instrumentation and detach, so the target continues at full speed. Batches go through
 * the TraceAssembler into the same session writer and correlator the Valgrind backend
 * feeds. Every failure keeps what was recorded (the caller marks the session partial).
 */
import { readFileSync, realpathSync } from 'node:fs'
import { StrideError } from '../../../shared/errors'
import type { TraceStopReason } from '../../../shared/domain'
import type { AgentMessage, HostMessage, SamplingMode } from '../../../agent/protocol'
import type { PointRecord } from '../../store/session-writer'
import { readElf, type ElfInfo } from '../../symbols/elf-reader'
import { nameTableFor, resolveNames, unknownNames } from '../../symbols/function-names'
import { ModuleMap, type LoadedModule } from '../proc-maps'
import type { TraceObserver } from '../valgrind/valgrind-tracer'
import { agentScriptPath } from './agent-script'
import { ConvergenceTracker } from './convergence'
import type { FridaDevice, FridaMessage, FridaModule, FridaScript, FridaSession } from './frida-api'
import { fridaError } from './frida-errors'
import { permissionAdvice, readPtraceFacts } from './ptrace-permission'
import { TraceAssembler, type ChunkSink, type FunctionCounts, type TracedFunction, type UntracedCounts } from './trace-assembler'

export type FridaTarget = { kind: 'attach'; pid: number } | { kind: 'spawn'; program: string; args: string[] }

export interface FridaTraceOptions {
  target: FridaTarget
  functions: string[]
  maxEvents: number | null
  maxSeconds: number | null
  sampling: SamplingMode
  trackHeap: boolean
  /**
   * A launched program still running when the recording stops at its limit: 'detach' (the
   * default) lets it run on uninstrumented and the trace ends when it does, as under the
   * Valgrind backend (its output and exit status are the session's); 'stop' kills it.
   */
  afterLimit?: 'detach' | 'stop'
}

/** The recording stopped and the launched program runs on: its pid, and which limit ended the recording. */
export interface FridaDetached {
  pid: number
  reason: 'max-events' | 'seconds' | 'sampling'
}

/** What a trace reports besides progress (none of it crosses into the session). */
export interface FridaTraceEvents {
  /** A launched program's output, as it arrives. */
  onOutput?(stream: 'stdout' | 'stderr', bytes: Buffer): void
  /** The recording stopped at its limit and the launched program runs on (its pid, why). */
  onDetached?(detached: FridaDetached): void
}

export interface FridaProgress {
  events: number
  functions: FunctionCounts[]
}

export interface FridaOutcome {
  pid: number
  program: string
  stopReason: TraceStopReason
  message: string | null
  points: PointRecord[]
  modules: LoadedModule[]
  elf: ElfInfo
  functions: FunctionCounts[]
  untraced: UntracedCounts
  lost: number
  /** Attach: whether the process was still running after Stride detached. */
  targetAlive: boolean
  /** How the program ended, when it ended under Frida: its exit status, or the signal of its crash. */
  programExit: { code: number | null; signal: string | null } | null
  /** Threads whose accesses were recorded. */
  threads: number
}

export interface FridaTraceDeps {
  /** The loaded `frida` (only the process's Frida owner thread loads it). */
  frida: () => Promise<FridaModule>
  agentSource?: () => string
  /** Ring slots in the agent (a power of two). */
  ringCapacity?: number
  maxInFlight?: number
  /** How long to wait for the agent's 'stopped' before detaching anyway. */
  stopTimeoutMs?: number
}

const RING_CAPACITY = 1 << 16
/** How long a launched program's last output may trail Frida's report of its end (ms). */
const OUTPUT_DRAIN_MS = 1000
const MAX_IN_FLIGHT = 8

export class FridaTrace {
  private stopReason: TraceStopReason | null = null
  private stopMessage: string | null = null
  private failure: StrideError | null = null
  private script: FridaScript | null = null
  private assembler: TraceAssembler | null = null
  private lost = 0
  private stopRequested: (() => void) | null = null
  private stopped: (() => void) | null = null
  private detachedReason: string | null = null
  /** What the agent's exception handler saw, when the target crashed. */
  private crash: string | null = null
  /** The status the program passed to exit or _exit (the agent's hook saw it). */
  private exitCode: number | null = null
  /** Resolved when Frida says the process is gone (or the session lost). */
  private ended: (() => void) | null = null
  private readonly prologueNotes: string[] = []
  /** Stride ended the launched program: at the limit (afterLimit 'stop'), or on a stop while it ran on or before its end. */
  private killedByStride = false

  constructor(
    private readonly options: FridaTraceOptions,
    private readonly sink: ChunkSink,
    private readonly onProgress: (p: FridaProgress) => void,
    private readonly observer: TraceObserver | null = null,
    private readonly deps: FridaTraceDeps,
    private readonly events: FridaTraceEvents = {}
  ) {}

  /** Ask the trace to end; what was recorded is kept. */
  stop(reason: TraceStopReason, message: string | null = null): void {
    if (!this.stopReason) {
      this.stopReason = reason
      this.stopMessage = message
    }
    this.stopRequested?.()
  }

  private fail(e: StrideError): void {
    this.failure ??= e
    this.stop('error', e.message)
  }

  async run(): Promise<FridaOutcome> {
    const frida = await this.deps.frida()
    let device: FridaDevice
    try {
      device = await frida.getLocalDevice()
    } catch (e) {
      throw fridaError(e, null)
    }
    const { target } = this.options
    let pid: number
    // A launched program's output arrives through Frida (stdio 'pipe'): with 'inherit' it
    // would go to Frida's helper's stdio, which nothing shows. Until both streams end.
    let spawnedPid = -1
    const open = new Set([1, 2])
    let streamsEnded: (() => void) | null = null
    const onOutput = (from: number, fd: number, data: Buffer) => {
      if (from !== spawnedPid) return
      if (data.length > 0) this.events.onOutput?.(fd === 2 ? 'stderr' : 'stdout', data)
      else if (open.delete(fd) && open.size === 0) streamsEnded?.()
    }
    if (target.kind === 'attach') pid = target.pid
    else {
      device.output.connect(onOutput)
      try {
        pid = spawnedPid = await device.spawn([target.program, ...target.args], { stdio: 'pipe' })
      } catch (e) {
        device.output.disconnect(onOutput)
        throw fridaError(e, null, target.program, readPtraceFacts(null))
      }
    }
    const spawned = target.kind === 'spawn'
    try {
      const outcome = await this.trace(device, pid, spawned)
      // The program's last output can arrive after Frida reports its end.
      if (spawned && this.detachedReason === 'process-terminated' && open.size > 0) await Promise.race([new Promise<void>((resolve) => (streamsEnded = resolve)), delay(OUTPUT_DRAIN_MS)])
      return outcome
    } catch (e) {
      if (spawned) await device.kill(pid).catch(() => {})
      throw e
    } finally {
      if (spawned) device.output.disconnect(onOutput)
    }
  }

  private async trace(device: FridaDevice, pid: number, spawned: boolean): Promise<FridaOutcome> {
    const program = processExecutable(pid)
    const elf = await readElf(program)
    const modules = new ModuleMap()
    if (!modules.refresh(pid)) throw new StrideError(`Process ${pid} is gone (it exited or the PID is wrong); pick a running process from the list.`, 'not-found')
    const exe = modules.byPath(program)
    if (!exe) throw new StrideError(`Cannot find ${program} in process ${pid}'s memory map; is it still starting?`, 'target-failed')
    const functions = await resolveInProcess(elf, exe, modules.all(), this.options.functions)
    this.observer?.programLoaded(exe.base)
    for (const m of modules.takeNew(program)) this.observer?.libraryLoaded?.(m.path, m.base)

    const convergence = this.options.sampling.kind === 'convergence' ? new ConvergenceTracker(this.options.sampling.threshold, this.options.sampling.minSamples) : null
    const assembler = new TraceAssembler(functions, this.sink, this.observer, this.options.maxEvents, convergence, (_d, fn) => {
      this.post({ type: 'stop-function', start: hex(fn.start) })
    })
    this.assembler = assembler

    let session: FridaSession
    try {
      session = await device.attach(pid)
    } catch (e) {
      throw fridaError(e, pid, null, readPtraceFacts(pid))
    }
    const programEnded = new Promise<void>((resolve) => (this.ended = resolve))
    const onDetached = (reason: string, crash: unknown) => {
      this.detachedReason = reason
      this.ended?.()
      const summary = this.crash ?? crashSummary(crash)
      if (summary !== null) this.stop('target-crashed', `process ${pid} crashed (${summary}); the accesses recorded before it are kept`)
      // A launched program that ends has run its course, as under the Valgrind backend.
      else if (spawned && reason === 'process-terminated') this.stop('completed', null)
      else if (reason === 'process-terminated' || reason === 'process-replaced') this.stop('target-exited-early', `process ${pid} exited during the trace; the accesses recorded before are kept`)
      else if (reason !== 'application-requested') this.fail(new StrideError(`Frida lost process ${pid} (${reason}); the accesses recorded before are kept.`, 'target-failed'))
      this.stopped?.()
    }
    session.detached.connect(onDetached)

    const stopSignal = new Promise<void>((resolve) => (this.stopRequested = resolve))
    if (this.stopReason) this.stopRequested?.()
    const agentStopped = new Promise<void>((resolve) => (this.stopped = resolve))
    let ready: (() => void) | null = null
    const readySignal = new Promise<void>((resolve) => (ready = resolve))

    const onMessage = (message: FridaMessage, data: Buffer | null) => {
      try {
        if (message.type === 'error') {
          this.fail(new StrideError(`The Frida agent failed in process ${pid}: ${message.description}; the accesses recorded before are kept.`, 'internal'))
          ready?.()
          return
        }
        const m = message.payload as AgentMessage
        switch (m.type) {
          case 'ready':
            for (const [name, n] of Object.entries(m.prologue ?? {})) if (n > 0) this.prologueNotes.push(`${name}: ${n} prologue access${n > 1 ? 'es' : ''} per call not recorded (relocated by Frida's Interceptor)`)
            ready?.()
            break
          case 'fatal':
            this.fail(
              m.code === 'architecture'
                ? new StrideError(`Architecture unsupported: ${m.message}. Trace it with the Valgrind backend instead (stride trace --launch).`, 'target-failed')
                : m.code === 'function-not-found'
                  ? new StrideError(`Function not found: ${m.message}; pick one from the process's function list.`, 'not-found')
                  : new StrideError(m.message, 'internal')
            )
            ready?.()
            break
          case 'batch':
            if (!data) throw new StrideError('The Frida agent sent a batch without its data.', 'internal')
            assembler.take(data, m.records)
            this.lost = m.lost
            // Acknowledge after writing: the agent sends more only then (backpressure).
            this.post({ type: 'ack', seq: m.seq })
            if (assembler.full) this.stop('max-events', `stopped after ${this.options.maxEvents} events`)
            break
          case 'sampling':
            if (m.state === 'removed') assembler.markDone(Number(m.start))
            break
          case 'crash':
            this.crash = m.description
            break
          case 'sampling-done':
            this.stop('completed', 'every function reached its sampling limit')
            break
          case 'stopped':
            this.lost = m.lost
            this.stopped?.()
            break
          case 'exit':
            this.exitCode = m.code
            break
        }
      } catch (e) {
        this.fail(e instanceof StrideError ? e : new StrideError(String(e), 'internal'))
      }
    }

    let timer: NodeJS.Timeout | null = null
    const progress = setInterval(() => this.onProgress({ events: assembler.events, functions: assembler.functionCounts() }), 250)
    try {
      try {
        this.script = await session.createScript((this.deps.agentSource ?? readAgentSource)())
        this.script.message.connect(onMessage)
        await this.script.load()
      } catch (e) {
        throw e instanceof StrideError ? e : fridaError(e, pid)
      }
      this.post({
        type: 'start',
        functions: functions.map((f) => ({ name: f.name, start: hex(f.start), size: f.end - f.start })),
        sampling: this.options.sampling,
        trackHeap: this.options.trackHeap,
        ringCapacity: this.deps.ringCapacity ?? RING_CAPACITY,
        maxInFlight: this.deps.maxInFlight ?? MAX_IN_FLIGHT
      })
      await Promise.race([readySignal, stopSignal])
      if (spawned && !this.stopReason) await device.resume(pid).catch((e: unknown) => this.fail(fridaError(e, pid)))
      if (this.options.maxSeconds && !this.stopReason) timer = setTimeout(() => this.stop('time-limit', `stopped after ${this.options.maxSeconds} s`), this.options.maxSeconds * 1000)
      await stopSignal
      // Remove every hook and follow, take the last records, then leave.
      if (this.detachedReason === null) {
        this.post({ type: 'stop' })
        await Promise.race([agentStopped, delay(this.deps.stopTimeoutMs ?? 5000)])
      }
      // A launched program still running at the limit: as under the Valgrind backend, it runs
      // on uninstrumented (the agent keeps only its exit hook) and the trace ends when it
      // does, with its output and exit status; or it is stopped there (afterLimit 'stop').
      // A stop while it runs on (Ctrl+C, cancel) ends it.
      const limit = this.stopReason === 'max-events' || this.stopReason === 'time-limit' || this.stopReason === 'completed'
      if (spawned && this.detachedReason === null && processAlive(pid)) {
        const stopAgain = new Promise<void>((resolve) => (this.stopRequested = resolve))
        // Cancelled or failed before its end: it is not left running with nothing to read its output.
        if (limit && this.options.afterLimit !== 'stop') {
          this.events.onDetached?.({ pid, reason: this.stopReason === 'time-limit' ? 'seconds' : this.stopReason === 'max-events' ? 'max-events' : 'sampling' })
          await Promise.race([programEnded, stopAgain])
        }
        if (this.detachedReason === null) {
          await device.kill(pid).catch(() => {})
          await Promise.race([programEnded, delay(this.deps.stopTimeoutMs ?? 5000)])
          this.killedByStride = true
        }
      }
    } finally {
      if (timer) clearTimeout(timer)
      clearInterval(progress)
      if (this.detachedReason === null) {
        await this.script?.unload().catch(() => {})
        await session.detach().catch(() => {})
      }
      session.detached.disconnect(onDetached)
      assembler.flush()
      this.onProgress({ events: assembler.events, functions: assembler.functionCounts() })
    }
    modules.refresh(pid)
    const targetAlive = processAlive(pid)
    if (spawned && targetAlive) await device.resume(pid).catch(() => {}) // never leave it suspended
    if (this.failure && assembler.events === 0) throw this.failure
    let message = this.stopMessage
    if (this.lost > 0) message = [message, `${this.lost} records lost while Stride fell behind`].filter(Boolean).join('; ')
    if (this.prologueNotes.length > 0) message = [message, ...this.prologueNotes].filter(Boolean).join('; ')
    if (assembler.untracedCounts.total > 0) {
      const why = Object.entries(assembler.untracedCounts.byReason).map(([k, n]) => `${n} ${k}`).join(', ')
      message = [message, `${assembler.untracedCounts.total} instruction executions not traced (${why})`].filter(Boolean).join('; ')
    }
    return {
      pid,
      program,
      stopReason: this.failure ? 'error' : (this.stopReason ?? 'completed'),
      message,
      points: assembler.points,
      modules: modules.all(),
      elf,
      functions: assembler.functionCounts(),
      untraced: assembler.untracedCounts,
      lost: this.lost,
      targetAlive,
      programExit: this.exitCode !== null ? { code: this.exitCode, signal: null } : this.killedByStride ? { code: null, signal: 'SIGKILL' } : this.crash ? { code: null, signal: crashSignal(this.crash) } : null,
      threads: assembler.threads
    }
  }

  private post(m: HostMessage): void {
    try {
      this.script?.post(m)
    } catch {
      // The script is gone (process exited): the detached handler says why.
    }
  }
}

function readAgentSource(): string {
  const path = agentScriptPath()
  try {
    return readFileSync(path, 'utf8')
  } catch {
    throw new StrideError(`The Frida agent ${path} is missing; build it with "npm run build".`, 'tool-missing')
  }
}

/** The executable of a running process, as /proc names it. */
export function processExecutable(pid: number): string {
  try {
    return realpathSync(`/proc/${pid}/exe`)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EACCES' || code === 'EPERM')
      throw new StrideError(`Permission denied reading process ${pid} (/proc/${pid}/exe): ${permissionAdvice(readPtraceFacts(pid))}.`, 'permission-denied')
    throw new StrideError(`Process ${pid} is gone (it exited or the PID is wrong); pick a running process from the list.`, 'not-found')
  }
}

export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^\d+ \(.*\) [ZX]/s.test(stat)
  } catch {
    return false
  }
}

/**
 * The chosen functions' runtime ranges in a process: the executable's first, then each
 * loaded shared object's (its symbols, or its dynamic ones when stripped); a name found
 * nowhere is an error that names the executable.
 */
export async function resolveInProcess(elf: ElfInfo, exe: LoadedModule, loaded: LoadedModule[], names: string[]): Promise<TracedFunction[]> {
  // The executable's names as the Valgrind backend reads them (function-names.ts): C++ names
  // as written, and a function's GCC clones (kernel.constprop.0, f.part.0, f.cold) with it.
  const symbols = elf.functions.filter((f) => f.size > 0).map((f) => f.name)
  const table = await nameTableFor(symbols, names)
  const unknown = unknownNames(table, names)
  const inExe = names.filter((n) => !unknown.includes(n))
  const exeSymbols = new Map(
    inExe.map((n) => {
      try {
        return [n, resolveNames(table, [n], elf.path)]
      } catch (e) {
        throw new StrideError(`${(e as Error).message}.`, 'invalid-input') // overloads
      }
    })
  )
  const offset = elf.relocatable ? exe.base : 0
  const out = resolveFunctions(elf, [...new Set([...exeSymbols.values()].flat())], offset, true)
  for (const name of unknown) {
    let found: TracedFunction | null = null
    for (const m of loaded) {
      if (m.path === exe.path || !m.path.startsWith('/') || !/\.so(\.|$)/.test(m.path)) continue
      const lib = await readElf(m.path).catch(() => null)
      // Dynamic symbols carry their version (usleep@@GLIBC_2.2.5).
      const f = lib?.functions.find((s) => (s.name === name || s.name.startsWith(`${name}@`)) && s.size > 0)
      if (lib && f) {
        const offset = lib.relocatable ? m.base : 0
        found = { name, start: f.start + offset, end: f.start + offset + f.size }
        break
      }
    }
    if (!found) return resolveFunctions(elf, [name], 0) // throws: not found
    out.push(found)
  }
  // In the order asked, a function's clones after it.
  const ordered = names.flatMap((n) => (exeSymbols.get(n) ?? [n]).map((symbol) => out.find((f) => f.name === symbol)!))
  return ordered.filter((f, i) => ordered.indexOf(f) === i)
}

/** The chosen functions' runtime ranges; a name missing from the program is an error. */
export function resolveFunctions(elf: ElfInfo, names: string[], offset: number, allowNone = false): TracedFunction[] {
  if (names.length === 0 && allowNone) return []
  if (names.length === 0) throw new StrideError('Choose at least one function to trace: attaching follows chosen functions only (METRIC\'s partial traces).', 'invalid-input')
  return names.map((name) => {
    const f = elf.functions.find((s) => s.name === name)
    if (!f || f.size === 0)
      throw new StrideError(`Function not found: "${name}" is not in ${elf.path}'s symbol table; pick one from the process's function list (static functions may be inlined at -O1 and above).`, 'not-found')
    return { name, start: f.start + offset, end: f.start + offset + f.size }
  })
}

/** Pure: the signal behind the agent's exception report ("access-violation at 0x..."), as Linux delivers it. */
export function crashSignal(description: string): string | null {
  const type = description.split(' ')[0]
  const signals: Record<string, string> = {
    'access-violation': 'SIGSEGV',
    'guard-page': 'SIGSEGV',
    abort: 'SIGABRT',
    'illegal-instruction': 'SIGILL',
    arithmetic: 'SIGFPE',
    breakpoint: 'SIGTRAP',
    'single-step': 'SIGTRAP',
    system: 'SIGSYS'
  }
  return (type !== undefined && signals[type]) || null
}

/** Frida's crash report (a Crash object when the target died of a signal), as one line. */
function crashSummary(crash: unknown): string | null {
  if (crash === null || typeof crash !== 'object') return null
  const summary = (crash as { summary?: unknown }).summary
  return typeof summary === 'string' && summary.trim() !== '' ? summary.trim().split('\n')[0]! : 'crash report without a summary'
}

const hex = (n: number) => `0x${n.toString(16)}`
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
