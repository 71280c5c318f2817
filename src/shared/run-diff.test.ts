import { describe, expect, it } from 'vitest'
import type { ReferenceStats, RunReport } from './domain'
import { l1Run, readReference } from './testing/reports'
import { computeLineDeltas, computeRunDiff, prepareDiffSide } from './run-diff'

const ref = readReference
const run = l1Run

describe('run diff', () => {
  // The conflict kernel before and after padding: line 30 loses most misses, line 29 is unchanged.
  const base = run([ref('A_Read_0', 30, 'A', 0, 100), ref('B_Read_1', 30, 'B', 0, 100), ref('i_Read_2', 29, null, 99, 1)], 201)
  const padded = run([ref('A_Read_0', 30, 'A', 94, 6), ref('B_Read_1', 30, 'B', 93, 7), ref('i_Read_2', 29, null, 99, 1), ref('S_Read_3', 31, 'S', 5, 5)], 19)
  const diff = computeRunDiff(base, padded, 'L1')

  it('puts the biggest improvement first, with both ratios', () => {
    expect(diff.lines[0]).toMatchObject({ key: 'k.c:30', baseMisses: 200, misses: 13, delta: -187, baseRatio: 1, ratio: 0.065 })
    expect(diff.lines[0]!.deltaRatio).toBeCloseTo(-0.935, 6)
  })

  it('keeps lines only one run has, with an unknown ratio on the other side', () => {
    const only = diff.lines.find((r) => r.key === 'k.c:31')!
    expect(only).toMatchObject({ baseMisses: 0, misses: 5, delta: 5, baseRatio: null, ratio: 0.5, deltaRatio: null })
  })

  it('groups data structures by name, references without one under unknown', () => {
    expect(diff.variables.map((v) => [v.key, v.delta])).toEqual([
      ['A', -94],
      ['B', -93],
      ['unknown', 0],
      ['S', 5]
    ])
  })

  it('is the same with the baseline counted ahead (a what-if counts it while simulating)', () => {
    const b = run([ref('A_Read_0', 30, 'A', 0, 100), ref('B_Read_1', 30, 'B', 0, 100), ref('i_Read_2', 29, null, 99, 1)], 201)
    prepareDiffSide(b, 'L1')
    expect(computeRunDiff(b, padded, 'L1')).toEqual(diff)
    // Kept per report: another report with other figures is counted as itself.
    const other = run([ref('A_Read_0', 30, 'A', 50, 50)], 50)
    prepareDiffSide(other, 'L1')
    expect(computeRunDiff(other, padded, 'L1').lines[0]).toMatchObject({ key: 'k.c:30', baseMisses: 50, misses: 13 })
  })

  it('compares level totals by name', () => {
    expect(diff.levels).toEqual([expect.objectContaining({ key: 'L1', baseMisses: 201, misses: 19, delta: -182 })])
  })

  it('gives the heatmap per-line deltas of one file', () => {
    expect([...computeLineDeltas(diff, 'k.c')].sort((a, b) => a[0] - b[0])).toEqual([
      [29, 0],
      [30, -187],
      [31, 5]
    ])
  })

  it('a level only one run has is new, not "0 -> N" red; lines at it are not compared', () => {
    const withL2: RunReport = {
      ...padded,
      config: { ...padded.config, levels: [...padded.config.levels, { name: 'L2', size: 262144, assoc: 8, lineSize: 64, policy: 'lru' }] },
      levels: [...padded.levels, { name: 'L2', reads: 19, writes: 0, readMisses: 12, writeMisses: 0 }]
    }
    const d = computeRunDiff(base, withL2, 'L2')
    expect(d.levels.find((l) => l.key === 'L2')).toMatchObject({ onlyIn: 'current', misses: 12, delta: 0 })
    expect(d.levels.find((l) => l.key === 'L1')).toMatchObject({ delta: -182 })
    expect(d.levelMissingInBase).toBe(true)
    expect(d.lines).toEqual([])
    expect(computeRunDiff(withL2, base, 'L1').levels.find((l) => l.key === 'L2')).toMatchObject({ onlyIn: 'base', baseMisses: 12 })
  })
})

describe('run diff of a reference touching several data structures', () => {
  // One read of a 2 x 1 split (a and b), padded so that its misses fall from 90 to 30.
  const touching = (misses: number): ReferenceStats => ({
    ...ref('p_Read_0', 10, 'a', 90 - misses, misses),
    touches: [
      { variable: 'a', accesses: 60 },
      { variable: 'b', accesses: 30 }
    ]
  })
  const diff = computeRunDiff(run([touching(90)], 90), run([touching(30)], 30), 'L1')

  it('credits each structure with its share, as report --by variable does, and lists the reference by id', () => {
    expect(diff.variables.map((v) => [v.key, v.baseMisses, v.misses, v.delta])).toEqual([
      ['a', 60, 20, -40],
      ['b', 30, 10, -20]
    ])
    expect(diff.references).toEqual([expect.objectContaining({ key: 'p_Read_0', baseMisses: 90, misses: 30, delta: -60 })])
  })
})

describe('run diff of two sessions whose traces saw different points', () => {
  // The same build traced whole (base) and with --functions do_mult (current): the current
  // trace has none of init's points, and names do_mult's local `k` where the whole trace,
  // which entered do_mult from a frame it did not name, says unknown.
  const whole = run([ref('a_Write_5@init+0x10', 5, 'a', 0, 50), ref('b_Read_42@do_mult+0x1c', 42, 'b', 10, 90), ref('unknown_Read_41@do_mult+0x8', 41, null, 99, 1)], 141)
  const scoped = run([ref('b_Read_42@do_mult+0x1c', 42, 'b', 70, 30), ref('k_Read_41@do_mult+0x8', 41, 'k', 99, 1)], 31)
  const diff = computeRunDiff(whole, scoped, 'L1')

  it('matches references by their instruction, named as the current session names them', () => {
    expect(diff.references.map((r) => [r.key, r.baseKey, r.baseMisses, r.misses])).toEqual([
      ['b_Read_42@do_mult+0x1c', undefined, 90, 30],
      ['a_Write_5@init+0x10', undefined, 50, 0],
      ['k_Read_41@do_mult+0x8', 'unknown_Read_41@do_mult+0x8', 1, 1]
    ])
  })
})
