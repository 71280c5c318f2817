/**
 * The live heap blocks, sorted by start and never overlapping (the address map drops stale
 * ones before it adds), as three typed arrays: the native attribution loop searches them
 * itself (native-attribute.ts), so a point walking from one map node to the next is answered
 * there instead of stopping the loop. A block's arrays are replaced when they grow.
 *
 * A freed block leaves a tombstone in its slot (variable TOMB, an empty range at its start), so
 * a free moves nothing, and an allocation fills the nearest tombstone, moving only the slots
 * between: a C++ program allocating and freeing among 100,000 live blocks moved them all at
 * every malloc and free (jsoncpp's trace: 4 s of copying). Tombstones keep both starts and
 * ends sorted (a tombstone lies between its neighbours' ends and starts), so every search over
 * the slots, here and in the native loop, is the one it was: an empty range holds no address.
 * They are dropped once they outnumber the blocks.
 */
import { grownFor } from '../typed-arrays'

/** The variable of a slot holding no block. */
export const TOMB = -1
/** How far from its place an allocation looks for a tombstone to fill. */
const REACH = 32

export class HeapBlocks {
  start = new Float64Array(1024)
  end = new Float64Array(1024)
  variable = new Int32Array(1024)
  /** Slots in use: blocks and tombstones (what a search covers). */
  count = 0
  /** Blocks. */
  live = 0

  /** The first slot whose start is at or above `address` (count if none). */
  insertionPoint(address: number): number {
    const start = this.start
    let lo = 0
    let hi = this.count
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (start[mid]! < address) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** The slot of the block holding `address`, or -1 (a NaN address lands in the middle slot, as in the
   * Range[] search this replaced; the native loop never searches for NaN). A tombstone holds nothing. */
  find(address: number): number {
    const start = this.start
    const end = this.end
    let lo = 0
    let hi = this.count - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (address < start[mid]!) hi = mid - 1
      else if (address >= end[mid]!) lo = mid + 1
      else return mid
    }
    return -1
  }

  isLive(slot: number): boolean {
    return this.variable[slot] !== TOMB
  }

  /** The slot of the block starting exactly at `start`, or -1. */
  slotOf(start: number): number {
    for (let i = this.insertionPoint(start); i < this.count && this.start[i] === start; i++) if (this.variable[i] !== TOMB) return i
    return -1
  }

  /**
   * The nearest block's slot at or after `slot` within `reach` slots, else the last slot looked
   * at (a tombstone: its start still bounds the gap after the block before, if less widely);
   * count if none.
   */
  nextLive(slot: number, reach = 8): number {
    for (let n = 0; slot < this.count - 1 && this.variable[slot] === TOMB && n < reach; n++) slot++
    return slot < this.count && this.variable[slot] === TOMB && slot === this.count - 1 ? this.count : slot
  }

  /** The nearest block's slot at or before `slot` within `reach` slots, else the last looked at (a tombstone, as nextLive); -1 if none. */
  previousLive(slot: number, reach = 8): number {
    for (let n = 0; slot > 0 && this.variable[slot] === TOMB && n < reach; n++) slot--
    return slot === 0 && this.variable[0] === TOMB ? -1 : slot
  }

  /** Adds the block [start, end), which overlaps none. */
  add(start: number, end: number, variable: number): void {
    const at = this.insertionPoint(start)
    const v = this.variable
    let slot = -1
    if (at < this.count && v[at] === TOMB) slot = at
    else {
      // The nearest tombstone within reach: the slots between move over by one.
      for (let d = 1; d <= REACH && slot < 0; d++) {
        if (at - d >= 0 && v[at - d] === TOMB) {
          const j = at - d
          this.moveSlots(j, j + 1, at)
          slot = at - 1
        } else if (at + d - 1 < this.count && v[at + d - 1] === TOMB) {
          const k = at + d - 1
          this.moveSlots(at + 1, at, k)
          slot = at
        }
      }
    }
    if (slot < 0) slot = this.openSlot(at)
    // Through `this`: opening a slot may have replaced the arrays.
    this.start[slot] = start
    this.end[slot] = end
    this.variable[slot] = variable
    this.live++
    // Tombstones that lay inside the new block move to its end (still between it and the next block).
    for (let k = slot + 1; k < this.count && this.start[k]! < end; k++) {
      this.start[k] = end
      this.end[k] = end
    }
  }

  /** Frees the block in `slot`, leaving a tombstone (no slot moves: a caller may go on walking them). */
  removeAt(slot: number): void {
    this.variable[slot] = TOMB
    this.end[slot] = this.start[slot]!
    this.live--
  }

  /** Drops the tombstones once they outnumber the blocks (slots then move). */
  tidy(): void {
    const tombs = this.count - this.live
    if (tombs > 64 && tombs > this.live) this.compact()
  }

  /** A free slot at `at`, every slot from it on moved up by one (the arrays grown if full). */
  private openSlot(at: number): number {
    if (this.count === this.start.length) {
      if (this.count - this.live > this.count >> 2) {
        // Mostly tombstones: dropping them makes the room (and moves `at`).
        const before = this.live === 0 ? 0 : this.liveBefore(at)
        this.compact()
        return this.openSlot(before)
      }
      this.start = grownFor(this.start, this.count)
      this.end = grownFor(this.end, this.count)
      this.variable = grownFor(this.variable, this.count)
    }
    this.moveSlots(at + 1, at, this.count)
    this.count++
    return at
  }

  /** Blocks in the slots before `at`. */
  private liveBefore(at: number): number {
    let n = 0
    for (let i = 0; i < at; i++) if (this.variable[i] !== TOMB) n++
    return n
  }

  /** Slots [from, to) copied to `target` (copyWithin, all three arrays). */
  private moveSlots(target: number, from: number, to: number): void {
    if (to <= from) return
    this.start.copyWithin(target, from, to)
    this.end.copyWithin(target, from, to)
    this.variable.copyWithin(target, from, to)
  }

  /** Drops every tombstone, the blocks kept in order in the same arrays. */
  private compact(): void {
    const { start, end, variable } = this
    let w = 0
    for (let r = 0; r < this.count; r++) {
      if (variable[r] === TOMB) continue
      if (w !== r) {
        start[w] = start[r]!
        end[w] = end[r]!
        variable[w] = variable[r]!
      }
      w++
    }
    this.count = w
  }
}
