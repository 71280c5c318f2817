/**
 * One set-associative level (a cache, or a TLB with pages as lines), after Cachegrind's
 * `cg_sim.c`: configuration normalized once (reciprocal of the line size, set mask), tags in
 * one flat Float64Array indexed by position = set * assoc + i.
 *
 * - LRU keeps each set's tags most recent first, as `cg_sim.c` does: a hit at position 0
 *   changes nothing, a hit at i moves the tag to the front, a miss evicts the last position
 *   (empty ways sit at the end, so they fill first). No stamps, no victim search.
 * - FIFO, tree-PLRU and random keep a tag in its way (position = way): recency is a fill
 *   stamp per way (FIFO), tree bits per set (PLRU) or xorshift32 from the seed (random).
 *
 * Per-line state (owner, dirty, prefetched, byte bit vector) lives in flat typed arrays
 * indexed by *slot*, and `slots[position]` says which slot a tag's state is in, so moving a
 * tag to the front moves two numbers, not the line's state. (Identity unless LRU.)
 *
 * The general entry points (`lookup`, `fill`, `invalidate`) report what left through scalar
 * fields (victim*): an access allocates nothing. The hierarchy's fused LRU loop reads the
 * typed arrays directly (`tags`, `slots`, `owner`, `dirty`, `used`).
 */
import type { CacheLevelConfig, ReplacementPolicy } from '../../shared/domain'

export const EMPTY = -1
export const HIT_TEMPORAL = 0
export const HIT_SPATIAL = 1
export const MISS = 2

/** Replacement policies as the simulators number them (the native core uses the same codes). */
export const POLICY_CODE: Record<ReplacementPolicy, number> = { lru: 0, fifo: 1, plru: 2, random: 3 }
export const LRU = 0
const FIFO = 1
const PLRU = 2

export interface LevelGeometry {
  name: string
  size: number
  assoc: number
  lineSize: number
  policy: ReplacementPolicy
  seed?: number
}

/** 32-bit population count (used bytes of a line at eviction). */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24
}

/**
 * The number of sets and the policy code of a level, or an Error naming what is wrong with
 * its geometry (both simulator implementations check levels through this one function).
 */
export function checkGeometry(config: LevelGeometry | CacheLevelConfig): { sets: number; policy: number } {
  const sets = config.size / (config.assoc * config.lineSize)
  if (!Number.isInteger(sets) || sets < 1 || (sets & (sets - 1)) !== 0)
    throw new Error(`${config.name}: size / (assoc x line) must be a power of two, got ${sets}`)
  if (!(config.lineSize > 0) || (config.lineSize & (config.lineSize - 1)) !== 0) throw new Error(`${config.name}: line size must be a power of two`)
  const policy = POLICY_CODE[config.policy ?? 'lru']
  if (policy === undefined) throw new Error(`${config.name}: unknown replacement policy "${String(config.policy)}"`)
  if (policy === PLRU && (config.assoc & (config.assoc - 1)) !== 0) throw new Error(`${config.name}: tree-PLRU needs a power-of-two associativity`)
  return { sets, policy }
}

export class CacheLevel {
  readonly name: string
  readonly lineSize: number
  /** 1 / lineSize: a power of two, so `address * lineScale` is exact and floor() gives the block. */
  readonly lineScale: number
  readonly assoc: number
  readonly sets: number
  readonly setMask: number
  readonly policy: number
  /** Byte bit vectors kept (caches); TLBs only need presence. */
  readonly trackBytes: boolean
  /** Block number per position (EMPTY: none). LRU: most recent first within a set. */
  readonly tags: Float64Array
  /** Slot of the per-line state for the tag at each position. */
  readonly slots: Int32Array
  /** FIFO fill stamps, per way. */
  private readonly stamps: Float64Array
  /** PLRU tree bits, `assoc` per set (node 1..assoc-1; 0 unused): 0 = victim on the left. */
  private readonly tree: Uint8Array
  /** Point that brought the line in (>= 0), or a negative owner code (prefetch, write-back). */
  readonly owner: Int32Array
  readonly dirty: Uint8Array
  /** 1 while a prefetched line has not been used by a demand access. */
  readonly prefetched: Uint8Array
  /** 32-bit words per line in `used` (0: no byte bit vectors). */
  readonly words: number
  /** Byte bit vector per slot: `words` words, bit i of word k = byte 32k + i used. */
  readonly used: Int32Array
  private clock = 0
  private rng: number

  // What the last lookup/fill/invalidate evicted (victimBlock = -1: nothing).
  victimBlock = -1
  victimOwner = -1
  victimUsed = 0
  victimDirty = 0
  victimPrefetched = 0
  /** Slot the last lookup hit or filled. */
  slot = 0

  constructor(config: LevelGeometry | CacheLevelConfig, trackBytes = true) {
    const { sets, policy } = checkGeometry(config)
    this.name = config.name
    this.lineSize = config.lineSize
    this.lineScale = 1 / config.lineSize
    this.assoc = config.assoc
    this.sets = sets
    this.setMask = sets - 1
    this.policy = policy
    this.trackBytes = trackBytes
    const slots = sets * config.assoc
    this.tags = new Float64Array(slots).fill(EMPTY)
    this.slots = new Int32Array(slots)
    for (let i = 0; i < slots; i++) this.slots[i] = i
    this.stamps = new Float64Array(policy === FIFO ? slots : 0)
    this.tree = new Uint8Array(policy === PLRU ? slots : 0)
    this.owner = new Int32Array(slots).fill(-1)
    this.dirty = new Uint8Array(slots)
    this.prefetched = new Uint8Array(slots)
    this.words = trackBytes ? Math.ceil(config.lineSize / 32) : 0
    this.used = new Int32Array(slots * this.words)
    // xorshift32 must not start at 0.
    this.rng = (config.seed ?? 1) >>> 0 || 1
  }

  /** Accesses `size` bytes at `address` (read, LRU-style use); true on a miss of either line. */
  access(address: number, size: number): boolean {
    const line = this.lineSize
    const block1 = Math.floor(address * this.lineScale)
    const block2 = Math.floor((address + size - 1) * this.lineScale)
    const lo = address - block1 * line
    if (block1 === block2) return this.lookup(block1, lo, lo + size - 1, false, 0, true) === MISS
    if (block2 !== block1 + 1) throw new Error(`${this.name}: access of ${size} bytes at ${address} spans more than two lines`)
    // Always touch both: the cache state changes as a side effect.
    const miss1 = this.lookup(block1, lo, line - 1, false, 0, true) === MISS
    const miss2 = this.lookup(block2, 0, address + size - 1 - block2 * line, false, 0, true) === MISS
    return miss1 || miss2
  }

  /**
   * Looks up one block, marking bytes lo..hi (offsets in the line) used. On a miss with
   * `allocate`, fills it for `owner`; `victimBlock` then says what left. Returns HIT_TEMPORAL
   * (every byte asked for was used before), HIT_SPATIAL or MISS.
   */
  lookup(block: number, lo: number, hi: number, write: boolean, owner: number, allocate: boolean): number {
    const tags = this.tags
    const assoc = this.assoc
    const base = ((block >>> 0) & this.setMask) * assoc
    this.victimBlock = -1
    for (let w = 0; w < assoc; w++) {
      if (tags[base + w] === block) {
        const slot = this.slots[base + w]!
        this.slot = slot
        this.use(base, w)
        if (write) this.dirty[slot] = 1
        return this.words === 0 || this.mark(slot, lo, hi) ? HIT_TEMPORAL : HIT_SPATIAL
      }
    }
    if (!allocate) return MISS
    this.fillAt(base, block, owner, write)
    if (this.words !== 0) this.mark(this.slot, lo, hi)
    return MISS
  }

  /** Position of a resident block, or -1 (no recency change). */
  find(block: number): number {
    const base = ((block >>> 0) & this.setMask) * this.assoc
    for (let w = 0; w < this.assoc; w++) if (this.tags[base + w] === block) return base + w
    return -1
  }

  contains(block: number): boolean {
    return this.find(block) !== -1
  }

  /** Marks a resident block dirty (a write-back from an inner level landed here). */
  setDirty(block: number): void {
    const at = this.find(block)
    if (at !== -1) this.dirty[this.slots[at]!] = 1
  }

  /** Brings a block in without a demand access (prefetch, write-back from inside); no bytes used. */
  fill(block: number, owner: number, write: boolean): void {
    const base = ((block >>> 0) & this.setMask) * this.assoc
    this.victimBlock = -1
    this.fillAt(base, block, owner, write)
  }

  /** Drops a block if present (inclusion); reports it through the victim fields. */
  invalidate(block: number): boolean {
    const base = ((block >>> 0) & this.setMask) * this.assoc
    this.victimBlock = -1
    const tags = this.tags
    for (let w = 0; w < this.assoc; w++) {
      if (tags[base + w] !== block) continue
      const slots = this.slots
      const slot = slots[base + w]!
      this.leave(slot, block)
      if (this.policy === LRU) {
        // Keep empties at the end of the recency list: the rest keep their order.
        const tail = base + this.assoc - 1
        for (let i = base + w; i < tail; i++) {
          tags[i] = tags[i + 1]!
          slots[i] = slots[i + 1]!
        }
        tags[tail] = EMPTY
        slots[tail] = slot
      } else {
        tags[base + w] = EMPTY
        if (this.policy === FIFO) this.stamps[base + w] = 0
      }
      return true
    }
    return false
  }

  /** Calls `f(owner, usedBytes)` for every resident line (end-of-run accounting). */
  forEachResident(f: (owner: number, usedBytes: number) => void): void {
    for (let s = 0; s < this.tags.length; s++) if (this.tags[s] !== EMPTY) f(this.owner[this.slots[s]!]!, this.usedBytes(this.slots[s]!))
  }

  usedBytes(slot: number): number {
    let n = 0
    for (let i = slot * this.words, end = i + this.words; i < end; i++) n += popcount(this.used[i]!)
    return n
  }

  private fillAt(base: number, block: number, owner: number, write: boolean): void {
    const tags = this.tags
    const slots = this.slots
    let slot: number
    if (this.policy === LRU) {
      // The last position is empty or least recent: shift the set down one, new tag first.
      const tail = base + this.assoc - 1
      slot = slots[tail]!
      const old = tags[tail]!
      if (old !== EMPTY) this.leave(slot, old)
      for (let i = tail; i > base; i--) {
        tags[i] = tags[i - 1]!
        slots[i] = slots[i - 1]!
      }
      tags[base] = block
      slots[base] = slot
    } else {
      const w = this.victimWay(base)
      slot = base + w
      if (tags[slot] !== EMPTY) this.leave(slot, tags[slot]!)
      tags[slot] = block
      if (this.policy === FIFO) this.stamps[slot] = ++this.clock
      else this.use(base, w)
    }
    this.owner[slot] = owner
    this.dirty[slot] = write ? 1 : 0
    this.prefetched[slot] = 0
    // A loop, not TypedArray#fill: a line has 1-4 words, and the builtin call costs more.
    for (let i = slot * this.words, end = i + this.words; i < end; i++) this.used[i] = 0
    this.slot = slot
  }

  /** Records the line in `slot` as the victim. */
  private leave(slot: number, block: number): void {
    this.victimBlock = block
    this.victimOwner = this.owner[slot]!
    this.victimDirty = this.dirty[slot]!
    this.victimPrefetched = this.prefetched[slot]!
    this.victimUsed = this.words !== 0 ? this.usedBytes(slot) : 0
  }

  /** A demand use of the tag at position base + way. */
  private use(base: number, way: number): void {
    const policy = this.policy
    if (policy === LRU) {
      if (way === 0) return
      const tags = this.tags
      const slots = this.slots
      const tag = tags[base + way]!
      const slot = slots[base + way]!
      for (let i = base + way; i > base; i--) {
        tags[i] = tags[i - 1]!
        slots[i] = slots[i - 1]!
      }
      tags[base] = tag
      slots[base] = slot
    } else if (policy === PLRU) {
      // Walk root to leaf, pointing each node away from the way just used.
      const tree = this.tree
      let node = 1
      for (let half = this.assoc >>> 1; half > 0; half >>>= 1) {
        const right = way & half ? 1 : 0
        tree[base + node] = right ? 0 : 1
        node = 2 * node + right
      }
    }
  }

  /** Victim way (not LRU): the first empty way, else the policy's choice. */
  private victimWay(base: number): number {
    const assoc = this.assoc
    const tags = this.tags
    for (let w = 0; w < assoc; w++) if (tags[base + w] === EMPTY) return w
    const policy = this.policy
    if (policy === FIFO) {
      const stamps = this.stamps
      let best = 0
      let min = stamps[base]!
      for (let w = 1; w < assoc; w++) {
        const s = stamps[base + w]!
        if (s < min) {
          min = s
          best = w
        }
      }
      return best
    }
    if (policy === PLRU) {
      let node = 1
      while (node < assoc) node = 2 * node + this.tree[base + node]!
      return node - assoc
    }
    let x = this.rng
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    this.rng = x >>> 0
    return this.rng % assoc
  }

  /** Sets bits lo..hi of the slot's byte vector; true if they were all set already. */
  mark(slot: number, lo: number, hi: number): boolean {
    const used = this.used
    const first = slot * this.words
    const wordLo = lo >>> 5
    const wordHi = hi >>> 5
    if (wordLo === wordHi) {
      // Bits lo..hi of one word: (2 << hi) - (1 << lo), where 2 << 31 wraps to 0 as needed.
      const mask = ((2 << (hi & 31)) - (1 << (lo & 31))) | 0
      const old = used[first + wordLo]!
      if ((old & mask) === mask) return true
      used[first + wordLo] = old | mask
      return false
    }
    let all = true
    for (let word = wordLo; word <= wordHi; word++) {
      const from = word === wordLo ? lo & 31 : 0
      const to = word === wordHi ? hi & 31 : 31
      const mask = ((2 << to) - (1 << from)) | 0
      const old = used[first + word]!
      if ((old & mask) !== mask) {
        all = false
        used[first + word] = old | mask
      }
    }
    return all
  }
}
