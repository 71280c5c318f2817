/**
 * The program's address space at one moment of the trace: which variable owns an address.
 * Globals are fixed ranges; heap blocks come and go with malloc/free (a freed block's memory
 * is attributed to whatever is allocated there next); stack frames are pushed at function
 * entry (locals at offsets from the frame's CFA) and popped when the return address is read.
 * Each thread has its own frame stack: one thread's return must not pop another's frames.
 */

import { grownFor } from '../typed-arrays'
import { HeapBlocks } from './heap-blocks'

export const UNKNOWN_VARIABLE = 0

/**
 * How many of the last changes to the ranges are remembered, each as the address span it
 * touched: a point's span from fewer changes ago is still good if none of them touched it.
 * A power of two (the native loop masks with it).
 */
export const CHANGE_LOG = 64

export interface Range {
  start: number
  end: number
  variable: number
}

/**
 * Per point: the epoch its span was last known good in, the span, and its answer (see
 * AddressMap.resolveAt); and the last CHANGE_LOG changes: change e touched
 * [changeLow[e % CHANGE_LOG], changeHigh[e % CHANGE_LOG]).
 */
export interface Spans {
  epoch: number
  epochs: Float64Array
  low: Float64Array
  high: Float64Array
  variable: Int32Array
  changeLow: Float64Array
  changeHigh: Float64Array
  /** The live heap blocks, sorted (state[MapState.heapCount] of them). */
  heapStart: Float64Array
  heapEnd: Float64Array
  heapVariable: Int32Array
  /** What else resolve() reads first, shared with the native loop: see MapState. */
  state: Float64Array
  /** The current thread's frames (state[MapState.framesDepth] of them) and their locals: see FrameTable. */
  frames: Float64Array
  locals: Float64Array
}

/**
 * Slots of Spans.state. The last range that answered (empty: start Infinity, end -Infinity),
 * the hull of the current thread's frames' locals (an address outside it is in none of them)
 * and that thread, the globals' hull, whether another thread has frames, and how deep the
 * current thread's stack is: with these, its frames (FrameTable) and the heap blocks the native
 * loop answers an address the way resolve() would when the last answer, a local of the thread
 * or a heap block holds it, or when nothing can (in no range, outside the globals' hull, one
 * thread: unknown), and leaves the rest (a global, another thread's local) here.
 */
export const MapState = { heapCount: 0, lastStart: 1, lastEnd: 2, lastVariable: 3, framesLow: 4, framesHigh: 5, thread: 6, globalsLow: 7, globalsHigh: 8, otherFrames: 9, framesDepth: 10, length: 11 } as const

/**
 * The current thread's frames as the native loop reads them, outermost first: per frame
 * FrameTable.fields numbers in Spans.frames (its hull over the frames below, its own hull, and
 * where its locals are: `count` of them from `first` in Spans.locals, LocalTable.fields numbers
 * each, sorted by start as a FrameLayout).
 */
export const FrameTable = { low: 0, high: 1, ownLow: 2, ownHigh: 3, first: 4, count: 5, fields: 6 } as const
export const LocalTable = { start: 0, end: 1, variable: 2, fields: 3 } as const

export interface FrameLocal {
  /** Offset from the CFA (DW_OP_fbreg with a call-frame-CFA frame base). */
  offset: number
  size: number
  variable: number
}

/**
 * A function's locals relative to its CFA, sorted by start (as a frame's ranges are, whatever
 * the CFA): computed once per locals array, shared by every call of the function.
 */
export interface FrameLayout {
  count: number
  /** Offsets of each local's start and end from the CFA, and its variable. */
  start: Float64Array
  end: Float64Array
  variable: Int32Array
  /** The locals' hull relative to the CFA (Infinity, -Infinity for none). */
  low: number
  high: number
}

/** The layout of `locals`: sorted by offset, as `cfa + offset` sorts for any CFA (stable: ties keep their order). */
export function frameLayout(locals: FrameLocal[]): FrameLayout {
  const sorted = [...locals].sort((a, b) => a.offset - b.offset)
  const n = sorted.length
  const layout: FrameLayout = { count: n, start: new Float64Array(n), end: new Float64Array(n), variable: new Int32Array(n), low: Infinity, high: -Infinity }
  for (let i = 0; i < n; i++) {
    const l = sorted[i]!
    layout.start[i] = l.offset
    layout.end[i] = l.offset + l.size
    layout.variable[i] = l.variable
    if (l.offset < layout.low) layout.low = l.offset
    if (l.offset + l.size > layout.high) layout.high = l.offset + l.size
  }
  return layout
}

interface Frame {
  cfa: number
  /** Its locals at cfa + layout.start[i] .. cfa + layout.end[i]. */
  layout: FrameLayout
  /** The hull of this frame's own locals. */
  ownLow: number
  ownHigh: number
  /** The hull of this frame's locals and every frame's below it on its thread's stack. */
  low: number
  high: number
}

/** The local of `frame` holding `address` (binary search, as findIn), or -1. */
function findLocal(frame: Frame, address: number): number {
  const { cfa, layout } = frame
  const start = layout.start
  const end = layout.end
  let lo = 0
  let hi = layout.count - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (address < cfa + start[mid]!) hi = mid - 1
    else if (address >= cfa + end[mid]!) lo = mid + 1
    else return mid
  }
  return -1
}

/** Sorted, non-overlapping ranges with binary search. */
function findIn(ranges: Range[], address: number): Range | null {
  let lo = 0
  let hi = ranges.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const r = ranges[mid]!
    if (address < r.start) hi = mid - 1
    else if (address >= r.end) lo = mid + 1
    else return r
  }
  return null
}

function insertionPoint(ranges: Range[], start: number): number {
  let lo = 0
  let hi = ranges.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (ranges[mid]!.start < start) lo = mid + 1
    else hi = mid
  }
  return lo
}

export class AddressMap {
  private globals: Range[] = []
  /** Every global lies in [globalsLow, globalsHigh): an address outside needs no search. */
  private globalsLow = Infinity
  private globalsHigh = -Infinity
  /** globalsReach[i]: the furthest end among globals[0..i] (they may nest). */
  private globalsReach: number[] = []
  private readonly heap = new HeapBlocks()
  /** Frame stacks per thread; `frames` is the current thread's. */
  private readonly stacks = new Map<number, Frame[]>()
  private frames: Frame[] = []
  private thread = 0
  /**
   * Per thread id below 2^16 (the Valgrind tool's), the CFA of its innermost frame (Infinity:
   * none): a return with the stack pointer below it pops nothing, which the native record scan
   * decides without calling in (native-scan.ts FrameFilter).
   */
  readonly topCfa = new Float64Array(1 << 16).fill(Infinity)
  /** The last range that answered (consecutive accesses mostly hit the same variable), and the rest of MapState. */
  private readonly state = new Float64Array(MapState.length)
  /**
   * Per access point, the span around its last address that resolves to one answer (its
   * variable's range, or a gap between ranges: unknown), valid while `epoch` is unchanged. A
   * point mostly walks through one array or one untracked region, so most accesses stop here.
   * Every change to the ranges (a frame, a block, globals) starts a new epoch and is logged
   * with the addresses it touched: a span that none of the changes since touched still gives
   * the same answer (a heap-heavy program allocates or enters a frame every few dozen
   * accesses, and most of its points' spans lie elsewhere).
   */
  private epoch = 1
  private readonly changeLow = new Float64Array(CHANGE_LOG)
  private readonly changeHigh = new Float64Array(CHANGE_LOG)
  private spanEpoch = new Float64Array(0)
  private spanLow = new Float64Array(0)
  private spanHigh = new Float64Array(0)
  private spanVariable = new Int32Array(0)
  /** FrameTable and LocalTable of the current thread's frames, and the Frame each row was written from. */
  private frameTable = new Float64Array(64 * FrameTable.fields)
  private localTable = new Float64Array(256 * LocalTable.fields)
  /**
   * The Frame each row was written from, `tabledDepth` of them (the array is not cut to that:
   * setting an array's length is a runtime call, at every pop; rows past it are never compared).
   */
  private readonly tabled: Frame[] = []
  private tabledDepth = 0
  /** Layouts of the locals arrays enterFrame was given (a caller passes each function's own array at every call). */
  private readonly layouts = new WeakMap<FrameLocal[], FrameLayout>()
  /** The span popTo's frames covered (its result, without an object per call). */
  private poppedLow = Infinity
  private poppedHigh = -Infinity
  private readonly view: Spans = {
    epoch: 0,
    epochs: this.spanEpoch,
    low: this.spanLow,
    high: this.spanHigh,
    variable: this.spanVariable,
    changeLow: this.changeLow,
    changeHigh: this.changeHigh,
    heapStart: this.heap.start,
    heapEnd: this.heap.end,
    heapVariable: this.heap.variable,
    state: this.state,
    frames: this.frameTable,
    locals: this.localTable
  }

  constructor() {
    this.stacks.set(0, this.frames)
    this.state[MapState.globalsLow] = Infinity
    this.state[MapState.globalsHigh] = -Infinity
    this.dropLast()
    this.framesChanged()
  }

  /** The thread the next frame events and accesses belong to (0 when the tracer has no threads). */
  setThread(thread: number): void {
    if (thread === this.thread) return
    this.thread = thread
    let frames = this.stacks.get(thread)
    if (!frames) this.stacks.set(thread, (frames = []))
    this.frames = frames
    this.state[MapState.thread] = thread
    this.framesChanged()
  }

  setGlobals(ranges: Range[]): void {
    this.globals = [...ranges].filter((r) => r.end > r.start).sort((a, b) => a.start - b.start)
    this.globalsLow = this.globals.length > 0 ? this.globals[0]!.start : Infinity
    this.globalsHigh = -Infinity
    this.globalsReach = []
    for (const r of this.globals) {
      if (r.end > this.globalsHigh) this.globalsHigh = r.end
      this.globalsReach.push(this.globalsHigh)
    }
    this.state[MapState.globalsLow] = this.globalsLow
    this.state[MapState.globalsHigh] = this.globalsHigh
    this.changed(-Infinity, Infinity)
  }

  /** More globals (a shared library mapped later): merged into the sorted ranges. */
  addGlobals(ranges: Range[]): void {
    this.setGlobals([...this.globals, ...ranges])
  }

  /** A block allocated at [start, start + size). Overlapping stale blocks are dropped. */
  alloc(start: number, size: number, variable: number): void {
    const end = start + Math.max(size, 1)
    const touched = this.removeOverlapping(start, end)
    this.heap.add(start, end, variable)
    this.state[MapState.heapCount] = this.heap.count
    // It may lie in a gap a point remembers; the last answer stays good unless a block went.
    if (touched) this.changed(touched.start, touched.end)
    else this.changed(start, end, false)
  }

  free(start: number): void {
    const heap = this.heap
    const i = heap.slotOf(start)
    if (i >= 0) {
      const end = heap.end[i]!
      heap.removeAt(i)
      heap.tidy()
      this.state[MapState.heapCount] = heap.count
      this.changed(start, end)
    }
  }

  /** Drops stale blocks overlapping [start, end); returns the span they and it cover, or null if none. */
  private removeOverlapping(start: number, end: number): { start: number; end: number } | null {
    let low = start
    let high = end
    let removed = false
    const heap = this.heap
    let i = heap.insertionPoint(start)
    if (i > 0 && heap.end[i - 1]! > start) i--
    // (A tombstone's range is empty: it overlaps nothing.)
    while (i < heap.count && heap.start[i]! < end) {
      if (heap.end[i]! > start && heap.isLive(i)) {
        low = Math.min(low, heap.start[i]!)
        high = Math.max(high, heap.end[i]!)
        removed = true
        heap.removeAt(i)
      }
      i++
    }
    if (removed) {
      heap.tidy()
      this.state[MapState.heapCount] = heap.count
    }
    return removed ? { start: low, end: high } : null
  }

  /**
   * A function was entered with this CFA (stack pointer before the call pushed its return
   * address). `locals` is best the same array at every call of a function (its layout is
   * remembered by identity: the array must not change afterwards), or its frameLayout().
   */
  enterFrame(cfa: number, locals: FrameLocal[] | FrameLayout): void {
    let layout: FrameLayout
    if (Array.isArray(locals)) {
      let known = this.layouts.get(locals)
      if (!known) this.layouts.set(locals, (known = frameLayout(locals)))
      layout = known
    } else layout = locals
    // Its own hull: the layout's, at this CFA (cfa + offset is exact: both are integers below 2^53).
    const ownLow = cfa + layout.low
    const ownHigh = cfa + layout.high
    // Frames at or below the new CFA have returned (the stack grew back over them).
    this.popTo(cfa, ownLow, ownHigh)
    const below = this.frames[this.frames.length - 1]
    this.frames.push({ cfa, layout, ownLow, ownHigh, low: below ? Math.min(below.low, ownLow) : ownLow, high: below ? Math.max(below.high, ownHigh) : ownHigh })
    this.framesChanged()
    this.changed(this.poppedLow, this.poppedHigh)
  }

  /** A read of the innermost frame's return-address slot is its `ret`: pop it. */
  maybeReturn(address: number, size: number): void {
    const top = this.frames[this.frames.length - 1]
    if (top && size === 8 && address === top.cfa - 8) {
      this.frames.pop()
      this.framesChanged()
      this.changed(top.ownLow, top.ownHigh)
    }
  }

  /** A function returned with the stack pointer at `sp`: frames at or below it are gone. */
  leaveTo(sp: number): void {
    const before = this.frames.length
    this.popTo(sp, Infinity, -Infinity)
    if (this.frames.length !== before) {
      this.framesChanged()
      this.changed(this.poppedLow, this.poppedHigh)
    }
  }

  /**
   * Pops the frames whose CFA is at or below `cfa`; poppedLow and poppedHigh become [low, high)
   * widened over their locals (each frame's own hull, kept since its push).
   */
  private popTo(cfa: number, low: number, high: number): void {
    const frames = this.frames
    while (frames.length > 0 && frames[frames.length - 1]!.cfa <= cfa) {
      const f = frames.pop()!
      low = Math.min(low, f.ownLow)
      high = Math.max(high, f.ownHigh)
    }
    this.poppedLow = low
    this.poppedHigh = high
  }

  /**
   * The ranges changed within [low, high) only: a new epoch, logged with that span. The last
   * answer is dropped unless the change only added a range (`dropLast` false).
   */
  private changed(low: number, high: number, dropLast = true): void {
    if (dropLast) this.dropLast()
    const e = ++this.epoch % CHANGE_LOG
    this.changeLow[e] = low
    this.changeHigh[e] = high
  }

  private dropLast(): void {
    this.state[MapState.lastStart] = Infinity
    this.state[MapState.lastEnd] = -Infinity
  }

  private setLast(start: number, end: number, variable: number): number {
    const s = this.state
    s[MapState.lastStart] = start
    s[MapState.lastEnd] = end
    s[MapState.lastVariable] = variable
    return variable
  }

  /** The current thread's frames changed: their hull, for the native loop. */
  private framesChanged(): void {
    const top = this.frames[this.frames.length - 1]
    if (this.thread >= 0 && this.thread < this.topCfa.length) this.topCfa[this.thread] = top ? top.cfa : Infinity
    this.state[MapState.framesLow] = top ? top.low : Infinity
    this.state[MapState.framesHigh] = top ? top.high : -Infinity
    // Another thread's local may be reached through a pointer (resolve() looks there last).
    let other = 0
    if (this.stacks.size > 1)
      for (const frames of this.stacks.values())
        if (frames !== this.frames && frames.length > 0) {
          other = 1
          break
        }
    this.state[MapState.otherFrames] = other
    this.tableFrames()
  }

  /**
   * FrameTable brought up to the current thread's frames: rewritten from the first frame that
   * differs (a push or a pop rewrites one row or none; a switch of threads, all of them).
   */
  private tableFrames(): void {
    const frames = this.frames
    const tabled = this.tabled
    const F = FrameTable.fields
    const L = LocalTable.fields
    let d = Math.min(frames.length, this.tabledDepth)
    while (d > 0 && tabled[d - 1] !== frames[d - 1]) d--
    let first = d > 0 ? this.frameTable[(d - 1) * F + FrameTable.first]! + this.frameTable[(d - 1) * F + FrameTable.count]! : 0
    for (; d < frames.length; d++) {
      const f = frames[d]!
      if ((d + 1) * F > this.frameTable.length) this.frameTable = grownFor(this.frameTable, (d + 1) * F - 1)
      if ((first + f.layout.count) * L > this.localTable.length) this.localTable = grownFor(this.localTable, (first + f.layout.count) * L - 1)
      const { cfa, layout } = f
      const n = layout.count
      const t = this.frameTable
      t[d * F + FrameTable.low] = f.low
      t[d * F + FrameTable.high] = f.high
      t[d * F + FrameTable.ownLow] = f.ownLow
      t[d * F + FrameTable.ownHigh] = f.ownHigh
      t[d * F + FrameTable.first] = first
      t[d * F + FrameTable.count] = n
      const l = this.localTable
      for (let i = 0; i < n; i++) {
        l[first * L + LocalTable.start] = cfa + layout.start[i]!
        l[first * L + LocalTable.end] = cfa + layout.end[i]!
        l[first * L + LocalTable.variable] = layout.variable[i]!
        first++
      }
      tabled[d] = f
    }
    this.tabledDepth = frames.length
    this.state[MapState.framesDepth] = frames.length
  }

  /** Whether the point's span, from an earlier epoch, was touched by none of the changes since (then it is current again). */
  private untouched(point: number): boolean {
    const from = this.spanEpoch[point]!
    if (from === 0 || this.epoch - from >= CHANGE_LOG) return false
    const low = this.spanLow[point]!
    const high = this.spanHigh[point]!
    for (let e = from + 1; e <= this.epoch; e++) {
      const k = e % CHANGE_LOG
      if (low < this.changeHigh[k]! && this.changeLow[k]! < high) return false
    }
    this.spanEpoch[point] = this.epoch
    return true
  }

  /**
   * The points' remembered spans as they are now, for a loop that tests them itself
   * (native-attribute.ts): one object, brought up to date at each call (its arrays are
   * replaced when resolveAt() adds a point beyond them).
   */
  spans(): Spans {
    // No new object: this is asked for at every access the loop stops at.
    const v = this.view
    v.epoch = this.epoch
    v.epochs = this.spanEpoch
    v.low = this.spanLow
    v.high = this.spanHigh
    v.variable = this.spanVariable
    v.heapStart = this.heap.start
    v.heapEnd = this.heap.end
    v.heapVariable = this.heap.variable
    v.frames = this.frameTable
    v.locals = this.localTable
    return v
  }

  /** resolve(address) for an access by `point`: the same answer, mostly from the point's last span. */
  resolveAt(point: number, address: number): number {
    if (point < this.spanEpoch.length && address >= this.spanLow[point]! && address < this.spanHigh[point]! && (this.spanEpoch[point] === this.epoch || this.untouched(point)))
      return this.spanVariable[point]!
    const variable = this.resolve(address)
    let low = this.state[MapState.lastStart]!
    let high = this.state[MapState.lastEnd]!
    if (variable === UNKNOWN_VARIABLE) {
      const gap = this.gapAround(address)
      if (!gap) return variable
      low = gap.start
      high = gap.end
    }
    if (point >= this.spanEpoch.length) {
      this.spanEpoch = grownFor(this.spanEpoch, point, 0, 1024)
      this.spanLow = grownFor(this.spanLow, point, 0, 1024)
      this.spanHigh = grownFor(this.spanHigh, point, 0, 1024)
      this.spanVariable = grownFor(this.spanVariable, point, 0, 1024)
    }
    this.spanEpoch[point] = this.epoch
    this.spanLow[point] = low
    this.spanHigh[point] = high
    this.spanVariable[point] = variable
    return variable
  }

  /** The widest span around an unknown address that no range touches (null if unsure). */
  private gapAround(address: number): { start: number; end: number } | null {
    const gap = { start: -Infinity, end: Infinity }
    // Heap blocks never overlap (alloc drops stale ones): the neighbours bound the gap.
    // Tombstones (freed blocks' slots) lie between blocks: past a few of them, one's own place
    // bounds the gap instead, a narrower gap but a true one (a long run is not walked).
    const h = this.heap.insertionPoint(address + 1)
    const next = this.heap.nextLive(h)
    const previous = this.heap.previousLive(h - 1)
    if (next < this.heap.count) gap.end = this.heap.start[next]!
    if (previous >= 0) gap.start = this.heap.end[previous]!
    // Globals may nest (a symbol inside another): the furthest end before the address counts.
    const g = insertionPoint(this.globals, address + 1)
    if (g < this.globals.length) gap.end = Math.min(gap.end, this.globals[g]!.start)
    if (g > 0) gap.start = Math.max(gap.start, this.globalsReach[g - 1]!)
    // Locals of different scopes may share a slot: a frame's few ranges are scanned whole. From
    // the innermost frame down, frame i's hull covers the locals of frames i..0 (lowest start,
    // furthest end): an address below it is bounded by that start alone, one above it by that
    // end alone, as the scan of those frames would find; and a frame's own hull answers for its
    // ranges unless it holds the address. The walk stops near the address, not at the stack's
    // bottom (a deep recursion's scan was most of a C++ program's trace).
    for (const frames of this.stacks.values())
      for (let i = frames.length - 1; i >= 0; i--) {
        const f = frames[i]!
        if (address < f.low) {
          gap.end = Math.min(gap.end, f.low)
          break
        }
        if (address >= f.high) {
          gap.start = Math.max(gap.start, f.high)
          break
        }
        if (address < f.ownLow) gap.end = Math.min(gap.end, f.ownLow)
        else if (address >= f.ownHigh) gap.start = Math.max(gap.start, f.ownHigh)
        else
          for (let k = 0; k < f.layout.count; k++) {
            const start = f.cfa + f.layout.start[k]!
            if (start > address) gap.end = Math.min(gap.end, start)
            else gap.start = Math.max(gap.start, f.cfa + f.layout.end[k]!)
          }
      }
    // An address inside a range resolve() did not find (overlapping input): no gap.
    return gap.start <= address && address < gap.end ? gap : null
  }

  /** Live heap blocks (the slots the native loop searches may hold freed ones too). */
  get heapBlocks(): number {
    return this.heap.live
  }

  get depth(): number {
    return this.frames.length
  }

  resolve(address: number): number {
    const s = this.state
    if (address >= s[MapState.lastStart]! && address < s[MapState.lastEnd]!) return s[MapState.lastVariable]!
    // Innermost frame first: a local shadows nothing, but frames are the most volatile. A
    // frame's hull covers its locals and every frame's below it: outside it, none holds the address.
    for (let f = this.frames.length - 1; f >= 0; f--) {
      const frame = this.frames[f]!
      if (address < frame.low || address >= frame.high) break
      const hit = findLocal(frame, address)
      if (hit >= 0) return this.setLast(frame.cfa + frame.layout.start[hit]!, frame.cfa + frame.layout.end[hit]!, frame.layout.variable[hit]!)
    }
    const heap = this.heap
    const b = heap.count > 0 ? heap.find(address) : -1
    if (b >= 0) return this.setLast(heap.start[b]!, heap.end[b]!, heap.variable[b]!)
    // Most accesses outside every global (heap data, untracked stacks) skip the search.
    const global = address >= this.globalsLow && address < this.globalsHigh ? findIn(this.globals, address) : null
    if (global) return this.setLast(global.start, global.end, global.variable)
    // Another thread's local, reached through a pointer.
    if (this.stacks.size > 1)
      for (const [thread, frames] of this.stacks) {
        if (thread === this.thread) continue
        for (let f = frames.length - 1; f >= 0; f--) {
          const frame = frames[f]!
          if (address < frame.low || address >= frame.high) break
          const hit = findLocal(frame, address)
          if (hit >= 0) return this.setLast(frame.cfa + frame.layout.start[hit]!, frame.cfa + frame.layout.end[hit]!, frame.layout.variable[hit]!)
        }
      }
    return UNKNOWN_VARIABLE
  }
}
