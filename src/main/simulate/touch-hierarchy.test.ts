import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CacheLevelConfig, HierarchyConfig } from '../../shared/domain'
import { STAT_FIELDS, STAT_READ_MISSES, STAT_READS, STAT_WRITE_MISSES, type AccessBatch } from './hierarchy'
import { NativeHierarchy, SIM_CONTEXT } from './native-hierarchy'
import { TouchHierarchy } from './touch-hierarchy'
import { batch, level } from './test-fixtures'

const POINTS = 5

const levelArb = (name: string): fc.Arbitrary<CacheLevelConfig> =>
  fc
    .record({
      sets: fc.constantFrom(1, 2, 4, 8),
      assoc: fc.constantFrom(1, 2, 4),
      line: fc.constantFrom(16, 64),
      policy: fc.constantFrom('lru' as const, 'fifo' as const, 'random' as const),
      prefetch: fc.constantFrom('none' as const, 'next-line' as const, 'stride' as const),
      writeThrough: fc.boolean()
    })
    .map((r) => ({ ...level(r.sets * r.assoc * r.line, r.assoc, r.line), name, policy: r.policy, prefetch: r.prefetch, writePolicy: r.writeThrough ? ('write-through' as const) : ('write-back' as const) }))

const configArb = fc
  .record({ l1: levelArb('L1'), l2: fc.option(levelArb('L2'), { nil: undefined }), tlb: fc.boolean() })
  .map(({ l1, l2, tlb }) => ({ levels: l2 ? [l1, { ...l2, size: l2.size * 4 }] : [l1], tlb: tlb ? [{ name: 'T1', entries: 4, assoc: 2, pageSize: 256, policy: 'lru' as const }] : [], cachegrindCompatible: false }))

/**
 * Accesses over a few regions, each access with its data structure (a point may touch several),
 * and strided walks of one point over two data structures in turn (the stride prefetcher's
 * detector is the point's, whichever structure an access falls in).
 */
const traceArb = fc
  .array(
    fc.oneof(
      fc.record({ point: fc.integer({ min: 0, max: POINTS - 1 }), address: fc.integer({ min: 0, max: 3000 }), size: fc.constantFrom(1, 4, 8, 64), variable: fc.integer({ min: 0, max: 3 }) }).map((a) => [a]),
      fc.record({ start: fc.integer({ min: 0, max: 4000 }), stride: fc.constantFrom(16, 48, 64, 200), n: fc.integer({ min: 3, max: 30 }) }).map(({ start, stride, n }) =>
        Array.from({ length: n }, (_, j) => ({ point: POINTS - 1, address: start + j * stride, size: 8, variable: j % 2 }))
      )
    ),
    { minLength: 1, maxLength: 60 }
  )
  .map((parts) => parts.flat())

type Access = { point: number; address: number; size: number; variable: number }
const toBatch = (part: Access[]): AccessBatch => batch(part.map((a) => [a.point, a.address, a.size]))

describe('TouchHierarchy', () => {
  it('folds to exactly the per-point simulation: counts, extras, evictors, timeline', () => {
    fc.assert(
      fc.property(configArb, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: POINTS, maxLength: POINTS }), traceArb, fc.integer({ min: 1, max: 40 }), (config, kindList, trace, interval) => {
        const kinds = Uint8Array.from(kindList)
        const vars = Int32Array.from([0, 1, -1, 0, 2])
        const options = { pointVariables: vars, variableCount: 3, timelineInterval: interval }
        const byPoint = new NativeHierarchy(config, kinds, options)
        const byTouch = new TouchHierarchy(config, kinds, options)
        const half = trace.length >> 1
        for (const part of [trace.slice(0, half), trace.slice(half)]) {
          if (part.length === 0) continue
          byPoint.run(toBatch(part))
          byTouch.run(toBatch(part), Int32Array.from(part, (a) => a.variable))
        }
        byPoint.finish()
        byTouch.finish()
        expect(Array.from(byTouch.pointResults())).toEqual(Array.from(byPoint.pointResults()))
        expect(Array.from(byTouch.levelExtras())).toEqual(Array.from(byPoint.levelExtras()))
        const sorted = (h: NativeHierarchy | TouchHierarchy) => h.evictorEntries().map((l) => [...l].sort((a, b) => a.evictee - b.evictee || a.evictor - b.evictor))
        expect(sorted(byTouch)).toEqual(sorted(byPoint))
        expect(byTouch.timelineCells()).toEqual(byPoint.timelineCells())
        expect(byTouch.levelTotals()).toEqual(byPoint.levelTotals())
        // Each touch's accesses are exactly the accesses of its (point, data structure).
        const t = byTouch.touchResults()
        const width = byTouch.names.length * STAT_FIELDS
        for (let k = 0; k < t.count; k++) {
          const n = trace.filter((a) => a.point === t.points[k] && a.variable === t.variables[k]).length
          const kind = kinds[t.points[k]!]!
          const accesses = t.stats[k * width + STAT_READS]! + (kind === 1 ? t.stats[k * width + 1]! : 0)
          expect(accesses).toBe(n)
        }
      }),
      { numRuns: 300 }
    )
  })

  it('grows its touch table past its first size, the numbering in order of first access', () => {
    const points = 300
    const kinds = new Uint8Array(points)
    const accesses: Array<[number, number, number]> = []
    const variables: number[] = []
    for (let r = 0; r < 3; r++)
      for (let p = 0; p < points; p++)
        for (const v of [5, 9]) {
          accesses.push([p, p * 4096 + v * 64, 8])
          variables.push(v)
        }
    const config: HierarchyConfig = { levels: [level(8192, 2, 64)], cachegrindCompatible: false }
    const h = new TouchHierarchy(config, kinds)
    const plain = new NativeHierarchy(config, kinds)
    h.run(batch(accesses), Int32Array.from(variables))
    plain.run(batch(accesses))
    h.finish()
    plain.finish()
    const t = h.touchResults()
    expect(t.count).toBe(600)
    expect([...t.points.subarray(0, 4)]).toEqual([0, 0, 1, 1])
    expect([...t.variables.subarray(0, 4)]).toEqual([5, 9, 5, 9])
    expect(Array.from(h.pointResults())).toEqual(Array.from(plain.pointResults()))
    expect(() => h.run(batch([[points, 0, 8]]), Int32Array.of(1))).toThrow(/access point 300 is outside the point table/)
  })

  it('takes context accesses without data structures: `variables` are the recorded ones, in order, across a table growth', async () => {
    const points = 300
    const kinds = new Uint8Array(points)
    const accesses: Array<[number, number, number]> = []
    const variables: number[] = []
    for (let p = 0; p < points; p++)
      for (const v of [5, 9]) {
        accesses.push([p, p * 4096 + v * 64, 8])
        variables.push(v)
        // The rest of the program between them: a read of a line of its own (SIM_CONTEXT | read).
        accesses.push([SIM_CONTEXT | 1, 0x4000000 + (p * 2 + v) * 64, 8])
      }
    const config: HierarchyConfig = { levels: [level(8192, 2, 64)], cachegrindCompatible: false }
    const h = new TouchHierarchy(config, kinds)
    const plain = new NativeHierarchy(config, kinds)
    await h.runAsync(batch(accesses), Int32Array.from(variables), variables.length)
    await plain.runAsync(batch(accesses), variables.length)
    h.finish()
    plain.finish()
    const t = h.touchResults()
    expect(t.count).toBe(600)
    expect([...t.variables.subarray(596, 600)]).toEqual([5, 9, 5, 9])
    expect(Array.from(h.pointResults())).toEqual(Array.from(plain.pointResults()))
    // Fewer data structures than recorded accesses is refused, not read past.
    const short = new TouchHierarchy(config, kinds)
    expect(() => short.run(batch([[0, 0, 8], [SIM_CONTEXT | 1, 64, 8], [1, 128, 8]]), Int32Array.of(3))).toThrow(/fewer data structures/)
  })

  it('counts each access to the data structure it touched: one reference over two arrays, one of them cached', () => {
    // Point 0 reads A (one line, hit after the first) and B (a new line every time), alternately.
    const config: HierarchyConfig = { levels: [level(1024, 2, 64)], cachegrindCompatible: false }
    const h = new TouchHierarchy(config, Uint8Array.of(0))
    const accesses: Array<[number, number, number]> = []
    const variables: number[] = []
    for (let i = 0; i < 100; i++) {
      accesses.push([0, 0, 8])
      variables.push(7)
      accesses.push([0, 0x10000 + i * 64, 8])
      variables.push(9)
    }
    h.run(batch(accesses), Int32Array.from(variables))
    h.finish()
    const t = h.touchResults()
    const misses = (v: number) => {
      const k = [...t.variables].indexOf(v)
      return t.stats[k * STAT_FIELDS + STAT_READ_MISSES]! + t.stats[k * STAT_FIELDS + STAT_WRITE_MISSES]!
    }
    expect([misses(7), misses(9)]).toEqual([1, 100])
    // Split by shares of accesses it would have been 50.5 each.
    expect(h.pointResults()[STAT_READ_MISSES]).toBe(101)
  })
})
