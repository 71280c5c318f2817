/**
 * The accesses of every closed run, per point, variable and kind: the per-point histograms and
 * the variables' reads and writes before `drain` hands them over. A hash table of typed arrays
 * (open addressing, linear probing) so that the native attribution loop adds to it too
 * (resources/native/core/src/trace/attribute.c add_closed, the same hash and probe): a run that
 * ends there (a C++ program's point moving from one map node's block to another's) is closed
 * there instead of stopping the loop (jsoncpp: 7 M of its 17 M stops).
 *
 * Cells are numbered in the order they were made, so a point's variables come out in the order
 * its runs of them were first closed: the order a Map per point got them in (it breaks ties in
 * dominantVariable).
 */

/** Slots per cell at most (the table grows before it is fuller): probes stay short. */
const LOAD = 2

/** The slot a (point, variable, kind) starts its probe at: the top `bits` bits of a multiplicative hash. */
export function countSlot(point: number, variable: number, kind: number, bits: number): number {
  return (Math.imul(point, 0x9e3779b1) ^ Math.imul(variable * 4 + kind, 0x85ebca77)) >>> (32 - bits)
}

export class PointCounts {
  /** Slot -> cell + 1 (0: empty); a power of two long. */
  slots = new Int32Array(1024)
  point = new Uint32Array(this.slots.length / LOAD)
  variable = new Int32Array(this.point.length)
  /** Access kinds (0..2). */
  kind = new Uint8Array(this.point.length)
  count = new Float64Array(this.point.length)
  /** [0]: cells in use (shared with the native loop, which adds cells). */
  readonly used = new Float64Array(1)

  /** n more accesses of `kind` by `point` to `variable`. */
  add(point: number, variable: number, kind: number, n: number): void {
    if (this.used[0]! >= this.point.length) this.grow()
    const mask = this.slots.length - 1
    const bits = 31 - Math.clz32(this.slots.length)
    for (let s = countSlot(point, variable, kind, bits); ; s = (s + 1) & mask) {
      const c = this.slots[s]! - 1
      if (c < 0) {
        const fresh = this.used[0]!
        this.point[fresh] = point
        this.variable[fresh] = variable
        this.kind[fresh] = kind
        this.count[fresh] = n
        this.slots[s] = fresh + 1
        this.used[0] = fresh + 1
        return
      }
      if (this.point[c] === point && this.variable[c] === variable && this.kind[c] === kind) {
        this.count[c] += n
        return
      }
    }
  }

  /** Every cell in the order it was made, then none (the table empties). */
  drain(each: (point: number, variable: number, kind: number, n: number) => void): void {
    const used = this.used[0]!
    for (let c = 0; c < used; c++) each(this.point[c]!, this.variable[c]!, this.kind[c]!, this.count[c]!)
    this.slots.fill(0)
    this.used[0] = 0
  }

  /** Twice the slots and cells (new arrays: the native loop binds them again), the cells placed again in order. */
  private grow(): void {
    const used = this.used[0]!
    const { point, variable, kind, count } = this
    this.slots = new Int32Array(this.slots.length * 2)
    this.point = new Uint32Array(this.slots.length / LOAD)
    this.variable = new Int32Array(this.point.length)
    this.kind = new Uint8Array(this.point.length)
    this.count = new Float64Array(this.point.length)
    this.used[0] = 0
    for (let c = 0; c < used; c++) this.add(point[c]!, variable[c]!, kind[c]!, count[c]!)
  }
}
