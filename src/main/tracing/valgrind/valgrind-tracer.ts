/**
 * The Valgrind backend: runs the program under `valgrind --tool=lackey --trace-mem=yes`,
 * with lackey's output on its own pipe (fd 3) so the target's stdout/stderr stay apart,
 * and parses it as it arrives, through the stride-pipebuf relay (see pipebuf.ts). Parsing,
 * filtering and chunk writing happen synchronously in the pipe's data handler, so when we
 * fall behind the pipe fills and Valgrind blocks: memory stays bounded however long the run.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { constants as osConstants } from 'node:os'
import type { Readable } from 'node:stream'
import { StrideError } from '../../../shared/errors'
import type { TraceStopReason } from '../../../shared/domain'
import type { PointRecord, SessionWriter } from '../../store/session-writer'
import { readElf, type ElfInfo } from '../../symbols/elf-reader'
import { parseLibrarySpec } from '../../symbols/library-spec'
import { ModuleMap, type LoadedModule } from '../proc-maps'
import { LackeyParser } from './lackey-parser'
import { allocInterposerPath, parsePipebufHeader, pipebufPath } from './native-tools'
import { RecentOutput } from './recent-output'

export const CHUNK_EVENTS = 1 << 16

export interface TraceOptions {
  program: string
  args: string[]
  /** Keep only accesses by instructions inside these functions of the program; [] = all. */
  functions: string[]
  maxEvents: number | null
  maxSeconds: number | null
  /** Preload the allocation interposer so heap blocks get names (default true). */
  trackHeap?: boolean
  /** Stride's tool only: also record what the chosen functions call. */
  followCalls?: boolean
  /** At --max-events/--seconds: let the program run on uninstrumented (default) or stop it. */
  afterLimit?: 'detach' | 'stop'
  /**
   * Stride's tool with `functions`: also emit the rest of the program's accesses as context
   * records, folded per line of this many bytes (a power of two); null/absent: none.
   */
  contextLine?: number | null
  /** 'inherit': the program gets Stride's stdin, stdout and stderr (the CLI); default: its output's tail is kept. */
  stdio?: 'inherit' | 'pipe'
  /** With piped stdio: every read of the program's stdout or stderr, as it arrives (the app shows them). */
  onOutput?: (stream: 'stdout' | 'stderr', bytes: Buffer) => void
}

/**
 * Sees the run as it happens, in order (the correlation work plugs in here): every access,
 * the traced ones with their point, optionally every instruction, and Valgrind's log lines.
 */
export interface TraceObserver {
  readonly wantsInstructions: boolean
  programLoaded(base: number): void
  /** A shared object appeared in the process at `base` (its globals may be placed). */
  libraryLoaded?(path: string, base: number): void
  /** An instruction right after a store (where every function entry is). */
  instruction(pc: number): void
  observe(kind: number, address: number, size: number): void
  attribute(point: number, kind: number, address: number): void
  /** Returns true when the line was the observer's (not a Valgrind message). */
  log(line: string): boolean
}

export interface TraceOutcome {
  stopReason: TraceStopReason
  message: string | null
  points: PointRecord[]
  modules: LoadedModule[]
  elf: ElfInfo
  /** How the program ended: its exit status, or the signal that ended it. */
  programExit: { code: number | null; signal: string | null }
  threads: number
  recorder: 'stride-tool' | 'lackey'
}

/** Events recorded so far; `detached` once, when the recording detached from a program that runs on. */
export type ProgressListener = (events: number, detached?: ProgramDetached) => void

/** The recording stopped at its limit and the program runs on uninstrumented (its pid, why). */
export interface ProgramDetached {
  pid: number
  reason: 'max-events' | 'seconds'
}

export class ValgrindTrace {
  private child: ChildProcess | null = null
  private stopReason: TraceStopReason | null = null
  private stopMessage: string | null = null
  private readonly modules = new ModuleMap()
  private readonly pointByKey = new Map<number, number>()
  private readonly points: PointRecord[] = []
  private readonly checkedPages = new Set<number>()
  private readonly recent = new RecentOutput()
  private ranges: Float64Array | null = null
  private kept = 0
  private relocatable = true
  // The batch being filled.
  private bPoints = new Uint32Array(CHUNK_EVENTS)
  private bAddresses = new Float64Array(CHUNK_EVENTS)
  private bSizes = new Uint16Array(CHUNK_EVENTS)
  private bCount = 0

  private interposer: string | null = null
  private programBase: number | null = null

  constructor(
    private readonly options: TraceOptions,
    private readonly writer: SessionWriter,
    private readonly onProgress: ProgressListener,
    private readonly observer: TraceObserver | null = null
  ) {}

  /** Whether heap blocks could be tracked (the interposer built and was preloaded). */
  get heapTracked(): boolean {
    return this.interposer !== null
  }

  /** Ask the trace to end; what was recorded is kept. */
  stop(reason: TraceStopReason, message: string | null = null): void {
    if (!this.stopReason) {
      this.stopReason = reason
      this.stopMessage = message
    }
    this.child?.kill('SIGKILL')
  }

  async run(): Promise<TraceOutcome> {
    const { program, functions } = this.options
    const elf = await readElf(program)
    const programPath = realpathSync(program)
    const wanted = this.resolveFunctions(elf, functions)
    // --vgdb=no: as the tool's launch (tool-launch.ts), no gdbserver FIFOs left in /tmp by a killed run.
    const valgrind = ['valgrind', '--tool=lackey', '--trace-mem=yes', '--vgdb=no', '--log-fd=3', program, ...this.options.args]
    const relay = pipebufPath()
    this.interposer = this.options.trackHeap === false ? null : allocInterposerPath()
    // Valgrind passes LD_PRELOAD on to the program, after its own preloads.
    const env = this.interposer ? { ...process.env, LD_PRELOAD: [this.interposer, process.env.LD_PRELOAD].filter(Boolean).join(':') } : process.env
    const child = relay
      ? spawn(relay, valgrind, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env })
      : spawn(valgrind[0]!, valgrind.slice(1), { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env })
    this.child = child
    // Through the relay, the traced process is the relay's child: its header names it.
    let pid = relay ? undefined : child.pid
    let timer: NodeJS.Timeout | null = null
    if (this.options.maxSeconds) {
      timer = setTimeout(() => this.stop('time-limit', `stopped after ${this.options.maxSeconds} s`), this.options.maxSeconds * 1000)
    }
    const progress = setInterval(() => this.onProgress(this.kept + this.bCount), 250)

    const observer = this.observer
    const parser = new LackeyParser({
      instructionAfterStore: observer?.wantsInstructions ? (pc) => observer.instruction(pc) : undefined,
      access: (pc, kind, address, size) => {
        observer?.observe(kind, address, size)
        const key = pc * 4 + kind
        let point = this.pointByKey.get(key)
        if (point === undefined) {
          point = this.classify(pc, kind, address, pid, programPath, wanted)
          this.pointByKey.set(key, point)
        }
        if (point < 0) return true
        const p = this.points[point]!
        p.accesses++
        observer?.attribute(point, kind, address)
        const i = this.bCount++
        this.bPoints[i] = point
        this.bAddresses[i] = address
        this.bSizes[i] = size > 0xffff ? 0xffff : size
        if (this.bCount === CHUNK_EVENTS) this.flush()
        if (this.options.maxEvents !== null && this.kept + this.bCount >= this.options.maxEvents) {
          this.stop('max-events', `stopped after ${this.options.maxEvents} events`)
          return false
        }
        return true
      },
      log: (line) => {
        const relayed = parsePipebufHeader(line)
        if (relayed !== null) {
          pid = relayed
          return
        }
        if (observer?.log(line)) return
        this.recent.logLine(line)
      }
    })

    this.recent.keepOutput(child.stdout, child.stderr, this.options.onOutput)
    const traceStream = child.stdio[3] as Readable
    traceStream.on('data', (chunk: Buffer) => {
      if (!parser.push(chunk)) traceStream.destroy()
    })

    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.on('error', (e: NodeJS.ErrnoException) => {
        reject(e.code === 'ENOENT' ? new StrideError('Valgrind is not installed; install it (Debian: apt-get install valgrind) to trace with the Valgrind backend.', 'tool-missing') : e)
      })
      // 'close' fires after the pipes drained, so every event written before exit is parsed.
      child.on('close', (code, signal) => resolve({ code, signal }))
    }).finally(() => {
      if (timer) clearTimeout(timer)
      clearInterval(progress)
    })
    parser.end()
    this.flush()
    this.onProgress(this.kept)
    if (pid) this.modules.refresh(pid)

    let stopReason: TraceStopReason = this.stopReason ?? 'completed'
    let message = this.stopMessage
    if (!this.stopReason) {
      const relayFailed = this.recent.output.join('').match(/stride-pipebuf: cannot run (\S+): (.*)/)
      if (relayFailed)
        throw new StrideError(
          relayFailed[1] === 'valgrind'
            ? 'Valgrind is not installed; install it (Debian: apt-get install valgrind) to trace with the Valgrind backend.'
            : `Cannot run ${relayFailed[1]}: ${relayFailed[2]}.`,
          'tool-missing'
        )
      // A signal Valgrind cannot report (SIGKILL) ends the process itself: through the relay
      // that is exit status 128 + signal.
      const killedBy = exit.signal ?? (relay && exit.code !== null && exit.code > 128 && exit.code < 160 ? signalName(exit.code - 128) : null)
      // The program's end is the status Valgrind died of; its log line (on a fd Lackey's program
      // inherits) only explains that signal.
      const fatal = this.recent.fatalSignal(killedBy)
      if (fatal) {
        stopReason = 'target-crashed'
        message = `the program crashed: ${fatal.replace(/^==\d+==\s*/, '')}; the accesses recorded before it are kept`
      } else if (killedBy) {
        stopReason = 'target-crashed'
        message = `the program was killed by ${killedBy}; the accesses recorded before it are kept`
      } else if (exit.code !== 0 && this.kept === 0 && this.points.length === 0) {
        const why = this.recent.lastReason(/error|cannot|failed|valgrind:/i)
        throw new StrideError(`Valgrind could not run "${program}" (exit ${exit.code}): ${why || 'no output'}.`, 'target-failed')
      } else if (exit.code !== 0) {
        message = `the program exited with status ${exit.code}`
      }
    }
    if (parser.malformedLines > 0) {
      message = [message, `${parser.malformedLines} unreadable trace lines skipped`].filter(Boolean).join('; ')
    }
    const programExit = { code: exit.signal ? null : exit.code, signal: exit.signal }
    return { stopReason, message, points: this.points, modules: this.modules.all(), elf, programExit, threads: 1, recorder: 'lackey' }
  }

  /** Decides, once per (instruction, kind), whether it is traced; returns its point or -1. */
  private classify(pc: number, kind: number, address: number, pid: number | undefined, programPath: string, wanted: Array<[number, number]> | null): number {
    const page = Math.floor(pc / 4096)
    if (pid && !this.checkedPages.has(page) && !this.modules.find(pc)) {
      this.checkedPages.add(page)
      this.modules.refresh(pid)
      if (this.programBase === null) {
        const exe = this.modules.byPath(programPath)
        if (exe) {
          this.programBase = exe.base
          this.observer?.programLoaded(exe.base)
        }
      }
      for (const m of this.modules.takeNew(programPath)) this.observer?.libraryLoaded?.(m.path, m.base)
    }
    // The interposer's own accesses are Stride's, not the program's.
    if (this.interposer && this.modules.find(pc)?.path === this.interposer) return -1
    if (wanted) {
      if (!this.ranges) {
        const exe = this.modules.byPath(programPath)
        if (!exe) return -1 // not mapped yet: the dynamic loader runs first
        // Non-PIE executables are linked at their runtime addresses: no offset.
        this.ranges = runtimeRanges(wanted, this.relocatable ? exe.base : 0)
      }
      if (!inRanges(this.ranges, pc)) return -1
    }
    const idx = this.points.length
    this.points.push({ idx, pc, kind, accesses: 0, firstAddress: address })
    return idx
  }

  private flush(): void {
    if (this.bCount === 0) return
    this.writer.appendChunk(this.bCount, this.bPoints, this.bAddresses, this.bSizes, this.points)
    this.kept += this.bCount
    this.bCount = 0
  }

  private resolveFunctions(elf: ElfInfo, names: string[]): Array<[number, number]> | null {
    if (names.length === 0) return null
    const library = names.find((n) => parseLibrarySpec(n))
    if (library)
      throw new StrideError(
        `Tracing a shared library's function (${library}) needs Stride's Valgrind tool, which this trace could not use (see the note on building it); trace the program's own functions, or use --backend frida.`,
        'tool-missing'
      )
    this.relocatable = elf.relocatable
    return checkTracedFunctions(elf, names)
  }
}

/** The chosen functions' link-time ranges; a name not in the symbol table is one clear error. */
export function checkTracedFunctions(elf: ElfInfo, names: string[]): Array<[number, number]> {
  return names.map((name) => {
    const f = elf.functions.find((s) => s.name === name)
    if (!f)
      throw new StrideError(
        `Function "${name}" is not in ${elf.path}'s symbol table; pick one from the function list (static functions may have been inlined at -O1 and above).`,
        'not-found'
      )
    return [f.start, f.start + f.size] as [number, number]
  })
}

export function signalName(n: number): string {
  const name = Object.entries(osConstants.signals).find(([, v]) => v === n)?.[0]
  return name ?? `signal ${n}`
}

function runtimeRanges(link: Array<[number, number]>, offset: number): Float64Array {
  const sorted = [...link].sort((a, b) => a[0] - b[0])
  const out = new Float64Array(sorted.length * 2)
  sorted.forEach(([s, e], i) => {
    out[i * 2] = s + offset
    out[i * 2 + 1] = e + offset
  })
  return out
}

function inRanges(ranges: Float64Array, pc: number): boolean {
  for (let i = 0; i < ranges.length; i += 2) if (pc >= ranges[i]! && pc < ranges[i + 1]!) return true
  return false
}
