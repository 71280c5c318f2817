import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CacheLevelConfig, HierarchyConfig } from '../../shared/domain'
import type { AccessBatch } from './hierarchy'
import { FirstLevelGroup, firstLevelKey } from './first-level-group'
import { NativeHierarchy } from './native-hierarchy'
import { TouchHierarchy } from './touch-hierarchy'
import { batch, level } from './test-fixtures'

const POINTS = 6

/** A lower level on the fused path whose line is at least the first level's (16 or 32 bytes here). */
const lowerArb = (name: string, minLine: number): fc.Arbitrary<CacheLevelConfig> =>
  fc
    .record({ sets: fc.constantFrom(1, 2, 4, 16), assoc: fc.constantFrom(1, 2, 4, 8), line: fc.constantFrom(32, 64, 128) })
    .filter((r) => r.line >= minLine)
    .map((r) => level(r.sets * r.assoc * r.line, r.assoc, r.line, { name }))

/** A first level (small: most accesses miss it or write back) and 2-4 hierarchies below it, some with a third level. */
const groupArb = fc
  .record({
    sets: fc.constantFrom(1, 2, 4),
    assoc: fc.constantFrom(1, 2, 4),
    line: fc.constantFrom(16, 32),
    compatible: fc.boolean(),
    tlb: fc.constantFrom(0, 1, 2)
  })
  .chain((f) => {
    const first = level(f.sets * f.assoc * f.line, f.assoc, f.line, { name: 'L1' })
    const tlb = [
      { name: 'T1', entries: 4, assoc: 2, pageSize: 256, policy: 'lru' as const },
      { name: 'T2', entries: 16, assoc: 4, pageSize: 256, policy: 'lru' as const }
    ].slice(0, f.tlb)
    const hierarchy = fc
      .record({ l2: lowerArb('L2', f.line), l3: fc.option(lowerArb('L3', f.line), { nil: undefined }) })
      .map(({ l2, l3 }): HierarchyConfig => ({ levels: l3 ? [first, l2, { ...l3, size: l3.size * 4 }] : [first, l2], tlb, cachegrindCompatible: f.compatible }))
    return fc.array(hierarchy, { minLength: 2, maxLength: 4 })
  })

/** Reads, writes and modifies over a few kilobytes, sizes that straddle lines, and strided walks. */
const traceArb = fc
  .array(
    fc.oneof(
      fc.record({ point: fc.integer({ min: 0, max: POINTS - 1 }), address: fc.integer({ min: 0, max: 6000 }), size: fc.constantFrom(1, 4, 8, 16), variable: fc.integer({ min: 0, max: 3 }) }).map((a) => [a]),
      fc.record({ start: fc.integer({ min: 0, max: 6000 }), stride: fc.constantFrom(8, 48, 64, 200), n: fc.integer({ min: 3, max: 40 }) }).map(({ start, stride, n }) =>
        Array.from({ length: n }, (_, j) => ({ point: POINTS - 1, address: start + j * stride, size: 8, variable: j % 2 }))
      )
    ),
    { minLength: 1, maxLength: 80 }
  )
  .map((parts) => parts.flat())

type Access = { point: number; address: number; size: number; variable: number }
const toBatch = (part: Access[]): AccessBatch => batch(part.map((a) => [a.point, a.address, a.size]))

/** Everything a stored run is made of. */
function resultsOf(h: NativeHierarchy | TouchHierarchy) {
  return {
    accesses: h.accesses,
    points: Array.from(h.pointResults()),
    touches: h instanceof TouchHierarchy ? h.touchResults() : null,
    extras: Array.from(h.levelExtras()),
    evictors: h.evictorEntries(),
    timeline: h.timelineCells(),
    totals: h.levelTotals()
  }
}

describe('FirstLevelGroup', () => {
  it('gives each hierarchy the run a whole replay gives: counts, extras, evictors, timeline (by point and by touch, fixed and adaptive intervals)', () => {
    fc.assert(
      fc.property(groupArb, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: POINTS, maxLength: POINTS }), traceArb, fc.integer({ min: 1, max: 30 }), fc.boolean(), fc.constantFrom(0, 1, 3), (configs, kindList, trace, interval, byTouch, adaptive) => {
        const kinds = Uint8Array.from(kindList)
        // Adaptive intervals too, as a trace's live first simulation keeps them.
        const options = { pointVariables: Int32Array.from([0, 1, -1, 0, 2, 1]), variableCount: 3, timelineInterval: interval, ...(adaptive ? { adaptiveIntervals: adaptive } : {}) }
        const group = new FirstLevelGroup(configs, kinds, options, byTouch)
        const whole = configs.map((c) => (byTouch ? new TouchHierarchy(c, kinds, options) : new NativeHierarchy(c, kinds, options)))
        // Batches of different lengths: the stream is handed over batch by batch.
        const cut = [0, trace.length >> 2, trace.length >> 1, trace.length]
        for (let k = 0; k + 1 < cut.length; k++) {
          const part = trace.slice(cut[k], cut[k + 1])
          if (part.length === 0) continue
          const variables = Int32Array.from(part, (a) => a.variable)
          group.run(toBatch(part), byTouch ? variables : null)
          for (const h of whole) {
            if (h instanceof TouchHierarchy) h.run(toBatch(part), variables)
            else h.run(toBatch(part))
          }
        }
        group.finish()
        whole.forEach((h, i) => {
          h.finish()
          expect(resultsOf(group.members[i]!)).toEqual(resultsOf(h))
        })
      }),
      { numRuns: 300 }
    )
  })

  it("follows the stored stream (onStream's blocks, read back block by block) to the run the members get in memory", () => {
    fc.assert(
      fc.property(groupArb, traceArb, fc.integer({ min: 1, max: 30 }), (configs, trace, interval) => {
        const kinds = Uint8Array.from({ length: POINTS }, (_, p) => p % 3)
        const options = { pointVariables: Int32Array.from([0, 1, -1, 0, 2, 1]), variableCount: 3, timelineInterval: interval }
        const group = new FirstLevelGroup(configs, kinds, options, false)
        const blocks: Uint8Array[] = []
        group.onStream = (block) => blocks.push(block)
        const cut = [0, trace.length >> 1, trace.length]
        for (let k = 0; k + 1 < cut.length; k++) if (cut[k + 1]! > cut[k]!) group.run(toBatch(trace.slice(cut[k], cut[k + 1])), null)
        group.finish()
        // A what-if's follower: the lower levels over the stored blocks. What a level counts of
        // the accesses reaching it (its reads and writes: the first level's misses) and the first
        // level's own figures come from the stored state (stored-first-level.ts, whose
        // integration test compares whole reports); here the lower levels' misses, evictors and timeline.
        configs.forEach((config, i) => {
          const follower = new NativeHierarchy(config, kinds, { ...options, tlbThread: false })
          for (const block of blocks) follower.followStored(block)
          follower.followedTo(trace.length)
          follower.finish()
          const below = (h: NativeHierarchy) => {
            const caches = config.levels.length
            return {
              misses: h.levelTotals().slice(1, caches).map((t) => [t.name, t.readMisses, t.writeMisses]),
              evictors: h.evictorEntries().slice(1, caches),
              timeline: h.timelineCells().filter((c) => c.level >= 1 && c.level < caches)
            }
          }
          expect(below(follower)).toEqual(below(group.members[i] as NativeHierarchy))
        })
      }),
      { numRuns: 150 }
    )
  })

  it('refuses, in one line, a stored block that is cut short, runs on, or holds an event no first level makes', () => {
    const d1 = level(128, 2, 32, { name: 'D1' })
    const config: HierarchyConfig = { levels: [d1, level(1024, 4, 64, { name: 'LL' })], tlb: [], cachegrindCompatible: false }
    const group = new FirstLevelGroup([config], new Uint8Array(2), {}, false)
    const blocks: Uint8Array[] = []
    group.onStream = (block) => blocks.push(block)
    group.run(batch(Array.from({ length: 40 }, (_, i) => [i % 2, i * 96, 8] as [number, number, number])), null)
    const block = blocks[0]!
    expect(block.length).toBeGreaterThan(8)
    const follow = (bytes: Uint8Array) => () => new NativeHierarchy(config, new Uint8Array(2), {}).followStored(bytes)
    expect(follow(block)).not.toThrow()
    expect(follow(block.subarray(0, block.length - 1))).toThrow(/^a first-level block is cut short$/)
    expect(follow(Uint8Array.from([...block, 0]))).toThrow(/^a first-level block has bytes after its events$/)
    expect(follow(Uint8Array.from([200, 1, 0, 0, 0, 0]))).toThrow(/^a first-level block counts more events than it holds$/)
    // One event: index +0, point 1, address +64, size 8 and kind 3 (none).
    expect(follow(Uint8Array.from([1, 0, 2, 128, 1, 8 * 4 + 3]))).toThrow(/^a first-level block holds an event no first level makes$/)
  })

  it('shares a first level only where a replay would run it alike', () => {
    const d1 = level(32768, 8, 64, { name: 'D1' })
    const ll = level(8 << 20, 16, 64, { name: 'LL' })
    const key = (c: Partial<HierarchyConfig>) => firstLevelKey({ levels: [d1, ll], tlb: [], cachegrindCompatible: false, ...c })
    expect(key({})).not.toBeNull()
    expect(key({ levels: [{ ...d1, name: 'L1' }, { ...ll, size: 1 << 20 }] })).toBe(key({}))
    expect(key({ levels: [d1] })).toBeNull() // nothing below it
    expect(key({ levels: [d1, { ...ll, lineSize: 32 }] })).toBeNull() // accesses clipped to 32 bytes
    expect(key({ levels: [d1, { ...ll, policy: 'fifo' }] })).toBeNull()
    expect(key({ levels: [d1, { ...ll, inclusive: true }] })).toBeNull()
    expect(key({ levels: [{ ...d1, prefetch: 'next-line' }, ll] })).toBeNull()
    expect(key({ cachegrindCompatible: true })).not.toBe(key({}))
    expect(key({ tlb: [{ name: 'T', entries: 64, assoc: 4, pageSize: 4096 }] })).not.toBe(key({}))
    const config = (levels: CacheLevelConfig[]): HierarchyConfig => ({ levels, tlb: [], cachegrindCompatible: false })
    expect(() => new FirstLevelGroup([config([d1, ll]), config([level(65536, 8, 64), ll])], new Uint8Array(1), {}, false)).toThrow(/do not share a first level/)
  })

  it('refuses to follow a first level warmed by the rest of the program', () => {
    const d1 = level(1024, 2, 64, { name: 'D1' })
    const config = (ll: number): HierarchyConfig => ({ levels: [d1, level(ll, 4, 64, { name: 'LL' })], tlb: [], cachegrindCompatible: false })
    const group = new FirstLevelGroup([config(8192), config(16384)], new Uint8Array(1), {}, false)
    // A context record (SIM_CONTEXT | read) in the first level's batch.
    expect(() => group.run(batch([[0xfffffff1, 64, 8]]), null)).toThrow(/stream is incomplete/)
  })
})
