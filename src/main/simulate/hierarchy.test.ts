import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CacheLevelConfig, HierarchyConfig } from '../../shared/domain'
import { CacheLevel } from './cache-level'
import {
  Hierarchy,
  KIND_MODIFY,
  KIND_READ,
  KIND_WRITE,
  STAT_FIELDS,
  STAT_READ_MISSES,
  STAT_READS,
  STAT_WRITE_MISSES,
  STAT_WRITES
} from './hierarchy'
import { batch, level } from './test-fixtures'



/** Obviously-correct reference: a list per set, most recent first. */
function referenceMisses(cfg: CacheLevelConfig, accesses: Array<[number, number]>): boolean[] {
  const sets = cfg.size / (cfg.assoc * cfg.lineSize)
  const state = new Map<number, number[]>()
  const touch = (block: number) => {
    const s = block % sets
    const list = state.get(s) ?? []
    const at = list.indexOf(block)
    if (at >= 0) list.splice(at, 1)
    list.unshift(block)
    if (list.length > cfg.assoc) list.pop()
    state.set(s, list)
    return at < 0
  }
  return accesses.map(([address, size]) => {
    const b1 = Math.floor(address / cfg.lineSize)
    const b2 = Math.floor((address + size - 1) / cfg.lineSize)
    const m1 = touch(b1)
    if (b1 === b2) return m1
    const m2 = touch(b2)
    return m1 || m2
  })
}

describe('CacheLevel (LRU)', () => {
  it('hand-computed: a 2-way set keeps the two most recent lines', () => {
    // 2 sets x 2 ways x 16-byte lines = 64 bytes. Blocks 0, 2, 4 all map to set 0.
    const c = new CacheLevel(level(64, 2, 16))
    const seq = [0, 32, 0, 64, 32, 0].map((a) => c.access(a, 4))
    // 0 miss, 32 miss, 0 hit (now MRU), 64 miss evicts 32, 32 miss evicts 0, 0 miss
    expect(seq).toEqual([true, true, false, true, true, true])
  })

  it('hand-computed: sets are selected by the low block bits', () => {
    const c = new CacheLevel(level(64, 1, 16)) // 4 sets, direct mapped
    expect([0, 16, 32, 48, 0, 64, 0].map((a) => c.access(a, 8))).toEqual([true, true, true, true, false, true, true])
  })

  it('an access straddling two lines touches both and counts one miss', () => {
    const c = new CacheLevel(level(64, 2, 16))
    expect(c.access(12, 8)).toBe(true) // blocks 0 and 1, both cold
    expect(c.access(0, 4)).toBe(false)
    expect(c.access(16, 4)).toBe(false)
    expect(c.access(28, 8)).toBe(true) // block 1 hits, block 2 misses
  })

  it('is exact for addresses above 2^32', () => {
    const c = new CacheLevel(level(1024, 1, 64)) // 16 sets
    const hi = 2 ** 40 + 64 * 3
    expect(c.access(hi, 8)).toBe(true)
    expect(c.access(hi + 8, 8)).toBe(false)
    expect(c.access(hi + 2 ** 33, 8)).toBe(true) // same set (2^33 is a multiple of 16 x 64), other tag
    expect(c.access(hi, 8)).toBe(true) // evicted: direct mapped
  })

  it('agrees with a reference model on random traces', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(level(256, 1, 16), level(512, 2, 32), level(1024, 4, 64), level(2048, 8, 16)),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 8191 }), fc.constantFrom(1, 2, 4, 8, 16)), { maxLength: 400 }),
        (cfg, accesses) => {
          const c = new CacheLevel(cfg)
          const got = accesses.map(([a, s]) => c.access(a, s))
          expect(got).toEqual(referenceMisses(cfg, accesses))
        }
      ),
      { numRuns: 200 }
    )
  })
})

describe('Hierarchy', () => {
  const stat = (h: Hierarchy, point: number, lvl: number, field: number, levels = 1) =>
    h.pointResults()[(point * levels + lvl) * STAT_FIELDS + field]

  it('counts reads, writes and misses per point, write-allocate', () => {
    const cfg: HierarchyConfig = { levels: [level(64, 2, 16)], cachegrindCompatible: false }
    const h = new Hierarchy(cfg, Uint8Array.from([KIND_READ, KIND_WRITE]))
    h.run(batch([[1, 0, 8], [0, 0, 8], [0, 16, 8], [1, 16, 8]]))
    expect(stat(h, 1, 0, STAT_WRITES)).toBe(2)
    expect(stat(h, 1, 0, STAT_WRITE_MISSES)).toBe(1) // the write brought line 0 in
    expect(stat(h, 0, 0, STAT_READS)).toBe(2)
    expect(stat(h, 0, 0, STAT_READ_MISSES)).toBe(1)
    expect(h.levelTotals()).toEqual([{ name: 'L1', reads: 2, writes: 2, readMisses: 1, writeMisses: 1 }])
  })

  it('a miss at L1 is an access at L2; hits stop at L1', () => {
    const cfg: HierarchyConfig = {
      levels: [level(32, 1, 16), level(256, 2, 16, { name: 'L2' })],
      cachegrindCompatible: false
    }
    const h = new Hierarchy(cfg, Uint8Array.from([KIND_READ]))
    // 0 and 32 conflict in the 2-set direct-mapped L1 but both fit in L2.
    h.run(batch([[0, 0, 4], [0, 32, 4], [0, 0, 4], [0, 0, 4]]))
    const [l1, l2] = h.levelTotals()
    expect(l1).toMatchObject({ reads: 4, readMisses: 3 })
    expect(l2).toMatchObject({ reads: 3, readMisses: 2 })
  })

  it('modify is a read and a write by default, a single read in Cachegrind mode', () => {
    const kinds = Uint8Array.from([KIND_MODIFY])
    const plain = new Hierarchy({ levels: [level(64, 2, 16)], cachegrindCompatible: false }, kinds)
    plain.run(batch([[0, 0, 4]]))
    expect(plain.levelTotals()[0]).toEqual({ name: 'L1', reads: 1, writes: 1, readMisses: 1, writeMisses: 0 })
    const cg = new Hierarchy({ levels: [level(64, 2, 16)], cachegrindCompatible: true }, kinds)
    cg.run(batch([[0, 0, 4]]))
    expect(cg.levelTotals()[0]).toEqual({ name: 'L1', reads: 1, writes: 0, readMisses: 1, writeMisses: 0 })
  })

  it('Cachegrind mode clamps large accesses to min(line, 64) bytes', () => {
    const kinds = Uint8Array.from([KIND_READ])
    const cg = new Hierarchy({ levels: [level(4096, 2, 128)], cachegrindCompatible: true }, kinds)
    // 512 bytes at 0 would span 4 lines; clamped to 64 it touches line 0 only.
    cg.run(batch([[0, 0, 512], [0, 128, 8]]))
    expect(stat(cg, 0, 0, STAT_READ_MISSES)).toBe(2)
  })

  it('grows its point table without losing counts', () => {
    const h = new Hierarchy({ levels: [level(64, 2, 16)], cachegrindCompatible: false }, Uint8Array.from([KIND_READ]))
    h.run(batch([[0, 0, 4]]))
    h.setPointKinds(Uint8Array.from([KIND_READ, KIND_WRITE]))
    h.run(batch([[1, 64, 4]]))
    expect(stat(h, 0, 0, STAT_READ_MISSES)).toBe(1)
    expect(stat(h, 1, 0, STAT_WRITE_MISSES)).toBe(1)
    expect(() => h.run(batch([[5, 0, 4]]))).toThrow(/outside the point table/)
  })
})
