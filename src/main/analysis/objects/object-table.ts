/**
 * The data structures of a session as address extents, for attributing a miss by its address
 * (Buck 2.1: "the address of the last cache miss is matched to the program object containing
 * it"). Extents are sorted and made disjoint once; `resolve` is a binary search with a
 * last-hit shortcut (consecutive misses mostly fall in the same object).
 *
 * Segments (for the n-way search, Buck 2.2) number the whole address space: object k is
 * segment 2k+1, the gap before it segment 2k, the gap after the last object segment 2n. A
 * region of whole segments never cuts an object: its boundaries are object extents.
 */
import type { VariableKind } from '../../../shared/domain'

export interface DataObject {
  name: string
  kind: VariableKind
  start: number
  /** One past the last byte. */
  end: number
}

export const UNKNOWN_OBJECT = -1

export class ObjectTable {
  readonly objects: DataObject[]
  private readonly starts: Float64Array
  private readonly ends: Float64Array
  private last = -1

  /** Overlapping extents (a heap address reused by a later block) keep the first placed. */
  constructor(objects: DataObject[]) {
    const sorted = objects.filter((o) => o.end > o.start).sort((a, b) => a.start - b.start || b.end - a.end)
    const kept: DataObject[] = []
    for (const o of sorted) if (kept.length === 0 || o.start >= kept[kept.length - 1]!.end) kept.push(o)
    this.objects = kept
    this.starts = Float64Array.from(kept.map((o) => o.start))
    this.ends = Float64Array.from(kept.map((o) => o.end))
  }

  get count(): number {
    return this.objects.length
  }

  /** Number of objects starting at or below `address`. */
  private upper(address: number): number {
    let lo = 0
    let hi = this.starts.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.starts[mid]! <= address) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Object index owning `address`, or UNKNOWN_OBJECT. */
  resolve(address: number): number {
    const last = this.last
    if (last >= 0 && address >= this.starts[last]! && address < this.ends[last]!) return last
    const k = this.upper(address) - 1
    if (k >= 0 && address < this.ends[k]!) return (this.last = k)
    return UNKNOWN_OBJECT
  }

  /** Segment of `address` (see the header). */
  segment(address: number): number {
    const k = this.resolve(address)
    if (k >= 0) return 2 * k + 1
    return 2 * this.upper(address)
  }

  get segmentCount(): number {
    return 2 * this.objects.length + 1
  }

  /** First address of a segment (gap 0 starts at 0). */
  segmentStart(s: number): number {
    if (s === 0) return 0
    return s % 2 === 1 ? this.starts[(s - 1) / 2]! : this.ends[s / 2 - 1]!
  }

  /** One past the last address of a segment (the last gap runs to 2^64). */
  segmentEnd(s: number): number {
    if (s === this.segmentCount - 1) return 2 ** 64
    return s % 2 === 1 ? this.ends[(s - 1) / 2]! : this.starts[s / 2]!
  }
}
