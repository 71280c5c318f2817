import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { prefetchOutcomes } from './prefetch-note'

const run = (levels: RunReport['levels']): RunReport => ({ run: 2, config: { levels: [], cachegrindCompatible: false }, levels, lines: [], references: [] })

describe('prefetchOutcomes', () => {
  it('reports issued and useful prefetches of the cache levels that prefetched, not of TLB levels', () => {
    const r = run([
      { name: 'D1', reads: 10, writes: 0, readMisses: 1, writeMisses: 0, kind: 'cache', prefetches: 12345, usefulPrefetches: 9876 },
      { name: 'LL', reads: 1, writes: 0, readMisses: 1, writeMisses: 0, kind: 'cache', prefetches: 0, usefulPrefetches: 0 },
      { name: 'DTLB', reads: 10, writes: 0, readMisses: 1, writeMisses: 0, kind: 'tlb', prefetches: 5 }
    ])
    expect(prefetchOutcomes(r)).toEqual(['D1: 12,345 prefetches, 9,876 used before they left (80%)'])
  })
  it('says nothing for a run without prefetches', () => {
    expect(prefetchOutcomes(run([{ name: 'D1', reads: 1, writes: 0, readMisses: 0, writeMisses: 0 }]))).toEqual([])
  })
})
