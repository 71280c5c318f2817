/**
 * The program's address space at one moment of the trace: which variable owns an address.
 * Globals are fixed ranges; heap blocks come and go with malloc/free (a freed block's memory
 * is attributed to whatever is allocated there next); stack frames are pushed at function
 * entry (locals at offsets from the frame's CFA) and popped when the return address is read.
 * Each thread has its own frame stack: one thread's return must not pop another's frames.
 */

import { grownFor } from '../typed-arrays'

export const UNKNOWN_VARIABLE = 0

export interface Range {
  start: number
  end: number
  variable: number
}

/** Per point: the epoch its span was found in, the span, and its answer (see AddressMap.resolveAt). */
export interface Spans {
  epoch: number
  epochs: Float64Array
  low: Float64Array
  high: Float64Array
  variable: Int32Array
}

export interface FrameLocal {
  /** Offset from the CFA (DW_OP_fbreg with a call-frame-CFA frame base). */
  offset: number
  size: number
  variable: number
}

interface Frame {
  cfa: number
  ranges: Range[]
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
  private readonly heap: Range[] = []
  /** Frame stacks per thread; `frames` is the current thread's. */
  private readonly stacks = new Map<number, Frame[]>()
  private frames: Frame[] = []
  private thread = 0
  /** The last range that answered: consecutive accesses mostly hit the same variable. */
  private last: Range | null = null
  /**
   * Per access point, the span around its last address that resolves to one answer (its
   * variable's range, or a gap between ranges: unknown), valid while `epoch` is unchanged. A
   * point mostly walks through one array or one untracked region, so most accesses stop here;
   * any change to the ranges (a frame, a block, globals) starts a new epoch.
   */
  private epoch = 1
  private spanEpoch = new Float64Array(0)
  private spanLow = new Float64Array(0)
  private spanHigh = new Float64Array(0)
  private spanVariable = new Int32Array(0)

  constructor() {
    this.stacks.set(0, this.frames)
  }

  /** The thread the next frame events and accesses belong to (0 when the tracer has no threads). */
  setThread(thread: number): void {
    if (thread === this.thread) return
    this.thread = thread
    let frames = this.stacks.get(thread)
    if (!frames) this.stacks.set(thread, (frames = []))
    this.frames = frames
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
    this.forget()
  }

  /** More globals (a shared library mapped later): merged into the sorted ranges. */
  addGlobals(ranges: Range[]): void {
    this.setGlobals([...this.globals, ...ranges])
  }

  /** A block allocated at [start, start + size). Overlapping stale blocks are dropped. */
  alloc(start: number, size: number, variable: number): void {
    const end = start + Math.max(size, 1)
    this.removeOverlapping(start, end)
    this.heap.splice(insertionPoint(this.heap, start), 0, { start, end, variable })
    this.epoch++ // it may lie in a gap a point remembers
  }

  free(start: number): void {
    const i = insertionPoint(this.heap, start)
    if (this.heap[i]?.start === start) {
      this.forget()
      this.heap.splice(i, 1)
    }
  }

  private removeOverlapping(start: number, end: number): void {
    let i = insertionPoint(this.heap, start)
    if (i > 0 && this.heap[i - 1]!.end > start) i--
    while (i < this.heap.length && this.heap[i]!.start < end) {
      if (this.heap[i]!.end > start) {
        this.forget()
        this.heap.splice(i, 1)
      } else i++
    }
  }

  /** A function was entered with this CFA (stack pointer before the call pushed its return address). */
  enterFrame(cfa: number, locals: FrameLocal[]): void {
    // Frames at or below the new CFA have returned (the stack grew back over them).
    while (this.frames.length > 0 && this.frames[this.frames.length - 1]!.cfa <= cfa) this.frames.pop()
    const ranges = locals.map((l) => ({ start: cfa + l.offset, end: cfa + l.offset + l.size, variable: l.variable })).sort((a, b) => a.start - b.start)
    this.frames.push({ cfa, ranges })
    this.forget()
  }

  /** A read of the innermost frame's return-address slot is its `ret`: pop it. */
  maybeReturn(address: number, size: number): void {
    const top = this.frames[this.frames.length - 1]
    if (top && size === 8 && address === top.cfa - 8) {
      this.frames.pop()
      this.forget()
    }
  }

  /** A function returned with the stack pointer at `sp`: frames at or below it are gone. */
  leaveTo(sp: number): void {
    const before = this.frames.length
    while (this.frames.length > 0 && this.frames[this.frames.length - 1]!.cfa <= sp) this.frames.pop()
    if (this.frames.length !== before) this.forget()
  }

  /** Ranges changed: every remembered answer is stale. */
  private forget(): void {
    this.last = null
    this.epoch++
  }

  /**
   * The points' remembered spans as they are now, for a loop that tests them itself
   * (native-attribute.ts); stale once resolveAt() adds a point or the ranges change.
   */
  spans(): Spans {
    return { epoch: this.epoch, epochs: this.spanEpoch, low: this.spanLow, high: this.spanHigh, variable: this.spanVariable }
  }

  /** resolve(address) for an access by `point`: the same answer, mostly from the point's last span. */
  resolveAt(point: number, address: number): number {
    if (point < this.spanEpoch.length && this.spanEpoch[point] === this.epoch && address >= this.spanLow[point]! && address < this.spanHigh[point]!) return this.spanVariable[point]!
    const variable = this.resolve(address)
    const span = variable === UNKNOWN_VARIABLE ? this.gapAround(address) : this.last
    if (span) {
      if (point >= this.spanEpoch.length) {
        this.spanEpoch = grownFor(this.spanEpoch, point, 0, 1024)
        this.spanLow = grownFor(this.spanLow, point, 0, 1024)
        this.spanHigh = grownFor(this.spanHigh, point, 0, 1024)
        this.spanVariable = grownFor(this.spanVariable, point, 0, 1024)
      }
      this.spanEpoch[point] = this.epoch
      this.spanLow[point] = span.start
      this.spanHigh[point] = span.end
      this.spanVariable[point] = variable
    }
    return variable
  }

  /** The widest span around an unknown address that no range touches (null if unsure). */
  private gapAround(address: number): { start: number; end: number } | null {
    const gap = { start: -Infinity, end: Infinity }
    // Heap blocks never overlap (alloc drops stale ones): the neighbours bound the gap.
    const h = insertionPoint(this.heap, address + 1)
    if (h < this.heap.length) gap.end = this.heap[h]!.start
    if (h > 0) gap.start = this.heap[h - 1]!.end
    // Globals may nest (a symbol inside another): the furthest end before the address counts.
    const g = insertionPoint(this.globals, address + 1)
    if (g < this.globals.length) gap.end = Math.min(gap.end, this.globals[g]!.start)
    if (g > 0) gap.start = Math.max(gap.start, this.globalsReach[g - 1]!)
    // Locals of different scopes may share a slot: a frame's few ranges are scanned whole.
    for (const frames of this.stacks.values())
      for (const f of frames)
        for (const r of f.ranges) {
          if (r.start > address) gap.end = Math.min(gap.end, r.start)
          else gap.start = Math.max(gap.start, r.end)
        }
    // An address inside a range resolve() did not find (overlapping input): no gap.
    return gap.start <= address && address < gap.end ? gap : null
  }

  get depth(): number {
    return this.frames.length
  }

  resolve(address: number): number {
    const last = this.last
    if (last && address >= last.start && address < last.end) return last.variable
    // Innermost frame first: a local shadows nothing, but frames are the most volatile.
    for (let f = this.frames.length - 1; f >= 0; f--) {
      const hit = findIn(this.frames[f]!.ranges, address)
      if (hit) return (this.last = hit).variable
    }
    const heap = this.heap.length > 0 ? findIn(this.heap, address) : null
    if (heap) return (this.last = heap).variable
    // Most accesses outside every global (heap data, untracked stacks) skip the search.
    const global = address >= this.globalsLow && address < this.globalsHigh ? findIn(this.globals, address) : null
    if (global) return (this.last = global).variable
    // Another thread's local, reached through a pointer.
    if (this.stacks.size > 1)
      for (const [thread, frames] of this.stacks) {
        if (thread === this.thread) continue
        for (let f = frames.length - 1; f >= 0; f--) {
          const hit = findIn(frames[f]!.ranges, address)
          if (hit) return (this.last = hit).variable
        }
      }
    return UNKNOWN_VARIABLE
  }
}
