/** Hand-computed small cases: replacement policies, write policies, prefetchers, TLB, metrics, evictors. */
import { describe, expect, it } from 'vitest'
import type { CacheLevelConfig, HierarchyConfig, ReplacementPolicy } from '../../shared/domain'
import { CacheLevel } from './cache-level'
import { OWNER_PREFETCH } from './evictor-matrix'
import {
  EXTRA_BACK_INVALIDATIONS,
  EXTRA_FIELDS,
  EXTRA_PREFETCHES,
  EXTRA_USEFUL_PREFETCHES,
  EXTRA_WRITEBACKS,
  Hierarchy,
  KIND_READ,
  KIND_WRITE,
  STAT_EVICTIONS,
  STAT_FIELDS,
  STAT_LINE_ENDS,
  STAT_READ_MISSES,
  STAT_SPATIAL_HITS,
  STAT_TEMPORAL_HITS,
  STAT_USED_BYTES,
  STAT_WRITE_MISSES,
  STAT_WRITES
} from './hierarchy'
import { batch, level } from './test-fixtures'



const stat = (h: Hierarchy, levels: number, point: number, lvl: number, field: number) => h.pointResults()[(point * levels + lvl) * STAT_FIELDS + field]
const extra = (h: Hierarchy, lvl: number, field: number) => h.levelExtras()[lvl * EXTRA_FIELDS + field]

describe('replacement policies (one 4-way set of 16-byte lines)', () => {
  // Fill ways with blocks A B C D (0..3), use A again, then E (4) must evict someone.
  function evicted(policy: ReplacementPolicy, seed?: number): string {
    const c = new CacheLevel({ name: 'L1', size: 64, assoc: 4, lineSize: 16, policy, seed })
    for (const a of [0, 16, 32, 48, 0, 64]) c.access(a, 4)
    const gone = [0, 1, 2, 3].filter((b) => !c.contains(b))
    expect(gone).toHaveLength(1)
    return 'ABCD'[gone[0]!]!
  }
  it('LRU evicts the least recently used (B: A was used again)', () => expect(evicted('lru')).toBe('B'))
  it('FIFO evicts the first filled (A, though it was just used)', () => expect(evicted('fifo')).toBe('A'))
  // Tree bits after A B C D A: root -> right half, right node -> left leaf: way 2.
  it('tree-PLRU follows the tree bits (C)', () => expect(evicted('plru')).toBe('C'))
  // xorshift32: seed 1 -> 270369 (mod 4 = 1, B); seed 7 -> 1892583 (mod 4 = 3, D).
  it('random is reproducible from its seed', () => {
    expect(evicted('random', 1)).toBe('B')
    expect(evicted('random', 7)).toBe('D')
  })
  it('empty ways fill before any policy evicts', () => {
    for (const policy of ['lru', 'fifo', 'plru', 'random'] as const) {
      const c = new CacheLevel({ name: 'L1', size: 64, assoc: 4, lineSize: 16, policy })
      expect([0, 16, 32, 48, 0, 16, 32, 48].map((a) => c.access(a, 4))).toEqual([true, true, true, true, false, false, false, false])
    }
  })
})

describe('write policies', () => {
  const two = (l1: Partial<CacheLevelConfig>): HierarchyConfig => ({
    levels: [level(32, 1, 16, l1), level(1024, 4, 16, { name: 'L2' })],
    cachegrindCompatible: false
  })
  it('write-back: repeated writes stay in L1; the dirty line goes to L2 once, when evicted', () => {
    const h = new Hierarchy(two({}), Uint8Array.from([KIND_WRITE]))
    h.run(batch([[0, 0, 8], [0, 0, 8], [0, 0, 8], [0, 32, 8]])) // 32 maps to set 0: evicts dirty 0
    expect(stat(h, 2, 0, 0, STAT_WRITES)).toBe(4)
    expect(stat(h, 2, 0, 0, STAT_WRITE_MISSES)).toBe(2)
    expect(stat(h, 2, 0, 1, STAT_WRITES)).toBe(2) // only the misses reach L2
    expect(extra(h, 0, EXTRA_WRITEBACKS)).toBe(1)
  })
  it('write-through: every write reaches L2 and nothing is written back', () => {
    const h = new Hierarchy(two({ writePolicy: 'write-through' }), Uint8Array.from([KIND_WRITE]))
    h.run(batch([[0, 0, 8], [0, 0, 8], [0, 0, 8], [0, 32, 8]]))
    expect(stat(h, 2, 0, 0, STAT_WRITE_MISSES)).toBe(2)
    expect(stat(h, 2, 0, 1, STAT_WRITES)).toBe(4)
    expect(stat(h, 2, 0, 1, STAT_WRITE_MISSES)).toBe(2)
    expect(extra(h, 0, EXTRA_WRITEBACKS)).toBe(0)
  })
  it('no write-allocate: a write miss does not bring the line in', () => {
    const kinds = Uint8Array.from([KIND_WRITE, KIND_READ])
    const h = new Hierarchy(two({ writeAllocate: false }), kinds)
    h.run(batch([[0, 0, 8], [1, 0, 8]]))
    expect(stat(h, 2, 1, 0, STAT_READ_MISSES)).toBe(1)
    const allocating = new Hierarchy(two({}), kinds)
    allocating.run(batch([[0, 0, 8], [1, 0, 8]]))
    expect(stat(allocating, 2, 1, 0, STAT_READ_MISSES)).toBe(0)
  })
  it('inclusive: an L2 eviction removes the line from L1 too', () => {
    // L1: 2 direct-mapped 16-byte lines; L2: one 2-way set. 0 is reused in L1 only, so L2
    // sees it as least recent and evicts it for 48, taking it out of L1.
    const cfg = (inclusive: boolean): HierarchyConfig => ({
      levels: [level(32, 1, 16), level(32, 2, 16, { name: 'L2', inclusive })],
      cachegrindCompatible: false
    })
    const seq = batch([[0, 0, 4], [0, 16, 4], [0, 0, 4], [0, 48, 4], [0, 0, 4]])
    const incl = new Hierarchy(cfg(true), Uint8Array.from([KIND_READ]))
    incl.run(seq)
    expect(stat(incl, 2, 0, 0, STAT_READ_MISSES)).toBe(4)
    expect(extra(incl, 1, EXTRA_BACK_INVALIDATIONS)).toBe(1)
    const plain = new Hierarchy(cfg(false), Uint8Array.from([KIND_READ]))
    plain.run(seq)
    expect(stat(plain, 2, 0, 0, STAT_READ_MISSES)).toBe(3)
  })
})

describe('prefetchers', () => {
  it('next-line: a miss brings the following line; sequential reads miss every other line', () => {
    const h = new Hierarchy({ levels: [level(128, 1, 16, { prefetch: 'next-line' })], cachegrindCompatible: false }, Uint8Array.from([KIND_READ]))
    h.run(batch([[0, 0, 8], [0, 16, 8], [0, 32, 8], [0, 48, 8]]))
    expect(stat(h, 1, 0, 0, STAT_READ_MISSES)).toBe(2)
    expect(extra(h, 0, EXTRA_PREFETCHES)).toBe(2)
    expect(extra(h, 0, EXTRA_USEFUL_PREFETCHES)).toBe(2)
  })
  it('stride: after the same stride twice it fetches one stride ahead', () => {
    const h = new Hierarchy({ levels: [level(4096, 4, 64, { prefetch: 'stride' })], cachegrindCompatible: false }, Uint8Array.from([KIND_READ]))
    // 0, 256 miss; 512 misses and confirms stride 256 (prefetch 768); 768 hits (prefetch 1024); 1024 hits.
    h.run(batch([[0, 0, 8], [0, 256, 8], [0, 512, 8], [0, 768, 8], [0, 1024, 8]]))
    expect(stat(h, 1, 0, 0, STAT_READ_MISSES)).toBe(3)
    expect(extra(h, 0, EXTRA_USEFUL_PREFETCHES)).toBe(2)
  })
  it('a prefetch that evicts a line is recorded as the evictor', () => {
    const h = new Hierarchy({ levels: [level(32, 1, 16, { prefetch: 'next-line' })], cachegrindCompatible: false }, Uint8Array.from([KIND_READ]))
    // 16 misses (prefetches 32 into set 0); 64 misses in set 0 (evicts the prefetched 32) and
    // prefetches 80 into set 1, evicting point 0's line 16.
    h.run(batch([[0, 16, 4], [0, 64, 4]]))
    expect(h.evictors[0]!.entries().sort((a, b) => a.evictee - b.evictee)).toEqual([
      { evictee: OWNER_PREFETCH, evictor: 0, count: 1 },
      { evictee: 0, evictor: OWNER_PREFETCH, count: 1 }
    ])
  })
})

describe('per-reference metrics (METRIC section 8)', () => {
  it('temporal and spatial hits come from the byte bit vector of the line', () => {
    const h = new Hierarchy({ levels: [level(64, 1, 16)], cachegrindCompatible: false }, Uint8Array.from([KIND_READ]))
    // miss; bytes 8..15 new: spatial; bytes 0..7 again: temporal; bytes 4..11 all seen: temporal.
    h.run(batch([[0, 0, 8], [0, 8, 8], [0, 0, 8], [0, 4, 8]]))
    expect(stat(h, 1, 0, 0, STAT_SPATIAL_HITS)).toBe(1)
    expect(stat(h, 1, 0, 0, STAT_TEMPORAL_HITS)).toBe(2)
  })
  it('evictors, used bytes and line ends on a ping-pong conflict', () => {
    const h = new Hierarchy({ levels: [level(16, 1, 16)], cachegrindCompatible: false }, Uint8Array.from([KIND_READ, KIND_READ]))
    h.run(batch([[0, 0, 8], [1, 16, 8], [0, 0, 8], [1, 16, 8]]))
    h.finish()
    const m = h.evictors[0]!.entries().sort((a, b) => a.evictee - b.evictee)
    expect(m).toEqual([
      { evictee: 0, evictor: 1, count: 2 },
      { evictee: 1, evictor: 0, count: 1 }
    ])
    // Point 0: two lines of 8 used bytes, both evicted: spatial reuse 16 / (16 x 2) = 0.5.
    expect([stat(h, 1, 0, 0, STAT_USED_BYTES), stat(h, 1, 0, 0, STAT_LINE_ENDS), stat(h, 1, 0, 0, STAT_EVICTIONS)]).toEqual([16, 2, 2])
    // Point 1: one eviction and one line still resident at the end.
    expect([stat(h, 1, 1, 0, STAT_USED_BYTES), stat(h, 1, 1, 0, STAT_LINE_ENDS), stat(h, 1, 1, 0, STAT_EVICTIONS)]).toEqual([16, 2, 1])
  })
  it('a per-variable miss timeline over fixed intervals', () => {
    const h = new Hierarchy({ levels: [level(16, 1, 16)], cachegrindCompatible: false }, Uint8Array.from([KIND_READ, KIND_READ]), {
      pointVariables: Int32Array.from([0, 1]),
      variableCount: 2,
      timelineInterval: 2
    })
    h.run(batch([[0, 0, 8], [0, 8, 8], [1, 16, 8], [0, 0, 8], [1, 16, 8]]))
    h.finish()
    expect(h.timelineCells()).toEqual([
      { level: 0, variable: 0, interval: 0, misses: 1 },
      { level: 0, variable: 0, interval: 1, misses: 1 },
      { level: 0, variable: 1, interval: 1, misses: 1 },
      { level: 0, variable: 1, interval: 2, misses: 1 }
    ])
  })
})

describe('data TLB', () => {
  it('two levels: a miss in the first is a lookup in the second; page straddles count once', () => {
    const h = new Hierarchy(
      {
        levels: [level(1024, 2, 64)],
        tlb: [
          { name: 'DTLB', entries: 2, assoc: 2, pageSize: 4096 },
          { name: 'STLB', entries: 8, assoc: 8, pageSize: 4096 }
        ],
        cachegrindCompatible: false
      },
      Uint8Array.from([KIND_READ])
    )
    h.run(batch([[0, 0, 8], [0, 4096, 8], [0, 8192, 8], [0, 0, 8], [0, 4092, 8]]))
    // DTLB (LRU, 2 entries): 0 miss, 1 miss, 2 miss (evicts 0), 0 miss (evicts 1), 0+1 straddle: page 1 misses.
    expect(stat(h, 3, 0, 1, STAT_READ_MISSES)).toBe(5)
    // STLB sees those 5: pages 0, 1, 2 miss; 0 and (0,1) hit.
    expect(stat(h, 3, 0, 2, STAT_READ_MISSES)).toBe(3)
    expect(h.levelTotals().map((t) => t.name)).toEqual(['L1', 'DTLB', 'STLB'])
  })
})
