/**
 * A memory hierarchy (data TLB levels + cache levels) driven by batches of accesses, with
 * MHSim's per-reference metrics (METRIC section 8). Counts live in one flat Float64Array,
 * `stats[(point * levels + level) * STAT_FIELDS + field]`, caches first then TLB levels, so a
 * batch allocates nothing. Rules: see README.md.
 */
import type { CacheLevelConfig, HierarchyConfig, LevelTotals, TlbLevelConfig } from '../../shared/domain'
import { CacheLevel, HIT_TEMPORAL, MISS } from './cache-level'
import { EvictorMatrix, OWNER_PREFETCH, OWNER_WRITEBACK } from './evictor-matrix'

export const STAT_READS = 0
export const STAT_WRITES = 1
export const STAT_READ_MISSES = 2
export const STAT_WRITE_MISSES = 3
export const STAT_TEMPORAL_HITS = 4
export const STAT_SPATIAL_HITS = 5
/** Bytes used of the lines this point brought in, summed when each line left. */
export const STAT_USED_BYTES = 6
/** Lines this point brought in that left (evicted, invalidated, or resident at the end). */
export const STAT_LINE_ENDS = 7
/** Lines this point brought in that were evicted (a subset of line ends). */
export const STAT_EVICTIONS = 8
export const STAT_FIELDS = 9

export const KIND_READ = 0
export const KIND_WRITE = 1
export const KIND_MODIFY = 2

/** Per-level counters that belong to no reference. */
export const EXTRA_WRITEBACKS = 0
export const EXTRA_PREFETCHES = 1
export const EXTRA_USEFUL_PREFETCHES = 2
export const EXTRA_BACK_INVALIDATIONS = 3
export const EXTRA_EVICTIONS = 4
export const EXTRA_FIELDS = 5

/** A batch of accesses in execution order; `kinds` is indexed by point, not by event. */
export interface AccessBatch {
  count: number
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
}

export interface HierarchyOptions {
  /** Variable index per point (-1: none) for the miss timeline; absent: no timeline. */
  pointVariables?: Int32Array
  variableCount?: number
  /** Accesses per timeline interval. */
  timelineInterval?: number
}

/** One timeline row: misses of one variable at one level in one interval. */
export interface TimelineCell {
  level: number
  variable: number
  interval: number
  misses: number
}

const PF_NONE = 0
const PF_NEXT = 1
const PF_STRIDE = 2

export class Hierarchy {
  /** Cache levels then TLB levels; stats use the same level index. */
  readonly levels: CacheLevel[]
  readonly evictors: EvictorMatrix[]
  readonly nCaches: number
  readonly nTlb: number
  private readonly nLevels: number
  private readonly compatible: boolean
  private readonly maxSize: number
  private readonly writeThrough: Uint8Array
  private readonly writeAllocate: Uint8Array
  private readonly inclusive: Uint8Array
  private readonly prefetch: Uint8Array
  private readonly anyInclusive: boolean
  private readonly extras: Float64Array
  private pointStats: Float64Array
  private pointCount: number
  /** Kind of each point (KIND_*), grown with the point table. */
  private pointKinds: Uint8Array
  // Stride prefetcher state per point (shared by the levels that use it).
  private lastAddress: Float64Array
  private lastStride: Float64Array
  // Timeline.
  private readonly interval: number
  private pointVariables: Int32Array | null
  private readonly nVars: number
  private current: Float64Array
  private intervalIndex = 0
  private untilBoundary: number
  private readonly timeline: TimelineCell[] = []
  /** Point of the access being simulated (owner of what it brings in). */
  private point = 0
  accesses = 0

  constructor(config: HierarchyConfig, pointKinds: Uint8Array, options: HierarchyOptions = {}) {
    if (config.levels.length === 0) throw new Error('a hierarchy needs at least one cache level')
    const tlb: TlbLevelConfig[] = config.tlb ?? []
    if (tlb.length > 2) throw new Error('at most two TLB levels')
    const caches: CacheLevelConfig[] = config.levels
    this.compatible = config.cachegrindCompatible
    if (this.compatible) {
      for (const l of caches)
        if (l.policy !== 'lru' || l.writeAllocate === false || (l.prefetch ?? 'none') !== 'none')
          throw new Error(`${l.name}: Cachegrind-compatible mode simulates LRU, write-allocate caches without a prefetcher, as Cachegrind does`)
    }
    this.levels = [
      ...caches.map((l) => new CacheLevel(l, true)),
      ...tlb.map((t) => new CacheLevel({ name: t.name, size: t.entries * t.pageSize, assoc: t.assoc, lineSize: t.pageSize, policy: t.policy ?? 'lru' }, false))
    ]
    this.nCaches = caches.length
    this.nTlb = tlb.length
    this.nLevels = this.levels.length
    this.writeThrough = Uint8Array.from(caches.map((l) => (l.writePolicy === 'write-through' ? 1 : 0)))
    this.writeAllocate = Uint8Array.from(caches.map((l) => (l.writeAllocate === false ? 0 : 1)))
    this.inclusive = Uint8Array.from(caches.map((l) => (l.inclusive ? 1 : 0)))
    this.anyInclusive = this.inclusive.some((x) => x === 1)
    this.prefetch = Uint8Array.from(caches.map((l) => (l.prefetch === 'next-line' ? PF_NEXT : l.prefetch === 'stride' ? PF_STRIDE : PF_NONE)))
    this.extras = new Float64Array(this.nLevels * EXTRA_FIELDS)
    const minLine = Math.min(...caches.map((l) => l.lineSize))
    this.maxSize = this.compatible ? Math.min(minLine, 64) : minLine
    this.pointKinds = pointKinds
    this.pointCount = pointKinds.length
    this.pointStats = new Float64Array(this.pointCount * this.nLevels * STAT_FIELDS)
    this.evictors = this.levels.map(() => new EvictorMatrix(this.pointCount))
    this.lastAddress = new Float64Array(this.pointCount).fill(NaN)
    this.lastStride = new Float64Array(this.pointCount)
    this.pointVariables = options.pointVariables ?? null
    this.nVars = options.variableCount ?? 0
    this.interval = this.pointVariables && options.timelineInterval && options.timelineInterval > 0 ? options.timelineInterval : Infinity
    this.untilBoundary = this.interval
    this.current = new Float64Array(this.nLevels * Math.max(1, this.nVars))
  }

  /** The point table grew (streamed traces): keep the counts, extend the arrays. */
  setPointKinds(pointKinds: Uint8Array, pointVariables?: Int32Array): void {
    if (pointKinds.length < this.pointCount) throw new Error('the point table cannot shrink')
    this.pointKinds = pointKinds
    if (pointVariables) this.pointVariables = pointVariables
    if (pointKinds.length > this.pointCount) {
      const grown = new Float64Array(pointKinds.length * this.nLevels * STAT_FIELDS)
      grown.set(this.pointStats)
      this.pointStats = grown
      const last = new Float64Array(pointKinds.length).fill(NaN)
      last.set(this.lastAddress)
      this.lastAddress = last
      const stride = new Float64Array(pointKinds.length)
      stride.set(this.lastStride)
      this.lastStride = stride
      this.pointCount = pointKinds.length
      for (const e of this.evictors) e.grow(this.pointCount)
    }
  }

  run(batch: AccessBatch): void {
    const { points, addresses, sizes } = batch
    const kinds = this.pointKinds
    const maxSize = this.maxSize
    const compatible = this.compatible
    const nTlb = this.nTlb
    for (let i = 0; i < batch.count; i++) {
      const point = points[i]!
      if (point >= this.pointCount) throw new Error(`access point ${point} is outside the point table (${this.pointCount})`)
      const kind = kinds[point]!
      let size = sizes[i]!
      if (size > maxSize) size = maxSize
      const address = addresses[i]!
      this.point = point
      if (kind === KIND_READ) {
        if (nTlb !== 0) this.translate(address, size, false)
        this.ref(address, size, false)
      } else if (kind === KIND_WRITE) {
        if (nTlb !== 0) this.translate(address, size, true)
        this.ref(address, size, true)
      } else {
        // One translation: the write reuses the read's.
        if (nTlb !== 0) this.translate(address, size, false)
        this.ref(address, size, false)
        if (!compatible) this.ref(address, size, true)
      }
      if (--this.untilBoundary === 0) this.closeInterval()
    }
    this.accesses += batch.count
  }

  /** One reference through the cache levels: a miss at one level is an access at the next. */
  private ref(address: number, size: number, write: boolean): void {
    const stats = this.pointStats
    const nCaches = this.nCaches
    let at = this.point * this.nLevels * STAT_FIELDS
    for (let l = 0; l < nCaches; l++, at += STAT_FIELDS) {
      stats[at + (write ? STAT_WRITES : STAT_READS)]!++
      const result = this.accessLevel(l, address, size, write)
      if (result !== MISS) {
        stats[at + (result === HIT_TEMPORAL ? STAT_TEMPORAL_HITS : STAT_SPATIAL_HITS)]!++
        // A write-through level passes every write on.
        if (!(write && this.writeThrough[l] === 1)) return
      } else {
        stats[at + (write ? STAT_WRITE_MISSES : STAT_READ_MISSES)]!++
        if (this.pointVariables !== null) this.countTimelineMiss(l)
      }
    }
  }

  /** Data TLB levels: one lookup per page touched; a miss at one is a lookup at the next. */
  private translate(address: number, size: number, write: boolean): void {
    const stats = this.pointStats
    let at = (this.point * this.nLevels + this.nCaches) * STAT_FIELDS
    for (let t = 0; t < this.nTlb; t++, at += STAT_FIELDS) {
      const l = this.nCaches + t
      stats[at + (write ? STAT_WRITES : STAT_READS)]!++
      // No temporal/spatial split for translations: a page has no byte vector.
      if (this.accessLevel(l, address, size, false) !== MISS) return
      stats[at + (write ? STAT_WRITE_MISSES : STAT_READ_MISSES)]!++
      if (this.pointVariables !== null) this.countTimelineMiss(l)
    }
  }

  /**
   * A demand access of `size` bytes at level l: touches one or two lines; a miss if either
   * missed (Cachegrind's rule), a temporal hit only if both parts were.
   */
  private accessLevel(l: number, address: number, size: number, write: boolean): number {
    const level = this.levels[l]!
    const line = level.lineSize
    const block1 = Math.floor(address / line)
    const last = address + size - 1
    const block2 = Math.floor(last / line)
    const lo = address - block1 * line
    let result: number
    if (block1 === block2) result = this.block(l, level, block1, lo, last - block1 * line, write)
    else {
      if (block2 !== block1 + 1) throw new Error(`${level.name}: access of ${size} bytes at ${address} spans more than two lines`)
      const r1 = this.block(l, level, block1, lo, line - 1, write)
      const r2 = this.block(l, level, block2, 0, last - block2 * line, write)
      result = r1 > r2 ? r1 : r2 // MISS > HIT_SPATIAL > HIT_TEMPORAL
    }
    if (l < this.nCaches && this.prefetch[l] === PF_STRIDE) this.stridePrefetch(l, level, address)
    return result
  }

  private block(l: number, level: CacheLevel, block: number, lo: number, hi: number, write: boolean): number {
    const isCache = l < this.nCaches
    const allocate = !write || !isCache || this.writeAllocate[l] === 1
    // Write-through lines are never dirty: the write already went on.
    const dirty = write && isCache && this.writeThrough[l] === 0
    const result = level.lookup(block, lo, hi, dirty, this.point, allocate)
    if (result !== MISS) {
      const slot = level.slot
      if (level.prefetched[slot] === 1) {
        level.prefetched[slot] = 0
        this.extras[l * EXTRA_FIELDS + EXTRA_USEFUL_PREFETCHES]!++
      }
    } else if (level.victimBlock !== -1) this.evicted(l, level, this.point)
    if (result === MISS && isCache && this.prefetch[l] === PF_NEXT) this.prefetchBlock(l, block + 1)
    return result
  }

  /** Bookkeeping for the line `level` just gave up to make room for `by`'s line. */
  private evicted(l: number, level: CacheLevel, by: number): void {
    const victimBlock = level.victimBlock
    const owner = level.victimOwner
    const dirty = level.victimDirty
    this.extras[l * EXTRA_FIELDS + EXTRA_EVICTIONS]!++
    this.evictors[l]!.add(owner, by)
    if (owner >= 0) {
      const at = (owner * this.nLevels + l) * STAT_FIELDS
      this.pointStats[at + STAT_USED_BYTES]! += level.victimUsed
      this.pointStats[at + STAT_LINE_ENDS]!++
      this.pointStats[at + STAT_EVICTIONS]!++
    }
    if (l >= this.nCaches) return
    if (dirty === 1) {
      this.extras[l * EXTRA_FIELDS + EXTRA_WRITEBACKS]!++
      if (l + 1 < this.nCaches) this.background(l + 1, victimBlock * level.lineSize, level.lineSize, true, OWNER_WRITEBACK)
    }
    if (this.anyInclusive && this.inclusive[l] === 1 && l > 0) this.backInvalidate(l, victimBlock * level.lineSize, level.lineSize, by)
  }

  /** Inclusion: the bytes [address, address+bytes) left level l, so they leave every inner level. */
  private backInvalidate(l: number, address: number, bytes: number, by: number): void {
    for (let k = 0; k < l; k++) {
      const inner = this.levels[k]!
      const first = Math.floor(address / inner.lineSize)
      const end = Math.floor((address + bytes - 1) / inner.lineSize)
      for (let b = first; b <= end; b++) {
        if (!inner.invalidate(b)) continue
        this.extras[l * EXTRA_FIELDS + EXTRA_BACK_INVALIDATIONS]!++
        const owner = inner.victimOwner
        this.evictors[k]!.add(owner, by)
        if (owner >= 0) {
          const at = (owner * this.nLevels + k) * STAT_FIELDS
          this.pointStats[at + STAT_USED_BYTES]! += inner.victimUsed
          this.pointStats[at + STAT_LINE_ENDS]!++
          this.pointStats[at + STAT_EVICTIONS]!++
        }
        // A dirty inner copy is newer than ours: write it back past level l.
        if (inner.victimDirty === 1) {
          this.extras[k * EXTRA_FIELDS + EXTRA_WRITEBACKS]!++
          if (l + 1 < this.nCaches) this.background(l + 1, b * inner.lineSize, inner.lineSize, true, OWNER_WRITEBACK)
        }
      }
    }
  }

  /** Traffic no reference asked for (prefetches, write-backs): cache state only, no per-point counts. */
  private background(l: number, address: number, bytes: number, write: boolean, owner: number): void {
    for (; l < this.nCaches; l++) {
      const level = this.levels[l]!
      const first = Math.floor(address / level.lineSize)
      const end = Math.floor((address + bytes - 1) / level.lineSize)
      let missed = false
      for (let b = first; b <= end; b++) {
        if (level.contains(b)) {
          if (write && this.writeThrough[l] === 0) level.setDirty(b)
          continue
        }
        missed = true
        if (write && this.writeAllocate[l] === 0) continue
        level.fill(b, owner, write && this.writeThrough[l] === 0)
        if (level.victimBlock !== -1) this.evicted(l, level, owner)
      }
      if (!missed && !(write && this.writeThrough[l] === 1)) return
    }
  }

  private prefetchBlock(l: number, block: number): void {
    const level = this.levels[l]!
    if (level.contains(block)) return
    this.extras[l * EXTRA_FIELDS + EXTRA_PREFETCHES]!++
    level.fill(block, OWNER_PREFETCH, false)
    const slot = level.slot
    if (level.victimBlock !== -1) this.evicted(l, level, OWNER_PREFETCH)
    level.prefetched[slot] = 1
    if (l + 1 < this.nCaches) this.background(l + 1, block * level.lineSize, level.lineSize, false, OWNER_PREFETCH)
  }

  /** Per-point stride detector: the same non-zero stride twice in a row prefetches one stride ahead. */
  private stridePrefetch(l: number, level: CacheLevel, address: number): void {
    const p = this.point
    const last = this.lastAddress[p]!
    this.lastAddress[p] = address
    if (last !== last) return // NaN: first access of this point
    const stride = address - last
    const confirmed = stride !== 0 && stride === this.lastStride[p]
    this.lastStride[p] = stride
    if (!confirmed) return
    const target = Math.floor((address + stride) / level.lineSize)
    if (target !== Math.floor(address / level.lineSize)) this.prefetchBlock(l, target)
  }

  private countTimelineMiss(l: number): void {
    const v = this.pointVariables![this.point]!
    if (v >= 0) this.current[l * this.nVars + v]!++
  }

  private closeInterval(): void {
    const cur = this.current
    for (let i = 0; i < cur.length; i++) {
      if (cur[i] !== 0) {
        this.timeline.push({ level: Math.floor(i / this.nVars), variable: i % this.nVars, interval: this.intervalIndex, misses: cur[i]! })
        cur[i] = 0
      }
    }
    this.intervalIndex++
    this.untilBoundary = this.interval
  }

  /**
   * Ends the run: lines still resident count as line ends for spatial reuse (their bytes were
   * used, they just were not evicted yet), and the last partial interval closes. Call once.
   */
  finish(): void {
    for (let l = 0; l < this.nLevels; l++) {
      const level = this.levels[l]!
      if (!level.trackBytes) continue
      level.forEachResident((owner, used) => {
        if (owner < 0) return
        const at = (owner * this.nLevels + l) * STAT_FIELDS
        this.pointStats[at + STAT_USED_BYTES]! += used
        this.pointStats[at + STAT_LINE_ENDS]!++
      })
    }
    if (this.pointVariables !== null && this.untilBoundary !== this.interval) this.closeInterval()
  }

  /** Per point x level x field counts (a copy). */
  pointResults(): Float64Array {
    return this.pointStats.slice()
  }

  /** Per level x EXTRA_* counters (a copy). */
  levelExtras(): Float64Array {
    return this.extras.slice()
  }

  timelineCells(): TimelineCell[] {
    return this.timeline
  }

  levelTotals(): LevelTotals[] {
    return this.levels.map((level, l) => {
      const t: LevelTotals = { name: level.name, reads: 0, writes: 0, readMisses: 0, writeMisses: 0 }
      for (let p = 0; p < this.pointCount; p++) {
        const at = (p * this.nLevels + l) * STAT_FIELDS
        t.reads += this.pointStats[at + STAT_READS]!
        t.writes += this.pointStats[at + STAT_WRITES]!
        t.readMisses += this.pointStats[at + STAT_READ_MISSES]!
        t.writeMisses += this.pointStats[at + STAT_WRITE_MISSES]!
      }
      return t
    })
  }
}
