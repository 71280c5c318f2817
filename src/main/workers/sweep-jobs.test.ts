import { describe, expect, it } from 'vitest'
import type { HierarchyConfig } from '../../shared/domain'
import { level } from '../simulate/test-fixtures'
import { sweepJobs } from './sweep-jobs'

const d1 = level(32768, 8, 64, { name: 'D1' })
const config = (levels = [d1, level(8 << 20, 16, 64, { name: 'LL' })], extra: Partial<HierarchyConfig> = {}): HierarchyConfig => ({ levels, tlb: [], cachegrindCompatible: false, ...extra })
const ll = (size: number) => config([d1, level(size, 16, 64, { name: 'LL' })])

describe('sweepJobs', () => {
  it('keeps hierarchies that share a first level on one worker', () => {
    expect(sweepJobs([ll(1 << 20), ll(4 << 20), ll(8 << 20), ll(32 << 20)], 2)).toEqual([[0, 1, 2, 3]])
  })

  it('spreads the others, largest first, to the least loaded worker', () => {
    const other = (size: number) => config([level(size, 8, 64, { name: 'D1' })])
    expect(sweepJobs([other(16384), ll(1 << 20), other(65536), ll(4 << 20), other(131072)], 2)).toEqual([[1, 3, 4], [0, 2]])
    expect(sweepJobs([other(16384), other(65536), other(131072)], 2)).toEqual([[0, 2], [1]])
    expect(sweepJobs([other(16384)], 4)).toEqual([[0]])
  })

  it('never shares a first level under a layout filter or a transform, nor across timeline intervals', () => {
    const padded = config(undefined, { layout: [{ kind: 'external', variable: 'A', bytes: 64 }] })
    expect(sweepJobs([ll(1 << 20), padded], 2)).toEqual([[0], [1]])
    expect(sweepJobs([ll(1 << 20), { ...ll(4 << 20), timelineInterval: 1000 }], 2)).toEqual([[0], [1]])
  })
})
