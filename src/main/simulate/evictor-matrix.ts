/**
 * Evictee x evictor counts for one level (METRIC section 8 "evictor references"). Keys are
 * owner codes: a point index (>= 0), or OWNER_PREFETCH / OWNER_WRITEBACK / OWNER_CONTEXT. Dense while the
 * point table is small (a typed-array increment per eviction), a Map beyond that: most
 * pairs never meet, so a full matrix of a large program would be almost all zeros.
 */
export const OWNER_NONE = -1
export const OWNER_PREFETCH = -2
export const OWNER_WRITEBACK = -3
/** The rest of the program: a function-scoped trace's context accesses (native simulator only). */
export const OWNER_CONTEXT = -4
/** Owner codes are shifted by this so every index is >= 0. */
const SHIFT = 4
const DENSE_MAX_CELLS = 1 << 18
/** Sparse key = evictee * 2^26 + evictor (exact in a double for < 2^26 owners). */
const SPARSE_STRIDE = 2 ** 26

export interface EvictorCount {
  evictee: number
  evictor: number
  count: number
}

export class EvictorMatrix {
  private width: number
  private dense: Float64Array | null
  private readonly sparse = new Map<number, number>()

  constructor(points: number) {
    this.width = points + SHIFT
    this.dense = this.width * this.width <= DENSE_MAX_CELLS ? new Float64Array(this.width * this.width) : null
  }

  /** The point table grew: move to the sparse form if the dense one no longer fits. */
  grow(points: number): void {
    const width = points + SHIFT
    if (width <= this.width) return
    const old = this.entries()
    this.width = width
    this.dense = width * width <= DENSE_MAX_CELLS ? new Float64Array(width * width) : null
    this.sparse.clear()
    for (const e of old) this.add(e.evictee, e.evictor, e.count)
  }

  add(evictee: number, evictor: number, count = 1): void {
    const a = evictee + SHIFT
    const b = evictor + SHIFT
    if (this.dense) this.dense[a * this.width + b]! += count
    else {
      const key = a * SPARSE_STRIDE + b
      this.sparse.set(key, (this.sparse.get(key) ?? 0) + count)
    }
  }

  entries(): EvictorCount[] {
    const out: EvictorCount[] = []
    if (this.dense) {
      const d = this.dense
      for (let i = 0; i < d.length; i++) {
        if (d[i] !== 0) out.push({ evictee: Math.floor(i / this.width) - SHIFT, evictor: (i % this.width) - SHIFT, count: d[i]! })
      }
    } else {
      for (const [key, count] of this.sparse) out.push({ evictee: Math.floor(key / SPARSE_STRIDE) - SHIFT, evictor: (key % SPARSE_STRIDE) - SHIFT, count })
    }
    return out
  }
}
