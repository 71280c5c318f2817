/**
 * A hierarchy of cache levels driven by batches of accesses. Counts, per access point and
 * per level, reads, writes, read misses and write misses in one flat Float64Array
 * (`stats[(point * levels + level) * 4 + field]`), so a batch allocates nothing.
 */
import type { HierarchyConfig, LevelTotals } from '../../shared/domain'
import { CacheLevel } from './cache-level'

export const STAT_READS = 0
export const STAT_WRITES = 1
export const STAT_READ_MISSES = 2
export const STAT_WRITE_MISSES = 3
export const STAT_FIELDS = 4

export const KIND_READ = 0
export const KIND_WRITE = 1
export const KIND_MODIFY = 2

/** A batch of accesses in execution order; `kinds` is indexed by point, not by event. */
export interface AccessBatch {
  count: number
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
}

export class Hierarchy {
  readonly levels: CacheLevel[]
  private readonly nLevels: number
  private readonly compatible: boolean
  private readonly maxSize: number
  private pointStats: Float64Array
  private pointCount: number
  /** Kind of each point (KIND_*), grown with the point table. */
  private pointKinds: Uint8Array
  accesses = 0

  constructor(config: HierarchyConfig, pointKinds: Uint8Array) {
    if (config.levels.length === 0) throw new Error('a hierarchy needs at least one cache level')
    this.levels = config.levels.map((l) => new CacheLevel(l))
    this.nLevels = this.levels.length
    this.compatible = config.cachegrindCompatible
    const minLine = Math.min(...this.levels.map((l) => l.lineSize))
    this.maxSize = this.compatible ? Math.min(minLine, 64) : minLine
    this.pointKinds = pointKinds
    this.pointCount = pointKinds.length
    this.pointStats = new Float64Array(this.pointCount * this.nLevels * STAT_FIELDS)
  }

  /** The point table grew (streamed traces): keep the counts, extend the arrays. */
  setPointKinds(pointKinds: Uint8Array): void {
    if (pointKinds.length < this.pointCount) throw new Error('the point table cannot shrink')
    this.pointKinds = pointKinds
    if (pointKinds.length > this.pointCount) {
      const grown = new Float64Array(pointKinds.length * this.nLevels * STAT_FIELDS)
      grown.set(this.pointStats)
      this.pointStats = grown
      this.pointCount = pointKinds.length
    }
  }

  run(batch: AccessBatch): void {
    const { points, addresses, sizes } = batch
    const kinds = this.pointKinds
    const maxSize = this.maxSize
    const compatible = this.compatible
    for (let i = 0; i < batch.count; i++) {
      const point = points[i]!
      if (point >= this.pointCount) throw new Error(`access point ${point} is outside the point table (${this.pointCount})`)
      const kind = kinds[point]!
      let size = sizes[i]!
      if (size > maxSize) size = maxSize
      const address = addresses[i]!
      if (kind === KIND_READ) this.ref(point, address, size, false)
      else if (kind === KIND_WRITE) this.ref(point, address, size, true)
      else {
        this.ref(point, address, size, false)
        if (!compatible) this.ref(point, address, size, true)
      }
    }
    this.accesses += batch.count
  }

  /** One reference through the levels: a miss at one level is an access at the next. */
  private ref(point: number, address: number, size: number, write: boolean): void {
    const stats = this.pointStats
    let at = point * this.nLevels * STAT_FIELDS
    for (let l = 0; l < this.nLevels; l++, at += STAT_FIELDS) {
      stats[at + (write ? STAT_WRITES : STAT_READS)]!++
      if (!this.levels[l]!.access(address, size)) return
      stats[at + (write ? STAT_WRITE_MISSES : STAT_READ_MISSES)]!++
    }
  }

  /** Per point x level x field counts (a copy). */
  pointResults(): Float64Array {
    return this.pointStats.slice()
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
