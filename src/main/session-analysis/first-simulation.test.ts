/**
 * The first simulation's timeline fold: cells kept per data structure as the correlator found
 * them, stored per name exactly as a simulation keyed by names stores them (same cells, same
 * order), checked against the native simulator run both ways on random traces.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { NativeHierarchy } from '../simulate/native-hierarchy'
import { batch, level } from '../simulate/test-fixtures'
import { foldTimeline } from './first-simulation'
import { timelineVariables } from './session-simulation'

describe('foldTimeline', () => {
  it('sums groups of one name, in interval, level, then first-point order of the names', () => {
    // Points 0..3 in groups 0,1,2,1; named b, a, b, a (groups 0 and 2 are both "b").
    const cells = [
      { level: 0, variable: 2, interval: 0, misses: 1 },
      { level: 0, variable: 0, interval: 0, misses: 2 },
      { level: 1, variable: 1, interval: 0, misses: 5 },
      { level: 0, variable: 1, interval: 3, misses: 4 }
    ]
    expect(foldTimeline(cells, Int32Array.from([0, 1, 2, 1]), ['b', 'a', 'b', 'a'])).toEqual([
      { level: 0, variable: 'b', interval: 0, misses: 3 },
      { level: 1, variable: 'a', interval: 0, misses: 5 },
      { level: 0, variable: 'a', interval: 3, misses: 4 }
    ])
  })

  it('names points of no data structure "unknown", and refuses a group whose points were named apart', () => {
    expect(foldTimeline([{ level: 0, variable: 0, interval: 1, misses: 2 }], Int32Array.from([0]), [null])).toEqual([{ level: 0, variable: 'unknown', interval: 1, misses: 2 }])
    expect(foldTimeline([], Int32Array.from([0, 0]), ['a', 'b'])).toBeNull()
  })

  it('gives the cells of a simulation keyed by names, from one keyed by groups', () => {
    const points = 6
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: points, maxLength: points }),
        fc.array(fc.constantFrom('x', 'y', null), { minLength: 4, maxLength: 4 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: points - 1 }), fc.integer({ min: 0, max: 4095 })), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 1, max: 50 }),
        (groupOf, groupNames, trace, interval) => {
          // Dense group indexes, as the trace's worker makes them.
          const dense = new Map<number, number>()
          const groups = Int32Array.from(groupOf, (g) => dense.get(g) ?? (dense.set(g, dense.size), dense.size - 1))
          const names = groupOf.map((g) => groupNames[g]!)
          const config = { levels: [level(512, 2, 64), level(2048, 4, 64, { name: 'L2' })], cachegrindCompatible: false }
          const kinds = new Uint8Array(points)
          const accesses = batch(trace.map(([p, a]) => [p, a * 8, 8]))
          const byGroup = new NativeHierarchy(config, kinds, { pointVariables: groups, variableCount: dense.size, timelineInterval: interval })
          const { variables, pointVariables } = timelineVariables(names)
          const byName = new NativeHierarchy(config, kinds, { pointVariables, variableCount: variables.length, timelineInterval: interval })
          for (const h of [byGroup, byName]) {
            h.run(accesses)
            h.finish()
          }
          const expected = byName.timelineCells().map((c) => ({ ...c, variable: variables[c.variable]! }))
          expect(foldTimeline(byGroup.timelineCells(), groups, names)).toEqual(expected)
        }
      ),
      { numRuns: 200 }
    )
  })
})
