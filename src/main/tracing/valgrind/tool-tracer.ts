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
import { NativeScan, noSimBatch, type AccessBatch, type FrameFilter, type SimBatch } from './native-scan'
import { readToolRecords } from './record-ring'
import { grownFor } from '../../typed-arrays'
import { SIM_CONTEXT } from '../../simulate/native-hierarchy'
import { DetachReason, ToolStreamReader, type ToolAllocation, type ToolStreamSink } from './tool-stream'
import { CHUNK_EVENTS, checkTracedFunctions, type ProgressListener, type TraceOptions, type TraceOutcome } from './valgrind-tracer'

/** What the tool path tells the data-structure naming (the Correlator implements it). */
/**
 * The simulator batch with the data structure of each recorded access, in order (context
 * records have none: `variables[k]` is the k-th recorded entry's), for the per-structure run.
 */
type TracerSimBatch = SimBatch & { variables: Int32Array }

/** Without a naming every entry and return changes nothing: the scan passes them all. */
const PASS_ALL_FRAMES: FrameFilter = { entries: new Float64Array(0), top: new Float64Array(1 << 16).fill(Infinity) }

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
  /** The entries and returns the tracer may pass over without calling enterFunction/leaveFunction (native-scan.ts). */
  frameFilter(): FrameFilter
}

/**
 * Takes the first simulation's batches of a trace with whole-program context (LiveSimulation):
 * the recorded accesses and the context accesses in stream order, `recorded` of them recorded,
 * and the recorded ones' data structures in order (`variables`); resolves once done with the
 * arrays, never rejects. `table`: the tracer's growing point table.
 */
export interface ContextFeed {
  feedContext(count: number, recorded: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, table: readonly PointRecord[], variables: Int32Array): Promise<void>
}

/** Accesses per simulator batch: large enough that a batch's hand-over costs nothing per access. */
const SIM_BATCH = 1 << 18

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
  /**
   * Valgrind's thread id -> the session's thread number. Valgrind reuses the id of a thread that
   * ended; a created thread whose id was in use before gets a fresh number, so the session's
   * numbers name threads, not slots. Identity until then (no pass over the batch).
   */
  private readonly threadNumber = Uint16Array.from({ length: 1 << 16 }, (_, i) => i)
  private readonly threadSeen = Uint8Array.from({ length: 1 << 16 }, (_, i) => (i === 1 ? 1 : 0))
  private lastThreadNumber = 1
  private renumbered = false
  /** How much of the batch already holds session thread numbers. */
  private numberedUpTo = 0
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
  /**
   * With whole-program context: the simulator batch being filled (recorded and context accesses
   * in order; `simRecorded` of them recorded), batches the feed holds, and arrays it gave back.
   * Without: a batch of capacity 0 whose state only carries the scan's outEnd.
   */
  private sim: TracerSimBatch
  private simRecorded = 0
  private simHeld = 0
  private readonly simSpare: TracerSimBatch[] = []
  private readonly simWaiters: Array<() => void> = []

  constructor(
    private readonly options: TraceOptions,
    /** The tool, already started (tool-launch.ts: first thing in the trace worker). */
    private readonly launched: LaunchedTool,
    private readonly writer: SessionWriter,
    private readonly onProgress: ProgressListener,
    /** The naming's observer, or its promise (built from debug information while Valgrind starts). */
    private readonly observerReady: ToolObserver | null | Promise<ToolObserver | null> = null,
    /** The first simulation, fed the recorded and the context accesses (the tool was launched with context). */
    private readonly contextFeed: ContextFeed | null = null
  ) {
    this.child = launched.child
    this.sim = contextFeed ? this.newSimBatch() : { ...noSimBatch(), variables: new Int32Array(0) }
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
      if ((this.writer.backlogged || this.simBacklogged) && !paused) {
        paused = true
        records.pause()
        Promise.all([this.writer.ready(), this.simReady()]).then(
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
    this.flushSim()
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
    const variable = this.observer ? this.observer.attribute(point, this.kinds[point]!, address, thread) : 0
    this.bVariables[i] = variable
    if (this.contextFeed) this.simAdd(point, address, size, variable)
    this.bPoints[i] = point
    this.bAddresses[i] = address
    this.bSizes[i] = size
    this.bThreads[i] = thread
    if (this.bCount === CHUNK_EVENTS) this.flush()
  }

  /** An access of the rest of the program (not through accessRun: a test's stream, say). */
  context(address: number, size: number, flags: number): void {
    if (this.contextFeed) this.simAdd(SIM_CONTEXT | flags, address, size, null)
  }

  /** The stream's runs of accesses (and context records), copied natively; each run is attributed in order. */
  accessRun(stage: Uint8Array, at: number, end: number, defined: number): number {
    for (;;) {
      const from = this.bCount
      const sim = this.sim
      const next = this.scanner.scan(stage, at, end, this.toolPoints, defined, this.batch, from, CHUNK_EVENTS, this.counts, sim, this.observer ? this.observer.frameFilter() : PASS_ALL_FRAMES)
      const to = sim.state[2]!
      if (this.observer) this.observer.attributeBatch(this.bPoints, this.bAddresses, this.bThreads, from, to, this.kinds, this.bVariables)
      else this.bVariables.fill(0, from, to)
      // The recorded accesses' data structures, in order, after those of the batch so far.
      if (this.contextFeed && to > from) sim.variables.set(this.bVariables.subarray(from, to), this.simRecorded)
      this.bCount = to
      this.simRecorded += to - from
      at = next
      // Stopped for a full batch (either): hand it on and go on; else at a record the caller reads.
      const simFull = this.contextFeed !== null && sim.state[0] === sim.state[1]
      if (simFull) this.flushSim()
      if (this.bCount === CHUNK_EVENTS) this.flush()
      else if (!simFull) return at
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

  thread(id: number): void {
    this.threadsCreated++
    this.numberThread(id)
  }

  /** A created thread: a fresh number if its Valgrind id named another thread before (the batch so far keeps the old one). */
  private numberThread(id: number): void {
    this.lastThreadNumber = Math.max(this.lastThreadNumber, id)
    // Once one number is fresh, every later thread gets a fresh one (an identity number could collide with it).
    if (this.renumbered || this.threadSeen[id]) {
      this.renumberBatch()
      this.threadNumber[id] = ++this.lastThreadNumber
      this.renumbered = true
    }
    this.threadSeen[id] = 1
  }

  /** The batch's Valgrind ids as the session's thread numbers (only once some id was renumbered). */
  private renumberBatch(): void {
    if (!this.renumbered) {
      this.numberedUpTo = this.bCount
      return
    }
    const t = this.bThreads
    for (let i = this.numberedUpTo; i < this.bCount; i++) t[i] = this.threadNumber[t[i]!]!
    this.numberedUpTo = this.bCount
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

  private newSimBatch(): TracerSimBatch {
    const state = new Uint32Array(3)
    state[1] = SIM_BATCH
    return { points: new Uint32Array(SIM_BATCH), addresses: new Float64Array(SIM_BATCH), sizes: new Uint16Array(SIM_BATCH), state, variables: new Int32Array(SIM_BATCH) }
  }

  /** One entry of the simulator batch: a recorded access with its data structure, or a context record (`variable` null). */
  private simAdd(point: number, address: number, size: number, variable: number | null): void {
    const s = this.sim
    const i = s.state[0]!
    s.points[i] = point >>> 0
    s.addresses[i] = address
    s.sizes[i] = size
    if (variable !== null) s.variables[this.simRecorded++] = variable
    s.state[0] = i + 1
    if (i + 1 === SIM_BATCH) this.flushSim()
  }

  /** Two batches in the feed's hands: reading pauses until one comes back. */
  private get simBacklogged(): boolean {
    return this.simHeld >= 2
  }

  private simReady(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => (this.simBacklogged ? this.simWaiters.push(check) : resolve())
      check()
    })
  }

  /** Hands the simulator batch to the feed (its arrays lent until it is done) and starts another. */
  private flushSim(): void {
    const feed = this.contextFeed
    const s = this.sim
    const n = s.state[0]!
    if (!feed || n === 0) return
    this.simHeld++
    void feed.feedContext(n, this.simRecorded, s.points, s.addresses, s.sizes, this.points, s.variables).then(() => {
      this.simHeld--
      this.simSpare.push(s)
      for (const wake of this.simWaiters.splice(0)) wake()
    })
    this.sim = this.simSpare.pop() ?? this.newSimBatch()
    this.sim.state[0] = 0
    this.simRecorded = 0
  }

  /** The points' access counts into their records, before they are written (chunks take `counts` itself). */
  private syncCounts(): void {
    for (const p of this.points) p.accesses = this.counts[p.idx]!
  }

  private flush(): void {
    if (this.bCount === 0) return
    this.renumberBatch()
    // The writer reads the counts themselves; the records get theirs once, at the end (syncCounts).
    this.writer.appendChunk(this.bCount, this.bPoints, this.bAddresses, this.bSizes, this.points, this.counts, this.bThreads, this.observer ? this.bVariables : undefined)
    this.kept += this.bCount
    this.bCount = 0
    this.numberedUpTo = 0
  }
}

