/**
 * The live heap blocks, sorted by start and never overlapping (the address map drops stale
 * ones before it inserts), as three typed arrays: the native attribution loop searches them
 * itself (native-attribute.ts), so a point walking from one map node to the next is answered
 * there instead of stopping the loop. A block's arrays are replaced when they grow.
 */
import { grownFor } from '../typed-arrays'

export class HeapBlocks {
  start = new Float64Array(1024)
  end = new Float64Array(1024)
  variable = new Int32Array(1024)
  count = 0

  /** The first block whose start is at or above `address` (count if none). */
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

  /** The block holding `address`, or -1 (a NaN address lands in the middle block, as in the
   * Range[] search this replaced; the native loop never searches for NaN). */
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

  insert(at: number, start: number, end: number, variable: number): void {
    const n = this.count
    if (n === this.start.length) {
      this.start = grownFor(this.start, n)
      this.end = grownFor(this.end, n)
      this.variable = grownFor(this.variable, n)
    }
    this.start.copyWithin(at + 1, at, n)
    this.end.copyWithin(at + 1, at, n)
    this.variable.copyWithin(at + 1, at, n)
    this.start[at] = start
    this.end[at] = end
    this.variable[at] = variable
    this.count = n + 1
  }

  remove(at: number): void {
    const n = this.count
    this.start.copyWithin(at, at + 1, n)
    this.end.copyWithin(at, at + 1, n)
    this.variable.copyWithin(at, at + 1, n)
    this.count = n - 1
  }
}
