/**
 * The fused LRU loop (`Hierarchy.runFused`) against the general path on random
 * configurations and traces: every count, extra, evictor and timeline cell must be equal.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CacheLevelConfig, HierarchyConfig, TlbLevelConfig } from '../../shared/domain'
import { Hierarchy } from './hierarchy'

const POINTS = 6

const levelArb = (name: string): fc.Arbitrary<CacheLevelConfig> =>
  fc
    .record({ sets: fc.constantFrom(1, 2, 4, 8, 16), assoc: fc.integer({ min: 1, max: 8 }), line: fc.constantFrom(16, 32, 64, 128) })
    .map(({ sets, assoc, line }) => ({ name, size: sets * assoc * line, assoc, lineSize: line, policy: 'lru' }))

const tlbArb = (name: string): fc.Arbitrary<TlbLevelConfig> =>
  fc
    .record({ sets: fc.constantFrom(1, 2, 4), assoc: fc.integer({ min: 1, max: 4 }), page: fc.constantFrom(256, 4096) })
    .map(({ sets, assoc, page }) => ({ name, entries: sets * assoc, assoc, pageSize: page }))

const configArb: fc.Arbitrary<HierarchyConfig> = fc
  .record({
    levels: fc.integer({ min: 1, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => levelArb(`L${i + 1}`)))),
    tlb: fc.integer({ min: 0, max: 2 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => tlbArb(`T${i + 1}`)))),
    cachegrindCompatible: fc.boolean()
  })
  .map((c) => ({ ...c, levels: [...c.levels], tlb: [...c.tlb] }))

/** Accesses clustered in a few regions (so lines are reused and conflict), some above 2^32. */
const traceArb = fc.array(
  fc.record({
    point: fc.integer({ min: 0, max: POINTS - 1 }),
    region: fc.constantFrom(0, 2 ** 20, 2 ** 33 + 64, 2 ** 45),
    offset: fc.integer({ min: 0, max: 4095 }),
    size: fc.constantFrom(1, 2, 4, 8, 16, 3, 64, 200)
  }),
  { minLength: 1, maxLength: 600 }
)

function simulate(config: HierarchyConfig, kinds: Uint8Array, trace: Array<{ point: number; region: number; offset: number; size: number }>, fastPath: boolean) {
  const h = new Hierarchy(config, kinds, { pointVariables: Int32Array.from([0, 1, -1, 0, 2, 1]), variableCount: 3, timelineInterval: 37, fastPath })
  // Two batches, so state carries across run() calls.
  const half = trace.length >> 1
  for (const part of [trace.slice(0, half), trace.slice(half)]) {
    h.run({
      count: part.length,
      points: Uint32Array.from(part.map((a) => a.point)),
      addresses: Float64Array.from(part.map((a) => a.region + a.offset)),
      sizes: Uint16Array.from(part.map((a) => a.size))
    })
  }
  h.finish()
  return {
    fused: h.fused,
    stats: Array.from(h.pointResults()),
    extras: Array.from(h.levelExtras()),
    evictors: h.evictorEntries(),
    timeline: h.timelineCells(),
    totals: h.levelTotals()
  }
}

describe('fused LRU path', () => {
  it('gives exactly the general path results on random configurations and traces', () => {
    fc.assert(
      fc.property(configArb, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: POINTS, maxLength: POINTS }), traceArb, (config, kindList, trace) => {
        const kinds = Uint8Array.from(kindList)
        const fast = simulate(config, kinds, trace, true)
        const general = simulate(config, kinds, trace, false)
        expect(fast.fused).toBe(true)
        expect(general.fused).toBe(false)
        expect({ ...fast, fused: 0 }).toEqual({ ...general, fused: 0 })
      }),
      { numRuns: 300 }
    )
  })

  it('is not taken where a level needs the general path', () => {
    const l1: CacheLevelConfig = { name: 'L1', size: 1024, assoc: 2, lineSize: 64, policy: 'lru' }
    const kinds = Uint8Array.from([0])
    const fused = (c: Partial<CacheLevelConfig>, tlbPolicy?: 'fifo') =>
      new Hierarchy({ levels: [{ ...l1, ...c }], tlb: [{ name: 'T', entries: 4, assoc: 4, pageSize: 4096, policy: tlbPolicy }], cachegrindCompatible: false }, kinds).fused
    expect(fused({})).toBe(true)
    expect(fused({ policy: 'plru' })).toBe(false)
    expect(fused({ writePolicy: 'write-through' })).toBe(false)
    expect(fused({ writeAllocate: false })).toBe(false)
    expect(fused({ inclusive: true })).toBe(false)
    expect(fused({ prefetch: 'next-line' })).toBe(false)
    expect(fused({}, 'fifo')).toBe(false)
  })
})
