/**
 * Turns decoded agent batches into what the Valgrind backend produces: access points
 * (one per instruction and kind), 64K-access chunks for the session writer, and the
 * correlator's view of the run (frames at function entry, heap blocks with their
 * allocation context). Also keeps per-function counts (progress), and the convergence
 * samples when that sampling mode is on. No I/O: a sink takes the chunks.
 */
import type { PointRecord } from '../../store/session-writer'
import type { TraceObserver } from '../valgrind/valgrind-tracer'
import { decodeBatch, type AllocKindName, type BatchVisitor, type UntracedReasonName } from './batch-decoder'
import type { ConvergenceDecision, ConvergenceTracker } from './convergence'
import { allocLine, frameLine, freeLine } from './correlator-feed'
import { KIND_READ, KIND_WRITE } from '../../../shared/access-kinds'

export const CHUNK_EVENTS = 1 << 16

export interface ChunkSink {
  /** `pointTable`: the points so far (the sink stores those a chunk names with it). */
  appendChunk(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, pointTable: readonly PointRecord[], counts?: Float64Array, threads?: Uint16Array): void
}

export interface TracedFunction {
  name: string
  /** Runtime [start, end). */
  start: number
  end: number
}

export interface FunctionCounts {
  name: string
  /** Sampled calls (entries seen). */
  samples: number
  /** Accesses recorded by instructions inside the function. */
  events: number
  /** Sampling stopped for it (max samples reached, or converged). */
  done: boolean
}

export interface UntracedCounts {
  total: number
  byReason: Partial<Record<UntracedReasonName, number>>
}

export class TraceAssembler implements BatchVisitor {
  private readonly pointByKey = new Map<number, number>()
  readonly points: PointRecord[] = []
  private readonly fns: TracedFunction[]
  private readonly counts: FunctionCounts[]
  /** Per thread: entry stack pointers of the open sampled calls (innermost last). */
  private readonly stacks = new Map<number, Array<{ fn: number; sp: number }>>()
  /** An allocation waiting for its frame records (they follow it on the same thread). */
  private pendingAlloc: { kind: AllocKindName; block: number; size: number; old: number; thread: number; frames: number[] } | null = null
  readonly untracedCounts: UntracedCounts = { total: 0, byReason: {} }
  private kept = 0
  private limitReached = false
  private bPoints = new Uint32Array(CHUNK_EVENTS)
  private bAddresses = new Float64Array(CHUNK_EVENTS)
  private bSizes = new Uint16Array(CHUNK_EVENTS)
  private bThreads = new Uint16Array(CHUNK_EVENTS)
  private bCount = 0
  /** OS thread id -> the session's thread number (1, 2, ... in first-seen order, as the Valgrind tool numbers them). */
  private readonly threadNumbers = new Map<number, number>()
  private lastThread = -1
  private lastThreadNumber = 0

  constructor(
    functions: TracedFunction[],
    private readonly sink: ChunkSink,
    private readonly observer: TraceObserver | null,
    private readonly maxEvents: number | null,
    private readonly convergence: ConvergenceTracker | null = null,
    private readonly onConverged: (decision: ConvergenceDecision, fn: TracedFunction) => void = () => {}
  ) {
    this.fns = [...functions].sort((a, b) => a.start - b.start)
    this.counts = this.fns.map((f) => ({ name: f.name, samples: 0, events: 0, done: false }))
  }

  /** Accesses kept so far (in chunks or in the batch being filled). */
  get events(): number {
    return this.kept + this.bCount
  }

  /** True once maxEvents accesses are kept: the rest of any batch is dropped. */
  /** Threads whose accesses were recorded. */
  get threads(): number {
    return this.threadNumbers.size
  }

  get full(): boolean {
    return this.limitReached
  }

  functionCounts(): FunctionCounts[] {
    return this.counts.map((c) => ({ ...c }))
  }

  markDone(start: number): void {
    const i = this.fnIndex(start)
    if (i >= 0) this.counts[i]!.done = true
  }

  /** Decodes and takes in one batch. */
  take(bytes: Uint8Array, records: number): void {
    if (this.limitReached) return
    decodeBatch(bytes, records, this)
  }

  private fnIndex(pc: number): number {
    let lo = 0
    let hi = this.fns.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const f = this.fns[mid]!
      if (pc < f.start) hi = mid - 1
      else if (pc >= f.end) lo = mid + 1
      else return mid
    }
    return -1
  }

  access(pc: number, kind: number, address: number, size: number, thread = 0): void {
    if (this.limitReached) return
    this.placeAlloc()
    this.observer?.observe(kind, address, size)
    const key = pc * 4 + kind
    let point = this.pointByKey.get(key)
    if (point === undefined) {
      point = this.points.length
      this.points.push({ idx: point, pc, kind, accesses: 0, firstAddress: address })
      this.pointByKey.set(key, point)
    }
    this.points[point]!.accesses++
    this.observer?.attribute(point, kind, address)
    const f = this.fnIndex(pc)
    if (f >= 0) {
      this.counts[f]!.events++
      this.convergence?.access(this.fns[f]!.name, address, size)
    }
    const i = this.bCount++
    this.bPoints[i] = point
    this.bAddresses[i] = address
    this.bSizes[i] = size > 0xffff ? 0xffff : size
    if (thread !== this.lastThread) {
      this.lastThread = thread
      let n = this.threadNumbers.get(thread)
      // Sessions number threads in 16 bits: past the 65,535th, threads share the last number.
      if (n === undefined) this.threadNumbers.set(thread, (n = Math.min(0xffff, this.threadNumbers.size + 1)))
      this.lastThreadNumber = n
    }
    this.bThreads[i] = this.lastThreadNumber
    if (this.bCount === CHUNK_EVENTS) this.flush()
    if (this.maxEvents !== null && this.kept + this.bCount >= this.maxEvents) {
      this.flush()
      this.limitReached = true
    }
  }

  enter(fn: number, sp: number, _returnAddress: number, thread: number): void {
    this.placeAlloc()
    let stack = this.stacks.get(thread)
    if (!stack) this.stacks.set(thread, (stack = []))
    stack.push({ fn, sp })
    // The call stored the return address at sp: the correlator's frame for fn starts there.
    this.observer?.observe(KIND_WRITE, sp, 8)
    if (this.observer?.wantsInstructions) this.observer.instruction(fn)
    const f = this.fnIndex(fn)
    if (f >= 0) {
      this.counts[f]!.samples++
      this.convergence?.begin(this.fns[f]!.name)
    }
  }

  exit(fn: number, _sp: number, thread: number): void {
    this.placeAlloc()
    const stack = this.stacks.get(thread)
    const top = stack?.pop()
    // The return read the slot at the entry sp (the ret's own access, if traced, did too).
    if (top) this.observer?.observe(KIND_READ, top.sp, 8)
    const f = this.fnIndex(fn)
    if (f < 0 || !this.convergence) return
    const decision = this.convergence.end(this.fns[f]!.name)
    if (decision?.converged) {
      this.counts[f]!.done = true
      this.onConverged(decision, this.fns[f]!)
    }
  }

  alloc(kind: AllocKindName, block: number, size: number, old: number, thread: number): void {
    this.placeAlloc()
    this.pendingAlloc = { kind, block, size, old, thread, frames: [] }
  }

  frame(index: number, pc: number, thread: number): void {
    if (this.pendingAlloc && thread === this.pendingAlloc.thread) this.pendingAlloc.frames[index] = pc
  }

  free(block: number): void {
    this.placeAlloc()
    this.observer?.log(freeLine(block))
  }

  untraced(_pc: number, reason: UntracedReasonName): void {
    this.untracedCounts.total++
    this.untracedCounts.byReason[reason] = (this.untracedCounts.byReason[reason] ?? 0) + 1
  }

  /**
   * Hands the waiting allocation to the correlator, as the interposer's log would: the
   * allocation line, then the frames (the allocator's own first, then the site and callers).
   */
  private placeAlloc(): void {
    const a = this.pendingAlloc
    if (!a) return
    this.pendingAlloc = null
    if (!this.observer) return
    const [site = 0, ...callers] = a.frames.filter((f) => f !== undefined)
    this.observer.log(allocLine(a.kind, a.block, a.size, a.old, site))
    for (const pc of [0, site, ...callers]) this.observer.log(frameLine(pc))
  }

  /** Writes the batch being filled. */
  flush(): void {
    this.placeAlloc()
    if (this.bCount === 0) return
    this.sink.appendChunk(this.bCount, this.bPoints, this.bAddresses, this.bSizes, this.points, undefined, this.bThreads)
    this.kept += this.bCount
    this.bCount = 0
  }
}
