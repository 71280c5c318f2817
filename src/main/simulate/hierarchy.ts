/**
 * A memory hierarchy (data TLB levels + cache levels) driven by batches of accesses, with
 * MHSim's per-reference metrics (METRIC section 8). Counts live in one flat Float64Array,
 * `stats[(point * levels + level) * STAT_FIELDS + field]`, caches first then TLB levels, so a
 * batch allocates nothing. Rules: see README.md.
 */
import type { CacheLevelConfig, HierarchyConfig, LevelTotals, TlbLevelConfig } from '../../shared/domain'
import { CacheLevel, checkGeometry, EMPTY, HIT_SPATIAL, HIT_TEMPORAL, LRU, MISS, type LevelGeometry } from './cache-level'
import { EvictorMatrix, OWNER_PREFETCH, OWNER_WRITEBACK, type EvictorCount } from './evictor-matrix'
import { KIND_MODIFY, KIND_READ, KIND_WRITE } from '../../shared/access-kinds'

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

export { KIND_MODIFY, KIND_READ, KIND_WRITE }

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
  /**
   * false: always take the general path, even where the fused LRU loop applies (the tests
   * compare the two; they must give identical results).
   */
  fastPath?: boolean
  /**
   * Per point, the point whose stride-prefetcher detector it uses (default: its own): a
   * reference split into one point per data structure it touched (touch-hierarchy.ts) keeps
   * its one detector.
   */
  pointParents?: Uint32Array
}

/** One timeline row: misses of one variable at one level in one interval. */
export interface TimelineCell {
  level: number
  variable: number
  interval: number
  misses: number
}

export const PF_NONE = 0
export const PF_NEXT = 1
export const PF_STRIDE = 2

/** A cache level's prefetcher as the simulators number it. */
export function prefetchCode(l: CacheLevelConfig): number {
  return l.prefetch === 'next-line' ? PF_NEXT : l.prefetch === 'stride' ? PF_STRIDE : PF_NONE
}

/** A TLB level as the simulator sees it: a level with pages as lines. */
export function tlbGeometry(t: TlbLevelConfig): LevelGeometry {
  return { name: t.name, size: t.entries * t.pageSize, assoc: t.assoc, lineSize: t.pageSize, policy: t.policy ?? 'lru' }
}

/**
 * The hierarchy's rules that no single level can check, then every level's geometry: one
 * Error naming the first problem. Both simulator implementations start here.
 */
export function checkHierarchy(config: HierarchyConfig): { caches: CacheLevelConfig[]; tlb: LevelGeometry[] } {
  if (config.levels.length === 0) throw new Error('a hierarchy needs at least one cache level')
  const tlbConfigs: TlbLevelConfig[] = config.tlb ?? []
  if (tlbConfigs.length > 2) throw new Error('at most two TLB levels')
  const caches = config.levels
  if (config.cachegrindCompatible) {
    for (const l of caches)
      if (l.policy !== 'lru' || l.writeAllocate === false || (l.prefetch ?? 'none') !== 'none')
        throw new Error(`${l.name}: Cachegrind-compatible mode simulates LRU, write-allocate caches without a prefetcher, as Cachegrind does`)
  }
  const tlb = tlbConfigs.map(tlbGeometry)
  for (const l of [...caches, ...tlb]) checkGeometry(l)
  return { caches, tlb }
}

/** Reads, writes and misses per level, summed over the points of a stats array. */
export function sumLevelTotals(names: string[], stats: Float64Array, pointCount: number): LevelTotals[] {
  const nLevels = names.length
  return names.map((name, l) => {
    const t: LevelTotals = { name, reads: 0, writes: 0, readMisses: 0, writeMisses: 0 }
    for (let p = 0; p < pointCount; p++) {
      const at = (p * nLevels + l) * STAT_FIELDS
      t.reads += stats[at + STAT_READS]!
      t.writes += stats[at + STAT_WRITES]!
      t.readMisses += stats[at + STAT_READ_MISSES]!
      t.writeMisses += stats[at + STAT_WRITE_MISSES]!
    }
    return t
  })
}

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
  /** Every cache level LRU, write-back, write-allocate, not inclusive, no prefetcher; TLBs LRU. */
  readonly fused: boolean
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
  private pointParents: Uint32Array | null
  private readonly nVars: number
  private current: Float64Array
  private intervalIndex = 0
  private untilBoundary: number
  private readonly timeline: TimelineCell[] = []
  /** Point of the access being simulated (owner of what it brings in). */
  private point = 0
  accesses = 0

  constructor(config: HierarchyConfig, pointKinds: Uint8Array, options: HierarchyOptions = {}) {
    const { caches, tlb } = checkHierarchy(config)
    this.compatible = config.cachegrindCompatible
    this.levels = [...caches.map((l) => new CacheLevel(l, true)), ...tlb.map((t) => new CacheLevel(t, false))]
    this.nCaches = caches.length
    this.nTlb = tlb.length
    this.nLevels = this.levels.length
    this.writeThrough = Uint8Array.from(caches.map((l) => (l.writePolicy === 'write-through' ? 1 : 0)))
    this.writeAllocate = Uint8Array.from(caches.map((l) => (l.writeAllocate === false ? 0 : 1)))
    this.inclusive = Uint8Array.from(caches.map((l) => (l.inclusive ? 1 : 0)))
    this.anyInclusive = this.inclusive.some((x) => x === 1)
    this.prefetch = Uint8Array.from(caches.map(prefetchCode))
    this.extras = new Float64Array(this.nLevels * EXTRA_FIELDS)
    this.fused =
      options.fastPath !== false &&
      this.levels.every((l) => l.policy === LRU) &&
      caches.every((_, l) => this.writeThrough[l] === 0 && this.writeAllocate[l] === 1 && this.inclusive[l] === 0 && this.prefetch[l] === PF_NONE)
    const minLine = Math.min(...caches.map((l) => l.lineSize))
    this.maxSize = this.compatible ? Math.min(minLine, 64) : minLine
    this.pointKinds = pointKinds
    this.pointCount = pointKinds.length
    this.pointStats = new Float64Array(this.pointCount * this.nLevels * STAT_FIELDS)
    this.evictors = this.levels.map(() => new EvictorMatrix(this.pointCount))
    this.lastAddress = new Float64Array(this.pointCount).fill(NaN)
    this.lastStride = new Float64Array(this.pointCount)
    this.pointVariables = options.pointVariables ?? null
    this.pointParents = options.pointParents ?? null
    this.nVars = options.variableCount ?? 0
    this.interval = this.pointVariables && options.timelineInterval && options.timelineInterval > 0 ? options.timelineInterval : Infinity
    this.untilBoundary = this.interval
    this.current = new Float64Array(this.nLevels * Math.max(1, this.nVars))
  }

  /** The point table grew (streamed traces): keep the counts, extend the arrays. */
  setPointKinds(pointKinds: Uint8Array, pointVariables?: Int32Array, pointParents?: Uint32Array): void {
    if (pointKinds.length < this.pointCount) throw new Error('the point table cannot shrink')
    this.pointKinds = pointKinds
    if (pointVariables) this.pointVariables = pointVariables
    this.pointParents = pointParents ?? null
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
    if (this.fused) this.runFused(batch)
    else this.runGeneral(batch)
    this.accesses += batch.count
  }

  /**
   * The fused loop for the common configuration (see `fused`): the general path's rules,
   * specialized and written out in one monomorphic loop, as `cg_sim.c` does. Each set's tags
   * are most recent first: a hit at position 0 costs one compare; a hit further in or a miss
   * shifts the positions before it down one (tags and slots: the line's state stays put);
   * a miss takes the last position (empty or least recent). Per access: no object, no
   * allocation, no call unless a line leaves (`fusedEvict`).
   */
  private runFused(batch: AccessBatch): void {
    const { points, addresses, sizes } = batch
    const kinds = this.pointKinds
    const maxSize = this.maxSize
    const compatible = this.compatible
    const count = batch.count
    const pointCount = this.pointCount
    const timed = this.interval !== Infinity
    const timeline = this.pointVariables !== null
    const levels = this.levels
    const nCaches = this.nCaches
    const nLevels = this.nLevels
    const stats = this.pointStats
    for (let i = 0; i < count; i++) {
      const point = points[i]!
      if (point >= pointCount) throw new Error(`access point ${point} is outside the point table (${pointCount})`)
      const kind = kinds[point]!
      // A zero size (never traced) counts as one byte, so every access touches a line.
      let size = sizes[i]! || 1
      if (size > maxSize) size = maxSize
      const address = addresses[i]!
      const last = address + size - 1
      const row = point * nLevels * STAT_FIELDS
      // Data TLB levels: one translation per access (a modify's write reuses its read's), one
      // lookup per page touched, a miss at one level is a lookup at the next.
      const tlbWrite = kind === KIND_WRITE
      for (let l = nCaches, at = row + nCaches * STAT_FIELDS; l < nLevels; l++, at += STAT_FIELDS) {
        stats[at + (tlbWrite ? STAT_WRITES : STAT_READS)]!++
        const level = levels[l]!
        const first = Math.floor(address * level.lineScale)
        const end = Math.floor(last * level.lineScale)
        if (end - first > 1) throw new Error(`${level.name}: access of ${size} bytes at ${address} spans more than two lines`)
        const tags = level.tags
        const slots = level.slots
        const assoc = level.assoc
        let missed = false
        for (let block = first; block <= end; block++) {
          const base = ((block >>> 0) & level.setMask) * assoc
          if (tags[base] === block) continue
          let p = base + 1
          const stop = base + assoc
          while (p < stop && tags[p] !== block) p++
          const miss = p === stop
          if (miss) {
            p--
            missed = true
            if (tags[p] !== EMPTY) this.fusedEvict(l, level, p, point)
          }
          const slot = slots[p]!
          for (; p > base; p--) {
            tags[p] = tags[p - 1]!
            slots[p] = slots[p - 1]!
          }
          tags[base] = block
          slots[base] = slot
          if (miss) level.owner[slot] = point
        }
        if (!missed) break
        stats[at + (tlbWrite ? STAT_WRITE_MISSES : STAT_READ_MISSES)]!++
        if (timeline) this.countTimelineMiss(l, point)
      }
      // Cache levels (write-back, write-allocate: a hit ends the walk). A modify is a read
      // then a write; in Cachegrind-compatible mode one read.
      let write = kind === KIND_WRITE
      for (let rep = kind === KIND_MODIFY && !compatible ? 2 : 1; rep > 0; rep--, write = true) {
        for (let l = 0, at = row; l < nCaches; l++, at += STAT_FIELDS) {
          stats[at + (write ? STAT_WRITES : STAT_READS)]!++
          const level = levels[l]!
          const line = level.lineSize
          const first = Math.floor(address * level.lineScale)
          const end = Math.floor(last * level.lineScale)
          if (end - first > 1) throw new Error(`${level.name}: access of ${size} bytes at ${address} spans more than two lines`)
          const tags = level.tags
          const slots = level.slots
          const assoc = level.assoc
          // MISS > HIT_SPATIAL > HIT_TEMPORAL: a miss if either line missed (Cachegrind's
          // rule), temporal only if both parts were.
          let result = HIT_TEMPORAL
          for (let block = first; block <= end; block++) {
            const lo = block === first ? address - first * line : 0
            const hi = block === end ? last - end * line : line - 1
            const base = ((block >>> 0) & level.setMask) * assoc
            let slot: number
            let missed = false
            if (tags[base] === block) slot = slots[base]!
            else {
              let p = base + 1
              const stop = base + assoc
              while (p < stop && tags[p] !== block) p++
              if (p === stop) {
                p--
                missed = true
                if (tags[p] !== EMPTY) this.fusedEvict(l, level, p, point)
              }
              slot = slots[p]!
              for (; p > base; p--) {
                tags[p] = tags[p - 1]!
                slots[p] = slots[p - 1]!
              }
              tags[base] = block
              slots[base] = slot
            }
            if (missed) {
              level.owner[slot] = point
              level.dirty[slot] = write ? 1 : 0
              const used = level.used
              const words = level.words
              for (let k = slot * words, e = k + words; k < e; k++) used[k] = 0
              level.mark(slot, lo, hi)
              result = MISS
            } else {
              if (write) level.dirty[slot] = 1
              if (!level.mark(slot, lo, hi) && result === HIT_TEMPORAL) result = HIT_SPATIAL
            }
          }
          if (result !== MISS) {
            stats[at + (result === HIT_TEMPORAL ? STAT_TEMPORAL_HITS : STAT_SPATIAL_HITS)]!++
            break
          }
          stats[at + (write ? STAT_WRITE_MISSES : STAT_READ_MISSES)]!++
          if (timeline) this.countTimelineMiss(l, point)
        }
      }
      if (timed && --this.untilBoundary === 0) this.closeInterval()
    }
  }

  /**
   * `evicted` for a fused level: the line at position `at` (still in place) leaves to make
   * room for `by`'s line; a dirty line is written to the next level first.
   */
  private fusedEvict(l: number, level: CacheLevel, at: number, by: number): void {
    const slot = level.slots[at]!
    this.extras[l * EXTRA_FIELDS + EXTRA_EVICTIONS]!++
    const owner = level.owner[slot]!
    this.evictors[l]!.add(owner, by)
    if (owner >= 0) {
      const row = (owner * this.nLevels + l) * STAT_FIELDS
      const stats = this.pointStats
      if (level.words !== 0) stats[row + STAT_USED_BYTES]! += level.usedBytes(slot)
      stats[row + STAT_LINE_ENDS]!++
      stats[row + STAT_EVICTIONS]!++
    }
    if (l < this.nCaches && level.dirty[slot] === 1) {
      this.extras[l * EXTRA_FIELDS + EXTRA_WRITEBACKS]!++
      if (l + 1 < this.nCaches) this.fusedWriteBack(l + 1, level.tags[at]! * level.lineSize, level.lineSize)
    }
  }

  /**
   * `background` for a write-back into fused levels from k on: a resident line turns dirty
   * (no recency change); a missing one is filled dirty, owned by OWNER_WRITEBACK, and the
   * write goes on to the next level.
   */
  private fusedWriteBack(k: number, address: number, bytes: number): void {
    for (; k < this.nCaches; k++) {
      const level = this.levels[k]!
      const tags = level.tags
      const slots = level.slots
      const assoc = level.assoc
      const first = Math.floor(address * level.lineScale)
      const end = Math.floor((address + bytes - 1) * level.lineScale)
      let missed = false
      for (let block = first; block <= end; block++) {
        const base = ((block >>> 0) & level.setMask) * assoc
        const stop = base + assoc
        let p = base
        while (p < stop && tags[p] !== block) p++
        if (p !== stop) {
          level.dirty[slots[p]!] = 1
          continue
        }
        missed = true
        p--
        if (tags[p] !== EMPTY) this.fusedEvict(k, level, p, OWNER_WRITEBACK)
        const slot = slots[p]!
        for (; p > base; p--) {
          tags[p] = tags[p - 1]!
          slots[p] = slots[p - 1]!
        }
        tags[base] = block
        slots[base] = slot
        level.owner[slot] = OWNER_WRITEBACK
        level.dirty[slot] = 1
        const used = level.used
        const words = level.words
        for (let i = slot * words, e = i + words; i < e; i++) used[i] = 0
      }
      if (!missed) return
    }
  }

  private runGeneral(batch: AccessBatch): void {
    const { points, addresses, sizes } = batch
    const kinds = this.pointKinds
    const maxSize = this.maxSize
    const compatible = this.compatible
    const nTlb = this.nTlb
    for (let i = 0; i < batch.count; i++) {
      const point = points[i]!
      if (point >= this.pointCount) throw new Error(`access point ${point} is outside the point table (${this.pointCount})`)
      const kind = kinds[point]!
      let size = sizes[i]! || 1
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
        if (this.pointVariables !== null) this.countTimelineMiss(l, this.point)
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
      if (this.pointVariables !== null) this.countTimelineMiss(l, this.point)
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
    const p = this.pointParents ? this.pointParents[this.point]! : this.point
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

  private countTimelineMiss(l: number, point: number): void {
    const v = this.pointVariables![point]!
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
    return sumLevelTotals(this.levels.map((l) => l.name), this.pointStats, this.pointCount)
  }

  /** Evictee x evictor counts per level. */
  evictorEntries(): EvictorCount[][] {
    return this.evictors.map((m) => m.entries())
  }
}
