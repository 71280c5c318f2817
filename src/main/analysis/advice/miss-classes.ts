/**
 * The three Cs of one cache level's misses, per access point (Hill & Smith): a miss is
 * compulsory when its line was never touched before, capacity when a fully associative LRU
 * cache of the same size misses it too, and conflict when only the set mapping causes it
 * (the set-associative run missed, the fully associative shadow did not). The shadow sees the
 * same line stream the level saw; the set-associative misses come from the stored run, so
 * conflict = run misses - shadow misses (never below 0).
 *
 * Also per point: how many of the level's sets its lines fall in, the set-mapping fact the
 * advisor quotes (a column walk whose stride is a multiple of the way size uses few sets).
 *
 * Pure: lines in, counts out. The LRU order is a Map's insertion order (delete + set moves a
 * line to the back; the front is the least recently used), O(1) per access. The reference
 * model of the native shadow (simulate/native-miss-classes.ts), which a trace's first
 * simulation runs and stores (store/shadow-counts.ts); both give `ShadowCounts`, and
 * `classesOf` turns those and a run's misses into the classes.
 */
import type { MissClassCount } from '../../../shared/domain'

export interface ShadowCache {
  size: number
  assoc: number
  lineSize: number
}

/** Points x sets bitmaps beyond this many bytes are not kept (the sets counts are then null). */
export const MAX_SET_BITMAP = 64 * 1024 * 1024
/**
 * Distinct lines remembered for first touches (about 60 MB of Set): beyond it, a miss on a line
 * never remembered counts as capacity (the conflict count, run - shadow, is unaffected).
 */
export const MAX_REMEMBERED_LINES = 2 * 1024 * 1024

/** What the shadow counted, per point: what `classesOf` needs beside the run's misses. */
export interface ShadowCounts {
  /** Accesses the fully associative shadow missed. */
  shadow: Float64Array
  /** Accesses that touched a line never touched before. */
  cold: Float64Array
  /** Distinct sets of the level the point's lines fell in (null: the bitmap was too large to keep). */
  sets: Float64Array | null
  /** More distinct lines than remembered: some first touches counted as capacity. */
  forgetful: boolean
  /** The level's sets. */
  setCount: number
}

/** The classes of each point's misses, given the shadow's counts and the run's set-associative misses per point. */
export function classesOf(counts: ShadowCounts, runMisses: ArrayLike<number>): MissClassCount[] {
  const out: MissClassCount[] = []
  for (let p = 0; p < counts.shadow.length; p++) {
    const misses = runMisses[p] ?? 0
    const compulsory = Math.min(misses, counts.cold[p]!)
    const capacity = Math.max(0, Math.min(misses, counts.shadow[p]!) - compulsory)
    const conflict = Math.max(0, misses - compulsory - capacity)
    out.push({ compulsory, capacity, conflict, sets: counts.sets ? counts.sets[p]! : null })
  }
  return out
}

export class MissClassifier {
  private readonly lines: number
  private readonly sets: number
  private readonly lineScale: number
  private readonly lru = new Map<number, true>()
  private readonly seen = new Set<number>()
  private readonly shadowMisses: Float64Array
  private readonly coldMisses: Float64Array
  private readonly setBits: Uint8Array | null

  constructor(cache: ShadowCache, private readonly pointCount: number) {
    this.lines = Math.max(1, Math.floor(cache.size / cache.lineSize))
    this.sets = Math.max(1, Math.floor(this.lines / cache.assoc))
    this.lineScale = 1 / cache.lineSize
    this.shadowMisses = new Float64Array(pointCount)
    this.coldMisses = new Float64Array(pointCount)
    this.setBits = pointCount * this.sets <= MAX_SET_BITMAP ? new Uint8Array(pointCount * this.sets) : null
  }

  /** One access of `size` bytes at `address` by `point` (an access over two lines counts once, as in the run). */
  access(point: number, address: number, size: number): void {
    const first = Math.floor(address * this.lineScale)
    const last = Math.floor((address + Math.max(1, size) - 1) * this.lineScale)
    let miss = false
    let cold = false
    for (let line = first; line <= last && line <= first + 1; line++) {
      const r = this.touch(point, line)
      miss ||= r !== 0
      cold ||= r === 2
    }
    if (miss) this.shadowMisses[point]!++
    if (cold) this.coldMisses[point]!++
  }

  /** 0: hit, 1: miss, 2: first touch of the line. */
  private touch(point: number, line: number): 0 | 1 | 2 {
    if (this.setBits) this.setBits[point * this.sets + (line % this.sets)] = 1
    if (this.lru.delete(line)) {
      this.lru.set(line, true)
      return 0
    }
    this.lru.set(line, true)
    if (this.lru.size > this.lines) this.lru.delete(this.lru.keys().next().value!)
    if (this.seen.has(line)) return 1
    if (this.seen.size >= MAX_REMEMBERED_LINES) {
      this.forgetful = true
      return 1
    }
    this.seen.add(line)
    return 2
  }

  /** True when more distinct lines were touched than remembered: some first touches count as capacity. */
  forgetful = false

  /** What the shadow counted, per point. */
  counts(): ShadowCounts {
    let sets: Float64Array | null = null
    if (this.setBits) {
      sets = new Float64Array(this.pointCount)
      for (let p = 0; p < this.pointCount; p++) {
        let n = 0
        for (let s = p * this.sets, end = s + this.sets; s < end; s++) n += this.setBits[s]!
        sets[p] = n
      }
    }
    return { shadow: this.shadowMisses, cold: this.coldMisses, sets, forgetful: this.forgetful, setCount: this.sets }
  }

  /** The classes of each point's misses, given the run's set-associative misses per point. */
  classify(runMisses: ArrayLike<number>): MissClassCount[] {
    return classesOf(this.counts(), runMisses)
  }

  get setCount(): number {
    return this.sets
  }
}
