/**
 * The Valgrind backend on Stride's own tool (resources/native/valgrind-tool): the program runs
 * under `--tool=stride`, which instruments only the chosen functions, numbers the access
 * points itself and writes binary records to fd 3 (Valgrind's messages go to fd 4). Records
 * are read in large blocks and go to the session writer in typed-array batches; when Stride
 * falls behind, the pipe fills and the program waits, so memory stays flat.
 */
import type { ChildProcess } from 'node:child_process'
import { StrideError } from '../../../shared/errors'
import type { TraceStopReason } from '../../../shared/domain'
import type { PointRecord, SessionWriter } from '../../store/session-writer'
import { readElf, type ElfInfo } from '../../symbols/elf-reader'
import { parseLibrarySpec } from '../../symbols/library-spec'
import { ModuleMap, parseMaps } from '../proc-maps'
import type { LaunchedTool } from './tool-launch'
import { NativeScan, type AccessBatch } from './native-scan'
import { readToolRecords } from './record-ring'
import { grownFor } from '../../typed-arrays'
import { DetachReason, ToolStreamReader, type ToolAllocation, type ToolStreamSink } from './tool-stream'
import { CHUNK_EVENTS, checkTracedFunctions, type ProgressListener, type TraceOptions, type TraceOutcome } from './valgrind-tracer'

/** What the tool path tells the data-structure naming (the Correlator implements it). */
export interface ToolObserver {
  /** Whether function entries and returns are wanted (frames of stack locals). */
  readonly wantsInstructions: boolean
  programLoaded(base: number): void
  /** A shared object appeared in the process at `base` (its globals may be placed). */
  libraryLoaded(path: string, base: number): void
  enterFunction(entry: number, sp: number, thread: number): void
  leaveFunction(sp: number, thread: number): void
  allocated(e: { kind: 'alloc'; ptr: number; size: number; old: number; site: number }, frames: number[]): void
  freed(ptr: number): void
  /** Returns the access's variable. */
  attribute(point: number, kind: number, address: number, thread: number): number
  /** attribute() for accesses from..to-1 of the batch, in order (each one's variable into accessVariable); a point's kind is kindOf[point]. */
  attributeBatch(points: Uint32Array, addresses: Float64Array, threads: Uint16Array, from: number, to: number, kindOf: Uint8Array, accessVariable: Int32Array): void
}

export class ToolTrace implements ToolStreamSink {
  private child: ChildProcess | null = null
  private stopReason: TraceStopReason | null = null
  private stopMessage: string | null = null
  private readonly modules = new ModuleMap()
  private readonly points: PointRecord[] = []
  /** Objects whose symbols were asked for while the program runs. */
  private readonly symbolsRead = new Set<string>()
  /** Tool point id -> session point (-1 until its first access: points never executed are not kept). */
  private toolPoints = new Int32Array(1024).fill(-1)
  private readonly toolPointDefs: Array<{ pc: number; kind: number }> = []
  /** Threads the program created (the first one not counted). */
  private threadsCreated = 0
  private pid = 0
  private programPath = ''
  private programBase: number | null = null
  private kept = 0
  private detachedAt: { accesses: number; reason: number } | null = null
  /** The tool saw the program's end (an ended stream without it was cut short). */
  private exited = false
  /** The tool's last record was an execve's: the program was replaced (Valgrind does not follow it). */
  private execd = false
  private bPoints = new Uint32Array(CHUNK_EVENTS)
  private bAddresses = new Float64Array(CHUNK_EVENTS)
  private bSizes = new Uint16Array(CHUNK_EVENTS)
  private bThreads = new Uint16Array(CHUNK_EVENTS)
  /** Each access's data structure (the correlator's variable id; 0 unknown): stored with its chunk. */
  private bVariables = new Int32Array(CHUNK_EVENTS)
  private readonly batch: AccessBatch = { points: this.bPoints, addresses: this.bAddresses, sizes: this.bSizes, threads: this.bThreads }
  /** The record scan, its arrays bound while they stay the same. */
  private readonly scanner = new NativeScan()
  private bCount = 0
  /**
   * Accesses per session point, counted by the native scan (and the per-record path); copied
   * into the point records' `accesses` before each batch goes to the writer and at the end.
   */
  private counts = new Float64Array(1024)
  /** Each session point's access kind, for the correlator's batches. */
  private kinds = new Uint8Array(1024)

  constructor(
    private readonly options: TraceOptions,
    /** The tool, already started (tool-launch.ts: first thing in the trace worker). */
    private readonly launched: LaunchedTool,
    private readonly writer: SessionWriter,
    private readonly onProgress: ProgressListener,
    /** The naming's observer, or its promise (built from debug information while Valgrind starts). */
    private readonly observerReady: ToolObserver | null | Promise<ToolObserver | null> = null
  ) {
    this.child = launched.child
  }

  private observer: ToolObserver | null = null

  get heapTracked(): boolean {
    return this.options.trackHeap !== false
  }

  stop(reason: TraceStopReason, message: string | null = null): void {
    if (!this.stopReason) {
      this.stopReason = reason
      this.stopMessage = message
    }
    this.child?.kill('SIGKILL')
  }

  async run(): Promise<TraceOutcome> {
    const { program, functions } = this.options
    const { child, exited, programPath } = this.launched
    this.programPath = programPath
    // While Valgrind starts: the ELF and the naming's layout. Records wait in the pipe.
    let elf: ElfInfo
    try {
      ;[elf, this.observer] = await Promise.all([readElf(program), this.observerReady])
      // LIBRARY:function specs were checked against the library; the tool matches them itself.
      checkTracedFunctions(elf, functions.filter((f) => !parseLibrarySpec(f)))
    } catch (e) {
      child.kill('SIGKILL')
      this.launched.dropRecords()
      throw e
    }
    const stopAtLimit = this.options.afterLimit === 'stop'
    let timer: NodeJS.Timeout | null = null
    if (this.options.maxSeconds && stopAtLimit) {
      timer = setTimeout(() => this.stop('time-limit', `stopped after ${this.options.maxSeconds} s`), this.options.maxSeconds * 1000)
    }
    const progress = setInterval(() => this.onProgress(this.kept + this.bCount), 250)

    const reader = new ToolStreamReader(this)
    let streamError: string | null = null
    let encodeError: string | null = null
    // Chunks compress on the thread pool while records are read (and the first simulation takes
    // them there too, when one was asked for); when two full chunks wait for either, reading
    // pauses (the pipe fills and the tool waits).
    this.writer.encodeInBackground()
    let paused = false
    const { socket: records, done: recordsRead } = readToolRecords(this.launched.takeRecords(), reader, () => {
      if (this.writer.backlogged && !paused) {
        paused = true
        records.pause()
        this.writer.ready().then(
          () => {
            paused = false
            records.resume()
          },
          (e: unknown) => {
            // The encoder failed: stop reading; the failure is reported when the trace ends.
            encodeError = e instanceof Error ? e.message : String(e)
            records.destroy()
          }
        )
      }
    }, (e) => {
      // A damaged stream ends the recording, not the program; what was read is kept.
      streamError ??= e instanceof Error ? e.message : String(e)
    })

    // The program's end, and the last records: the pipe is not one of the child's stdio
    // streams, so its end is awaited apart.
    const [exit] = await Promise.all([exited, recordsRead]).finally(() => {
      if (timer) clearTimeout(timer)
      clearInterval(progress)
    })
    this.flush()
    this.syncCounts()
    // Every full chunk committed before the session is named and finished.
    await this.writer.drain().catch((e: unknown) => {
      encodeError ??= e instanceof Error ? e.message : String(e)
    })
    this.onProgress(this.kept)

    // How the program ended is Valgrind's exit status: it dies of the signal that killed the
    // program. Its log line only explains that signal (a line naming another is not Valgrind's).
    const fatal = this.launched.recent.fatalSignal(exit.signal)
    let stopReason: TraceStopReason = this.stopReason ?? 'completed'
    const notes: string[] = []
    if (this.stopMessage) notes.push(this.stopMessage)
    if (!this.stopReason && this.detachedAt) {
      stopReason = this.detachedAt.reason === DetachReason.seconds ? 'time-limit' : 'max-events'
      const why = this.detachedAt.reason === DetachReason.seconds ? `${this.options.maxSeconds} s` : `${this.detachedAt.accesses} events`
      notes.push(stopAtLimit ? `stopped after ${why}` : `recording stopped after ${why}; the program ran on uninstrumented to its end`)
    }
    // Valgrind exits with the program's status (the tool's fini sees 0 for some exits) and
    // dies of the signal that killed it.
    const programExit = { code: exit.signal ? null : exit.code, signal: exit.signal ?? null }
    if (!this.stopReason) {
      if (fatal && exit.signal) {
        stopReason = 'target-crashed'
        notes.push(`the program crashed: ${fatal.replace(/^==\d+==\s*/, '')}; the accesses recorded before it are kept`)
      } else if (exit.signal && !(this.detachedAt && stopAtLimit)) {
        stopReason = 'target-crashed'
        notes.push(`the program was killed by ${exit.signal}; the accesses recorded before it are kept`)
      } else if (this.pid === 0 && this.kept === 0) {
        const why = this.launched.recent.lastReason(/error|cannot|failed|valgrind:|stride:/i)
        throw new StrideError(`Valgrind could not run "${program}" (exit ${exit.code}): ${why || 'no output'}.`, 'target-failed')
      } else if (programExit.code !== null && programExit.code !== 0) {
        notes.push(`the program exited with status ${programExit.code}`)
      }
    }
    if (stopReason === 'completed' && !this.exited && this.execd && !streamError && !encodeError) {
      // Every record before the execve was sent; what runs after is another program.
      notes.push(`the program exec'd another (execve): the recording ended there, with every access before it; Valgrind runs the new program untraced${programExit.code !== null ? ` (the exit status is the new program's)` : ''}`)
    } else if (stopReason === 'completed' && !this.exited && !streamError && !encodeError) {
      // Valgrind itself failed, or the program exec'd another one: the tool never saw its end.
      stopReason = 'error'
      const why = this.launched.recent.log.some((l) => /valgrind|error|exec/i.test(l)) ? this.launched.recent.lastReason(/valgrind|error|exec/i) : null
      notes.push(`the recording ended before the program did${why ? ` (${why})` : ''}; the accesses recorded before are kept`)
    }
    if (encodeError) {
      if (stopReason === 'completed') stopReason = 'error'
      notes.push(`the trace could not be compressed (${encodeError}); the chunks committed before are kept`)
    } else if (streamError) {
      if (stopReason === 'completed') stopReason = 'error'
      notes.push(`the tool's record stream was unreadable (${streamError}); the accesses before it are kept`)
    } else if (reader.pendingBytes > 0 && stopReason === 'completed') {
      notes.push(`${reader.pendingBytes} bytes of a cut record at the end were dropped`)
    }
    const threads = 1 + this.threadsCreated
    if (threads > 1) notes.push(`${threads} threads: their accesses are interleaved in the order Valgrind ran them`)
    return {
      stopReason,
      message: notes.length > 0 ? notes.join('; ') : null,
      points: this.points,
      modules: this.modules.all(),
      elf,
      programExit,
      threads,
      recorder: 'stride-tool'
    }
  }

  // ---- the record stream (ToolStreamSink), in stream order

  header(pid: number): void {
    this.pid = pid
  }

  point(pc: number, kind: number): void {
    this.toolPointDefs.push({ pc, kind })
    // The naming after the trace reads the symbols of each object holding points: read them
    // while the program runs, once the object's first point is instrumented (cached per path;
    // a failure is met again, and handled, by the naming). Objects without points are not read.
    const m = this.modules.find(pc)
    if (m && m.path !== this.programPath && !this.symbolsRead.has(m.path)) {
      this.symbolsRead.add(m.path)
      readElf(m.path).catch(() => {})
    }
  }

  maps(text: string): void {
    if (!this.modules.add(parseMaps(text))) return
    if (this.programBase === null) {
      const exe = this.modules.byPath(this.programPath)
      if (exe) {
        this.programBase = exe.base
        this.observer?.programLoaded(exe.base)
      }
    }
    for (const m of this.modules.takeNew(this.programPath)) this.observer?.libraryLoaded(m.path, m.base)
  }

  access(toolPoint: number, address: number, size: number, thread: number): void {
    let point = toolPoint < this.toolPoints.length ? this.toolPoints[toolPoint]! : -1
    if (point < 0) point = this.firstAccess(toolPoint, address)
    this.counts[point]!++
    const i = this.bCount++
    this.bVariables[i] = this.observer ? this.observer.attribute(point, this.kinds[point]!, address, thread) : 0
    this.bPoints[i] = point
    this.bAddresses[i] = address
    this.bSizes[i] = size
    this.bThreads[i] = thread
    if (this.bCount === CHUNK_EVENTS) this.flush()
  }

  /** The stream's runs of accesses, copied natively; each run is attributed in order. */
  accessRun(stage: Uint8Array, at: number, end: number, defined: number): number {
    for (;;) {
      const from = this.bCount
      const next = this.scanner.scan(stage, at, end, this.toolPoints, defined, this.batch, from, CHUNK_EVENTS, this.counts)
      const to = from + (next - at) / 16
      if (this.observer) this.observer.attributeBatch(this.bPoints, this.bAddresses, this.bThreads, from, to, this.kinds, this.bVariables)
      else this.bVariables.fill(0, from, to)
      this.bCount = to
      at = next
      if (this.bCount < CHUNK_EVENTS) return at
      this.flush()
    }
  }

  enter(entry: number, sp: number, thread: number): void {
    this.observer?.enterFunction(entry, sp, thread)
  }

  leave(sp: number, thread: number): void {
    this.observer?.leaveFunction(sp, thread)
  }

  alloc(a: ToolAllocation): void {
    // frames[1] is the caller's return address minus one (Valgrind's convention); the site
    // is the return address itself, as the interposer path reports it.
    const site = a.frames.length > 1 ? a.frames[1]! + 1 : 0
    this.observer?.allocated({ kind: 'alloc', ptr: a.ptr, size: a.size, old: a.old, site }, a.frames)
  }

  free(ptr: number): void {
    this.observer?.freed(ptr)
  }

  detach(accesses: number, reason: number): void {
    this.detachedAt = { accesses, reason }
    // Said as it happens: the program may run on for a long time (or for ever) while the
    // command waits for it.
    if (this.options.afterLimit !== 'stop' && this.pid > 0)
      this.onProgress(this.kept + this.bCount, { pid: this.pid, reason: reason === DetachReason.seconds ? 'seconds' : 'max-events' })
  }

  thread(): void {
    this.threadsCreated++
  }

  exit(): void {
    this.exited = true
  }

  exec(): void {
    this.execd = true
  }

  // ----

  private firstAccess(toolPoint: number, address: number): number {
    const def = this.toolPointDefs[toolPoint]!
    this.toolPoints = grownFor(this.toolPoints, toolPoint, -1)
    const idx = this.points.length
    this.points.push({ idx, pc: def.pc, kind: def.kind, accesses: 0, firstAddress: address })
    this.counts = grownFor(this.counts, idx)
    this.kinds = grownFor(this.kinds, idx)
    this.kinds[idx] = def.kind
    this.toolPoints[toolPoint] = idx
    return idx
  }

  /** The points' access counts into their records, before they are written (chunks take `counts` itself). */
  private syncCounts(): void {
    for (const p of this.points) p.accesses = this.counts[p.idx]!
  }

  private flush(): void {
    if (this.bCount === 0) return
    // The writer reads the counts themselves; the records get theirs once, at the end (syncCounts).
    this.writer.appendChunk(this.bCount, this.bPoints, this.bAddresses, this.bSizes, this.points, this.counts, this.observer ? this.bVariables : undefined)
    this.kept += this.bCount
    this.bCount = 0
  }
}

