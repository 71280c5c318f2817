/**
 * The native simulator (production) against the TypeScript reference model on random and
 * adversarial configurations and traces: every count, extra, evictor, timeline cell and miss
 * stream must be identical, on both native paths (fused and general).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CacheLevelConfig, HierarchyConfig, TlbLevelConfig } from '../../shared/domain'
import type { EvictorCount } from './evictor-matrix'
import { Hierarchy, type AccessBatch } from './hierarchy'
import { NativeHierarchy } from './native-hierarchy'
import { batch, level } from './test-fixtures'

const POINTS = 7
const policyArb = fc.constantFrom('lru' as const, 'lru' as const, 'fifo' as const, 'plru' as const, 'random' as const)

const levelArb = (name: string, plain: boolean): fc.Arbitrary<CacheLevelConfig> =>
  fc
    .record({
      sets: fc.constantFrom(1, 2, 4, 8, 16),
      assocLog: fc.integer({ min: 0, max: 3 }),
      assocOdd: fc.constantFrom(0, 3, 5),
      line: fc.constantFrom(16, 32, 64, 128),
      policy: plain ? fc.constant('lru' as const) : policyArb,
      seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      writeThrough: plain ? fc.constant(false) : fc.boolean(),
      writeAllocate: plain ? fc.constant(true) : fc.boolean(),
      inclusive: plain ? fc.constant(false) : fc.boolean(),
      prefetch: plain ? fc.constant('none' as const) : fc.constantFrom('none' as const, 'none' as const, 'next-line' as const, 'stride' as const)
    })
    .map((r) => {
      // tree-PLRU needs a power-of-two associativity; the others also get 3 or 5 ways.
      const assoc = r.policy === 'plru' || r.assocOdd === 0 ? 1 << r.assocLog : r.assocOdd
      return {
        name,
        size: r.sets * assoc * r.line,
        assoc,
        lineSize: r.line,
        policy: r.policy,
        seed: r.seed,
        writePolicy: r.writeThrough ? ('write-through' as const) : ('write-back' as const),
        writeAllocate: r.writeAllocate,
        inclusive: r.inclusive,
        prefetch: r.prefetch
      }
    })

const tlbArb = (name: string): fc.Arbitrary<TlbLevelConfig> =>
  fc
    .record({ sets: fc.constantFrom(1, 2, 4), assoc: fc.constantFrom(1, 2, 4), page: fc.constantFrom(256, 4096), policy: policyArb })
    .map(({ sets, assoc, page, policy }) => ({ name, entries: sets * assoc, assoc, pageSize: page, policy }))

const configArb: fc.Arbitrary<HierarchyConfig> = fc
  .record({ plain: fc.boolean(), n: fc.integer({ min: 1, max: 3 }), t: fc.integer({ min: 0, max: 2 }), compatible: fc.boolean() })
  .chain(({ plain, n, t, compatible }) =>
    fc.record({
      levels: fc.tuple(...Array.from({ length: n }, (_, i) => levelArb(`L${i + 1}`, plain || compatible))),
      tlb: t === 0 ? fc.constant([]) : fc.tuple(...Array.from({ length: t }, (_, i) => tlbArb(`T${i + 1}`))),
      cachegrindCompatible: fc.constant(compatible)
    })
  )
  .map((c) => ({ ...c, levels: [...c.levels], tlb: [...c.tlb] }))

interface Access {
  point: number
  region: number
  offset: number
  size: number
}

/** Accesses clustered in a few regions (lines are reused and conflict), some far above 2^32,
 * with strides the stride prefetcher confirms, straddles and an occasional size of 0. */
const traceArb: fc.Arbitrary<Access[]> = fc.array(
  fc.oneof(
    fc.record({
      point: fc.integer({ min: 0, max: POINTS - 1 }),
      region: fc.constantFrom(0, 2 ** 20, 2 ** 33 + 64, 2 ** 45),
      offset: fc.integer({ min: 0, max: 4095 }),
      size: fc.constantFrom(1, 2, 4, 8, 16, 3, 64, 200, 0)
    }),
    // A strided run of one point (prefetchers, streams through one set).
    fc.record({ point: fc.constant(POINTS - 1), region: fc.constant(2 ** 24), offset: fc.integer({ min: 0, max: 63 }).map((k) => k * 48), size: fc.constant(8) })
  ),
  { minLength: 1, maxLength: 500 }
)

const toBatch = (part: Access[]): AccessBatch => batch(part.map((a) => [a.point, a.region + a.offset, a.size]))

const sortEvictors = (levels: EvictorCount[][]) => levels.map((l) => [...l].sort((a, b) => a.evictee - b.evictee || a.evictor - b.evictor))

type Sim = Hierarchy | NativeHierarchy

function results(h: Sim) {
  h.finish()
  return {
    stats: Array.from(h.pointResults()),
    extras: Array.from(h.levelExtras()),
    evictors: sortEvictors(h.evictorEntries()),
    timeline: h.timelineCells().map((c) => ({ ...c })),
    totals: h.levelTotals(),
    accesses: h.accesses
  }
}

/** Runs the trace in three batches; the point table grows before the last one. */
function simulate(make: (kinds: Uint8Array, vars: Int32Array) => Sim, kinds: Uint8Array, trace: Access[]) {
  const early = kinds.subarray(0, POINTS - 1)
  const vars = Int32Array.from([0, 1, -1, 0, 2, 1, 2])
  const h = make(early, vars.subarray(0, POINTS - 1))
  const withoutLast = trace.filter((a) => a.point < POINTS - 1)
  const third = Math.ceil(withoutLast.length / 3)
  h.run(toBatch(withoutLast.slice(0, third)))
  h.run(toBatch(withoutLast.slice(third)))
  h.setPointKinds(kinds, vars)
  h.run(toBatch(trace))
  return results(h)
}

describe('native simulator', () => {
  it('gives exactly the reference model results on random configurations and traces (both native paths)', () => {
    fc.assert(
      fc.property(configArb, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: POINTS, maxLength: POINTS }), traceArb, fc.integer({ min: 1, max: 60 }), (config, kindList, trace, interval) => {
        const kinds = Uint8Array.from(kindList)
        const options = (vars: Int32Array) => ({ pointVariables: vars, variableCount: 3, timelineInterval: interval })
        const reference = simulate((k, v) => new Hierarchy(config, k, options(v)), kinds, trace)
        // Split (TLB levels in a Sim of their own) and not, on both paths.
        expect(simulate((k, v) => new NativeHierarchy(config, k, { ...options(v), tlbThread: true }), kinds, trace)).toEqual(reference)
        expect(simulate((k, v) => new NativeHierarchy(config, k, { ...options(v), tlbThread: false }), kinds, trace)).toEqual(reference)
        expect(simulate((k, v) => new NativeHierarchy(config, k, { ...options(v), fastPath: false, tlbThread: true }), kinds, trace)).toEqual(reference)
      }),
      { numRuns: 400 }
    )
  })

  it('makes a large level\'s sets on their first use (past LEVEL_EAGER_POSITIONS) with exactly the reference results', () => {
    // 2^17 sets: the native level is calloc'd and sets are emptied on first use (sim/level.h),
    // where the reference model sets every position up front.
    const config = fc.boolean().chain((compatible) =>
      fc
        .tuple(levelArb('L1', compatible), levelArb('L2', compatible).map((l) => ({ ...l, size: 2 ** 17 * l.assoc * l.lineSize })))
        .map((levels): HierarchyConfig => ({ levels, tlb: [], cachegrindCompatible: compatible }))
    )
    fc.assert(
      fc.property(config, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: POINTS, maxLength: POINTS }), traceArb, (c, kindList, trace) => {
        const kinds = Uint8Array.from(kindList)
        const options = (vars: Int32Array) => ({ pointVariables: vars, variableCount: 3, timelineInterval: 7 })
        const reference = simulate((k, v) => new Hierarchy(c, k, options(v)), kinds, trace)
        expect(simulate((k, v) => new NativeHierarchy(c, k, options(v)), kinds, trace)).toEqual(reference)
        expect(simulate((k, v) => new NativeHierarchy(c, k, { ...options(v), fastPath: false }), kinds, trace)).toEqual(reference)
      }),
      { numRuns: 25 }
    )
  })

  it('with points sharing a stride detector (pointParents), as the reference model', () => {
    fc.assert(
      fc.property(configArb, traceArb, fc.array(fc.integer({ min: 0, max: POINTS - 1 }), { minLength: POINTS, maxLength: POINTS }), fc.constantFrom(48, 64, 256), (config, random, parentList, stride) => {
        const kinds = new Uint8Array(POINTS)
        const pointParents = Uint32Array.from(parentList)
        // A strided walk taken by the points in turn: only a shared detector sees its stride.
        const walk = Array.from({ length: 60 }, (_, j): Access => ({ point: j % POINTS, region: 2 ** 26, offset: j * stride, size: 8 }))
        const trace = [...random, ...walk]
        const reference = new Hierarchy(config, kinds, { pointParents })
        const native = new NativeHierarchy(config, kinds, { pointParents, fastPath: false })
        reference.run(toBatch(trace))
        native.run(toBatch(trace))
        expect(results(native)).toEqual(results(reference))
      }),
      { numRuns: 200 }
    )
  })

  it('with adaptive intervals, closes the timeline a run at its final interval closes, while points and their variables are added', () => {
    fc.assert(
      fc.property(
        configArb,
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: POINTS, maxLength: POINTS }),
        traceArb,
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        (config, kindList, trace, limit, start) => {
          const kinds = Uint8Array.from(kindList)
          // A variable per point, as a trace's first simulation keeps them; the last point (and
          // its variable, beyond the count given) arrives with the last batch.
          const vars = Int32Array.from({ length: POINTS }, (_, p) => p)
          const run = (h: Sim) => {
            const withoutLast = trace.filter((a) => a.point < POINTS - 1)
            const third = Math.ceil(withoutLast.length / 3)
            if (third > 0) h.run(toBatch(withoutLast.slice(0, third)))
            if (withoutLast.length > third) h.run(toBatch(withoutLast.slice(third)))
            h.setPointKinds(kinds, vars)
            h.run(toBatch(trace))
            return results(h)
          }
          const adaptive = new NativeHierarchy(config, kinds.subarray(0, POINTS - 1), { pointVariables: vars.subarray(0, POINTS - 1), variableCount: 1, timelineInterval: start, adaptiveIntervals: limit })
          const got = run(adaptive)
          const width = adaptive.timelineInterval
          const doublings = Math.log2(width / start)
          expect(Number.isInteger(doublings)).toBe(true)
          // Bounded: at most 2 x limit intervals; and doubled only once 2 x limit intervals of
          // half the width had begun (so half the width could not have held the run in `limit`).
          expect(Math.ceil(got.accesses / width)).toBeLessThanOrEqual(2 * limit)
          if (doublings > 0) expect(got.accesses).toBeGreaterThan(((2 * limit - 1) * width) / 2)
          const reference = new Hierarchy(config, kinds.subarray(0, POINTS - 1), { pointVariables: vars.subarray(0, POINTS - 1), variableCount: POINTS, timelineInterval: width })
          expect(got).toEqual(run(reference))
        }
      ),
      { numRuns: 300 }
    )
  })

  it('runs a batch on the thread pool (runAsync) to exactly the results of run, and refuses other calls meanwhile', async () => {
    const samples = fc.sample(fc.tuple(configArb, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: POINTS, maxLength: POINTS }), traceArb), { numRuns: 40, seed: 13 })
    for (const [config, kindList, trace] of samples) {
      const kinds = Uint8Array.from(kindList)
      const options = { pointVariables: Int32Array.from([0, 1, -1, 0, 2, 1, 2]), variableCount: 3, timelineInterval: 7 }
      const sync = new NativeHierarchy(config, kinds, options)
      const pool = new NativeHierarchy(config, kinds, options)
      const half = Math.ceil(trace.length / 2)
      for (const part of [trace.slice(0, half), trace.slice(half)]) {
        if (part.length === 0) continue
        const b = toBatch(part)
        const running = pool.runAsync(b)
        expect(() => pool.run(b)).toThrow(/a batch is still running/)
        expect(await running).toBe(sync.run(b))
      }
      expect(results(pool)).toEqual(results(sync))
    }
  })

  it('runs TLB levels on a thread of their own to exactly the results of one pass (batches past the threshold)', async () => {
    // Long batches, so the TLB part really runs beside the caches (pair.h: PAIR_THREAD_MIN).
    const long = (seed: number, count: number): AccessBatch => {
      let x = seed
      const accesses: Array<[number, number, number]> = []
      for (let i = 0; i < count; i++) {
        x ^= x << 13
        x ^= x >>> 17
        x ^= x << 5
        const r = x >>> 0
        const point = r % POINTS
        // Streams through a few regions (one far above 2^32), random lines, straddles.
        const address = point < 3 ? 2 ** 33 + point * 2 ** 20 + i * 8 * (point + 1) : point < 5 ? (r >>> 8) % 2 ** 18 : 2 ** 20 + ((r >>> 4) % 4096) * 24
        accesses.push([point, address, [8, 4, 16, 64, 0][r % 5]!])
      }
      return batch(accesses)
    }
    const withTlb = configArb.filter((c) => (c.tlb?.length ?? 0) > 0)
    const samples = fc.sample(fc.tuple(withTlb, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: POINTS, maxLength: POINTS }), fc.boolean(), fc.boolean()), { numRuns: 12, seed: 29 })
    const batches = [long(7, 20000), long(11, 17000), long(13, 1000)]
    for (const [config, kindList, adaptive, fastPath] of samples) {
      const kinds = Uint8Array.from(kindList)
      const nLevels = config.levels.length + config.tlb!.length
      // The miss stream of a cache level, or of a TLB level (kept by the TLB part).
      for (const missLevel of [0, nLevels - 1]) {
        const options = { pointVariables: Int32Array.from([0, 1, -1, 0, 2, 1, 2]), variableCount: 3, timelineInterval: 97, adaptiveIntervals: adaptive ? 3 : 0, missLevel, fastPath }
        const one = new NativeHierarchy(config, kinds, { ...options, tlbThread: false })
        const split = new NativeHierarchy(config, kinds, { ...options, tlbThread: true })
        for (const [i, b] of batches.entries()) {
          if (i === 2) {
            split.setPointKinds(kinds, Int32Array.from([0, 1, -1, 0, 2, 1, 4]))
            one.setPointKinds(kinds, Int32Array.from([0, 1, -1, 0, 2, 1, 4]))
          }
          expect(i === 1 ? await split.runAsync(b) : split.run(b)).toBe(one.run(b))
          expect(split.lastMisses()).toEqual(one.lastMisses())
          expect(split.timelineInterval).toBe(one.timelineInterval)
        }
        expect(results(split)).toEqual(results(one))
      }
    }
  })

  it('rejects a batch it cannot simulate on the thread pool with the message run throws', async () => {
    const config: HierarchyConfig = { levels: [level(1024, 2, 64)], cachegrindCompatible: false }
    const h = new NativeHierarchy(config, Uint8Array.from([0]))
    const outside = batch([[0, 32, 8], [5, 64, 8]])
    expect(() => new NativeHierarchy(config, Uint8Array.from([0])).run(outside)).toThrow(/access point 5 is outside the point table/)
    await expect(h.runAsync(outside)).rejects.toThrow(/access point 5 is outside the point table/)
    // Settled: it takes calls again.
    expect(h.run(batch([[0, 32, 8]]))).toBe(0)
  })

  it('streams the misses of one level exactly as the reference model times them', () => {
    fc.assert(
      fc.property(configArb, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: POINTS, maxLength: POINTS }), traceArb, (config, kindList, trace) => {
        const kinds = Uint8Array.from(kindList)
        const nLevels = config.levels.length + (config.tlb?.length ?? 0)
        for (let levelIndex = 0; levelIndex < nLevels; levelIndex++) {
          // The reference: one variable for every point and an interval of one access.
          const reference = new Hierarchy(config, kinds, { pointVariables: new Int32Array(POINTS), variableCount: 1, timelineInterval: 1 })
          const native = new NativeHierarchy(config, kinds, { missLevel: levelIndex })
          const b = toBatch(trace)
          reference.run(b)
          const expected: number[] = []
          for (const c of reference.timelineCells()) if (c.level === levelIndex) for (let m = 0; m < c.misses; m++) expected.push(c.interval)
          expect(native.run(b)).toBe(expected.length)
          expect(Array.from(native.lastMisses())).toEqual(expected)
        }
      }),
      { numRuns: 150 }
    )
  })

  it('keeps evictor pairs exactly beyond the dense matrix (thousands of points)', () => {
    const points = 3000
    const kinds = new Uint8Array(points).map((_, p) => p % 3)
    const config: HierarchyConfig = { levels: [level(1024, 2, 64), level(4096, 4, 64, { name: 'L2' })], cachegrindCompatible: false }
    let x = 12345
    const accesses: Array<[number, number, number]> = []
    for (let i = 0; i < 20000; i++) {
      x ^= x << 13
      x ^= x >>> 17
      x ^= x << 5
      accesses.push([(x >>> 0) % points, ((x >>> 0) % 65536) * 8, 8])
    }
    const reference = new Hierarchy(config, kinds)
    const native = new NativeHierarchy(config, kinds)
    reference.run(batch(accesses))
    native.run(batch(accesses))
    expect(results(native)).toEqual(results(reference))
    expect(native.evictorEntries()[0]!.length).toBeGreaterThan(1000)
  })

  it('refuses what the reference model refuses, with the same message', () => {
    const kinds = Uint8Array.from([0])
    const bad: HierarchyConfig[] = [
      { levels: [], cachegrindCompatible: false },
      { levels: [level(3000, 1, 64)], cachegrindCompatible: false },
      { levels: [level(1024, 3, 64, { policy: 'plru' })], cachegrindCompatible: false },
      { levels: [level(1024, 2, 64, { prefetch: 'next-line' })], cachegrindCompatible: true }
    ]
    for (const c of bad) {
      const message = (() => {
        try {
          new Hierarchy(c, kinds)
          return 'accepted'
        } catch (e) {
          return (e as Error).message
        }
      })()
      expect(message).not.toBe('accepted')
      expect(() => new NativeHierarchy(c, kinds)).toThrow(message)
    }
    const h = new NativeHierarchy({ levels: [level(1024, 2, 64)], cachegrindCompatible: false }, kinds)
    expect(() => h.run(batch([[1, 0, 8]]))).toThrow('access point 1 is outside the point table (1)')
    expect(() => h.setPointKinds(new Uint8Array(0))).toThrow('cannot shrink')
    expect(() => h.setPointKinds(Uint8Array.from([7]))).toThrow('unknown kind')
    expect(() => new NativeHierarchy({ levels: [level(1024, 2, 64)], cachegrindCompatible: false }, kinds, { missLevel: 1 })).toThrow('level 1 is not in this hierarchy')
  })
})
