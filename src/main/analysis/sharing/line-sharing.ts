/**
 * Cache lines shared between threads, found independently of the schedule (issue 50).
 *
 * Rules, first:
 *  - A line is shared when two or more threads access it and at least one of them writes it.
 *    Per line and thread: reads, writes, the bytes read and written, and the footprints
 *    (offset in the line, size) with the reference that made each first.
 *  - A thread's access is *true sharing* when its bytes overlap bytes another thread writes in
 *    the line, else *false sharing* (it only shares the line).
 *  - Two figures per line, named as such wherever shown:
 *    `recorded`: coherence misses under the recorded interleaving, each thread on its own core
 *    with an unbounded private cache: an access misses when another thread wrote the line since
 *    this thread's last access (true if it touches bytes written since, else false). Valgrind
 *    runs one thread at a time in long slices, so this understates sharing.
 *    `fineEstimate`: the same threads running truly in parallel, finely interleaved: thread t
 *    misses at most once per write by the others and at most once per access of its own, so
 *    min(accesses_t, writes by the others), split true/false by t's accesses' shares. An upper
 *    bound that fine interleaving reaches; the order of the trace does not enter it.
 *  - `interleavings`: accesses to the line by a thread other than the line's previous accessor,
 *    in the recorded order (0 means the threads' uses of the line were one after the other).
 *
 * Two passes over the trace: the first finds the lines more than one thread touches (a map of
 * line -> first thread, or -1), the second accounts for those lines only, so single-threaded
 * lines cost no per-byte state. Pure: takes batches, returns values.
 */

import type { SharingFigures } from '../../../shared/domain'

/** One batch of accesses in trace order, with each access's thread. */
export interface ThreadedBatch {
  count: number
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
  threads: Uint32Array
  /** The trace's addresses when `addresses` went through a layout map (what-if padding): footprints keep them, for naming. */
  originals?: Float64Array
}

/** Point kinds as stored: 0 read, 1 write, 2 modify (a read then a write of the same bytes). */
const WRITE = 1
const MODIFY = 2
const MAX_FOOTPRINTS = 16

export interface Footprint {
  /** Offset in the line and size in bytes. */
  offset: number
  size: number
  /** Accesses (a modify is one access, one read and one write). */
  accesses: number
  reads: number
  writes: number
  /** The point that made this footprint's first access, and its address in the trace. */
  point: number
  address: number
  /** Its accesses overlapping bytes another thread writes in the line. */
  trueSharing: boolean
}

export interface ThreadOnLine {
  thread: number
  reads: number
  writes: number
  footprints: Footprint[]
  /** Footprints beyond MAX_FOOTPRINTS were merged into the last one's counts. */
  merged: boolean
}

export type { SharingFigures }

export interface SharedLine {
  /** The line's first byte (trace address). */
  address: number
  threads: ThreadOnLine[]
  interleavings: number
  recorded: SharingFigures
  fineEstimate: SharingFigures
  /** Which of the two dominates the estimate. */
  verdict: 'false-sharing' | 'true-sharing'
}

interface Slot {
  thread: number
  reads: number
  writes: number
  /** Per byte: bit 0 read, bit 1 written. */
  bytes: Uint8Array
  /** Bytes written by other threads since this thread's last access (recorded figure). */
  pending: Uint8Array
  stale: boolean
  footprints: Footprint[]
  merged: boolean
}

interface LineState {
  slots: Slot[]
  last: number
  interleavings: number
  recordedTrue: number
  recordedFalse: number
}

export class LineSharingDetector {
  private readonly scale: number
  /** Pass 1: line -> its only thread so far, or -1 once a second thread touched it. */
  private readonly owner = new Map<number, number>()
  /** Pass 2: the lines more than one thread touched. */
  private lines: Map<number, LineState> | null = null

  constructor(
    readonly lineSize: number,
    private readonly pointKinds: Uint8Array
  ) {
    if (!Number.isInteger(Math.log2(lineSize))) throw new Error(`line size ${lineSize} is not a power of two`)
    this.scale = 1 / lineSize
  }

  /** Pass 1: which lines have more than one thread. */
  survey(b: ThreadedBatch): void {
    const owner = this.owner
    // Sweeps touch a line several times in a row: the same line and thread as the access before need no lookup.
    let lastLine = -1
    let lastThread = -1
    // The batch's arrays as locals: batches come in two shapes (with `originals` or not), and a
    // property read per access on them cost more than the rest of the loop.
    const { addresses, sizes, threads } = b
    const scale = this.scale
    for (let i = 0; i < b.count; i++) {
      const a = addresses[i]!
      const first = Math.floor(a * scale)
      const last = Math.floor((a + Math.max(1, sizes[i]!) - 1) * scale)
      const t = threads[i]!
      if (first === lastLine && last === first && t === lastThread) continue
      lastLine = last
      lastThread = t
      for (let line = first; line <= last; line++) {
        const o = owner.get(line)
        if (o === undefined) owner.set(line, t)
        else if (o !== t && o !== -1) owner.set(line, -1)
      }
    }
  }

  /** Ends pass 1: the lines of several threads get their state for pass 2. */
  private prepare(): Map<number, LineState> {
    if (this.lines) return this.lines
    this.lines = new Map()
    for (const [line, o] of this.owner) if (o === -1) this.lines.set(line, { slots: [], last: -1, interleavings: 0, recordedTrue: 0, recordedFalse: 0 })
    this.owner.clear()
    return this.lines
  }

  /** Pass 2: the same batches again, in the same order. */
  account(b: ThreadedBatch): void {
    const lines = this.prepare()
    if (lines.size === 0) return
    const size = this.lineSize
    // Most accesses are to lines of one thread: remember the last line looked up, shared or not.
    let lastLine = -1
    let lastState: LineState | undefined
    const { addresses, sizes } = b
    const scale = this.scale
    for (let i = 0; i < b.count; i++) {
      const a = addresses[i]!
      const n = Math.max(1, sizes[i]!)
      const first = Math.floor(a * scale)
      const last = Math.floor((a + n - 1) * scale)
      if (first === last && first === lastLine && !lastState) continue
      for (let line = first; line <= last; line++) {
        const state = line === lastLine ? lastState : lines.get(line)
        lastLine = line
        lastState = state
        if (!state) continue
        const lo = Math.max(a, line * size) - line * size
        const hi = Math.min(a + n, (line + 1) * size) - line * size
        const original = (b.originals ?? b.addresses)[i]! + (Math.max(a, line * size) - a)
        this.touch(state, b.threads[i]!, b.points[i]!, lo, hi, original)
      }
    }
  }

  private touch(state: LineState, thread: number, point: number, lo: number, hi: number, address: number): void {
    const kind = this.pointKinds[point] ?? 0
    const writes = kind === WRITE || kind === MODIFY
    const reads = kind !== WRITE
    let slot = state.slots.find((s) => s.thread === thread)
    if (!slot) {
      slot = { thread, reads: 0, writes: 0, bytes: new Uint8Array(this.lineSize), pending: new Uint8Array(this.lineSize), stale: false, footprints: [], merged: false }
      state.slots.push(slot)
    }
    if (state.last !== -1 && state.last !== thread) state.interleavings++
    state.last = thread
    // Recorded figure: a miss when another thread wrote the line since this one's last access.
    if (slot.stale) {
      let overlap = false
      for (let k = lo; k < hi; k++) if (slot.pending[k]) overlap = true
      if (overlap) state.recordedTrue++
      else state.recordedFalse++
      slot.pending.fill(0)
      slot.stale = false
    }
    if (reads) slot.reads++
    if (writes) slot.writes++
    const mark = (reads ? 1 : 0) | (writes ? 2 : 0)
    for (let k = lo; k < hi; k++) slot.bytes[k]! |= mark
    if (writes) {
      for (const other of state.slots) {
        if (other === slot) continue
        other.stale = true
        for (let k = lo; k < hi; k++) other.pending[k] = 1
      }
    }
    let f = slot.footprints.find((x) => x.offset === lo && x.size === hi - lo)
    if (!f) {
      if (slot.footprints.length < MAX_FOOTPRINTS) {
        f = { offset: lo, size: hi - lo, accesses: 0, reads: 0, writes: 0, point, address, trueSharing: false }
        slot.footprints.push(f)
      } else {
        f = slot.footprints[slot.footprints.length - 1]!
        slot.merged = true
      }
    }
    f.accesses++
    if (reads) f.reads++
    if (writes) f.writes++
  }

  /** The shared lines (some thread writes, two or more threads), most estimated coherence misses first. */
  result(): SharedLine[] {
    const lines = this.prepare()
    const out: SharedLine[] = []
    for (const [line, state] of lines) {
      const slots = state.slots
      if (slots.length < 2 || !slots.some((s) => s.writes > 0)) continue
      let estTrue = 0
      let estFalse = 0
      for (const s of slots) {
        const othersWritten = new Uint8Array(this.lineSize)
        let writesByOthers = 0
        for (const o of slots) {
          if (o === s) continue
          writesByOthers += o.writes
          for (let k = 0; k < this.lineSize; k++) if (o.bytes[k]! & 2) othersWritten[k] = 1
        }
        let trueAccesses = 0
        for (const f of s.footprints) {
          for (let k = f.offset; k < f.offset + f.size; k++) if (othersWritten[k]) f.trueSharing = true
          if (f.trueSharing) trueAccesses += f.accesses
        }
        const accesses = s.footprints.reduce((sum, f) => sum + f.accesses, 0)
        const est = Math.min(accesses, writesByOthers)
        const share = accesses > 0 ? Math.min(1, trueAccesses / accesses) : 0
        const t = Math.round(est * share)
        estTrue += t
        estFalse += est - t
      }
      out.push({
        address: line * this.lineSize,
        threads: slots.map((s) => ({ thread: s.thread, reads: s.reads, writes: s.writes, footprints: s.footprints.map((f) => ({ ...f })), merged: s.merged })).sort((a, b) => a.thread - b.thread),
        interleavings: state.interleavings,
        recorded: { trueSharing: state.recordedTrue, falseSharing: state.recordedFalse },
        fineEstimate: { trueSharing: estTrue, falseSharing: estFalse },
        verdict: estFalse > estTrue ? 'false-sharing' : 'true-sharing'
      })
    }
    const total = (l: SharedLine) => l.fineEstimate.trueSharing + l.fineEstimate.falseSharing
    return out.sort((a, b) => total(b) - total(a) || a.address - b.address)
  }
}
