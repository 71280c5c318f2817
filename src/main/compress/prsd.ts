/**
 * Online detection of PRSDs and RSDs per access point, exactly as METRIC section 4.
 *
 * An RSD <start, length, stride> describes `length` addresses start + i*stride; a PRSD
 * <start, length, stride, child> describes `length` instances of its child descriptor whose
 * starts are start + i*stride. Height 0 is an RSD; a PRSD is one higher than its child.
 *
 * Each access point keeps levels 0..MAX_LEVEL, each `empty`, `single` or `compound`
 * (section 4.1). An address is processed at level 0; an element X arriving at a level:
 *  - empty: stored, the level becomes single;
 *  - single with Y: if is_compatible_sibling(X, Y) a composite of length 2, stride
 *    X.start - Y.start, child Y, replaces Y (compound); otherwise every level from this one up
 *    is flushed, and X is stored (single);
 *  - compound with Y: if is_compatible_child(X, Y) Y.length grows by one; otherwise Y is
 *    pushed to the next level, this level is emptied and X is processed here again.
 * An element pushed above MAX_LEVEL is flushed. Flushed RSDs shorter than three (and a lone
 * address) are irregular accesses; everything else is output as a descriptor. Levels hold
 * older elements the higher they are, so flushing from the top down keeps each point's output
 * in execution order.
 *
 * Level 0 lives in typed arrays (its elements are addresses and RSDs), so the common case,
 * an address the level-0 RSD predicts, is one multiply-add and a compare with no allocation.
 * Objects are made only when an RSD ends.
 */

/** Descriptor: an RSD (height 0, child null) or a PRSD. Addresses are exact integers < 2^53. */
export interface Prsd {
  height: number
  start: number
  length: number
  stride: number
  child: Prsd | null
}

/** Receives each point's output in order: descriptors and irregular addresses. */
export interface PrsdSink {
  descriptor(point: number, d: Prsd): void
  irregular(point: number, address: number): void
}

export const MAX_LEVEL = 6
/** RSDs shorter than this are irregular accesses (METRIC section 3.2). */
export const MIN_RSD_LENGTH = 3

const EMPTY = 0
const SINGLE = 1
const COMPOUND = 2

/** Same height, length and stride, and compatible children (the start may differ). */
export function isCompatibleSibling(x: Prsd, y: Prsd): boolean {
  let a: Prsd | null = x
  let b: Prsd | null = y
  while (a && b) {
    if (a.height !== b.height || a.length !== b.length || a.stride !== b.stride) return false
    a = a.child
    b = b.child
  }
  return a === b
}

/** X is the next instance Y produces: compatible with Y's child and starting where predicted. */
export function isCompatibleChild(x: Prsd, y: Prsd): boolean {
  return y.child !== null && x.start === y.start + y.length * y.stride && isCompatibleSibling(x, y.child)
}

/** Number of addresses a descriptor expands to. */
export function prsdAccesses(d: Prsd): number {
  let n = 1
  for (let c: Prsd | null = d; c; c = c.child) n *= c.length
  return n
}

export class PrsdDetector {
  private state0: Uint8Array
  private start0: Float64Array
  private stride0: Float64Array
  private length0: Float64Array
  /** Levels 1..MAX_LEVEL per point: state and element, allocated when a point first needs them. */
  private upper: Array<{ state: Uint8Array; element: Array<Prsd | null> } | undefined> = []

  constructor(points: number, private readonly sink: PrsdSink) {
    this.state0 = new Uint8Array(points)
    this.start0 = new Float64Array(points)
    this.stride0 = new Float64Array(points)
    this.length0 = new Float64Array(points)
  }

  get points(): number {
    return this.state0.length
  }

  /** Makes room for more access points (the point table grows while a trace runs). */
  grow(points: number): void {
    if (points <= this.state0.length) return
    const cap = Math.max(points, this.state0.length * 2)
    const s = new Uint8Array(cap)
    s.set(this.state0)
    this.state0 = s
    const a = new Float64Array(cap)
    a.set(this.start0)
    this.start0 = a
    const b = new Float64Array(cap)
    b.set(this.stride0)
    this.stride0 = b
    const c = new Float64Array(cap)
    c.set(this.length0)
    this.length0 = c
  }

  /** Processes one address of `point` at level 0. */
  add(point: number, address: number): void {
    const s = this.state0[point]!
    if (s === COMPOUND) {
      if (address === this.start0[point]! + this.length0[point]! * this.stride0[point]!) {
        this.length0[point]!++
        return
      }
      // Not a compatible child: push the RSD up, empty level 0, process the address again.
      const rsd: Prsd = { height: 0, start: this.start0[point]!, length: this.length0[point]!, stride: this.stride0[point]!, child: null }
      this.state0[point] = EMPTY
      this.process(point, 1, rsd)
      this.state0[point] = SINGLE
      this.start0[point] = address
    } else if (s === SINGLE) {
      // Two addresses are always compatible siblings: they form an RSD of length 2.
      this.stride0[point] = address - this.start0[point]!
      this.length0[point] = 2
      this.state0[point] = COMPOUND
    } else {
      this.state0[point] = SINGLE
      this.start0[point] = address
    }
  }

  private levels(point: number): { state: Uint8Array; element: Array<Prsd | null> } {
    let l = this.upper[point]
    if (!l) {
      l = { state: new Uint8Array(MAX_LEVEL + 1), element: new Array<Prsd | null>(MAX_LEVEL + 1).fill(null) }
      this.upper[point] = l
    }
    return l
  }

  private process(point: number, level: number, x: Prsd): void {
    if (level > MAX_LEVEL) {
      this.emit(point, x)
      return
    }
    const l = this.levels(point)
    const state = l.state[level]!
    if (state === EMPTY) {
      l.element[level] = x
      l.state[level] = SINGLE
    } else if (state === SINGLE) {
      const y = l.element[level]!
      if (isCompatibleSibling(x, y)) {
        l.element[level] = { height: y.height + 1, start: y.start, length: 2, stride: x.start - y.start, child: y }
        l.state[level] = COMPOUND
      } else {
        // A change of pattern: flush this level and every higher one, then keep X.
        this.flushLevels(point, level)
        l.element[level] = x
        l.state[level] = SINGLE
      }
    } else {
      const y = l.element[level]!
      if (isCompatibleChild(x, y)) {
        y.length++
      } else {
        l.element[level] = null
        l.state[level] = EMPTY
        this.process(point, level + 1, y)
        this.process(point, level, x)
      }
    }
  }

  /** Flushes levels >= `from` (1-based upper levels), oldest (highest) first. */
  private flushLevels(point: number, from: number): void {
    const l = this.upper[point]
    if (!l) return
    for (let level = MAX_LEVEL; level >= from; level--) {
      const e = l.element[level]
      if (e) this.emit(point, e)
      l.element[level] = null
      l.state[level] = EMPTY
    }
  }

  private emit(point: number, d: Prsd): void {
    if (d.height === 0 && d.length < MIN_RSD_LENGTH) {
      for (let i = 0; i < d.length; i++) this.sink.irregular(point, d.start + i * d.stride)
    } else this.sink.descriptor(point, d)
  }

  /**
   * Ends every point's stream (end of a chunk or of the trace): as if an unpredicted access
   * followed, each level's element is pushed to the next level from the bottom up, where it
   * may still join a PRSD, and whatever leaves the top is flushed. A lone address left at
   * level 0 is the newest access and is flushed last, as irregular.
   */
  flush(): void {
    for (let p = 0; p < this.state0.length; p++) {
      const s = this.state0[p]!
      if (s === EMPTY) continue
      this.state0[p] = EMPTY
      if (s === COMPOUND) this.process(p, 1, { height: 0, start: this.start0[p]!, length: this.length0[p]!, stride: this.stride0[p]!, child: null })
      const l = this.upper[p]
      if (l) {
        for (let level = 1; level <= MAX_LEVEL; level++) {
          const e = l.element[level]
          if (!e) continue
          l.element[level] = null
          l.state[level] = EMPTY
          this.process(p, level + 1, e)
        }
      }
      if (s === SINGLE) this.sink.irregular(p, this.start0[p]!)
    }
  }
}
