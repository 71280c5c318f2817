/**
 * One set-associative cache level with LRU replacement. Tags live in one flat
 * Float64Array, `assoc` entries per set, most recently used first (Cachegrind's layout):
 * a hit on way 0 returns at once; other hits and misses shift the set down by one.
 */
import type { CacheLevelConfig } from '../../shared/domain'

const EMPTY = -1

export class CacheLevel {
  readonly name: string
  readonly lineSize: number
  readonly assoc: number
  readonly sets: number
  private readonly setMask: number
  private readonly tags: Float64Array

  constructor(config: CacheLevelConfig) {
    const sets = config.size / (config.assoc * config.lineSize)
    if (!Number.isInteger(sets) || sets < 1 || (sets & (sets - 1)) !== 0)
      throw new Error(`${config.name}: size / (assoc x line) must be a power of two, got ${sets}`)
    if ((config.lineSize & (config.lineSize - 1)) !== 0) throw new Error(`${config.name}: line size must be a power of two`)
    this.name = config.name
    this.lineSize = config.lineSize
    this.assoc = config.assoc
    this.sets = sets
    this.setMask = sets - 1
    this.tags = new Float64Array(sets * config.assoc).fill(EMPTY)
  }

  /** Accesses `size` bytes at `address`; returns true on a miss (either line, if it straddles). */
  access(address: number, size: number): boolean {
    const line = this.lineSize
    const block1 = Math.floor(address / line)
    const block2 = Math.floor((address + size - 1) / line)
    if (block1 === block2) return this.touch(block1)
    if (block2 !== block1 + 1) throw new Error(`${this.name}: access of ${size} bytes at ${address} spans more than two lines`)
    // Always touch both: the cache state changes as a side effect.
    const miss1 = this.touch(block1)
    const miss2 = this.touch(block2)
    return miss1 || miss2
  }

  /** Looks up one block; on a miss inserts it as most recent. Returns true on a miss. */
  private touch(block: number): boolean {
    const tags = this.tags
    const assoc = this.assoc
    const base = ((block >>> 0) & this.setMask) * assoc
    if (tags[base] === block) return false
    for (let i = 1; i < assoc; i++) {
      if (tags[base + i] === block) {
        for (let j = i; j > 0; j--) tags[base + j] = tags[base + j - 1]!
        tags[base] = block
        return false
      }
    }
    for (let j = assoc - 1; j > 0; j--) tags[base + j] = tags[base + j - 1]!
    tags[base] = block
    return true
  }
}
