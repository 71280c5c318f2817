import { describe, expect, it } from 'vitest'
import { coresFlags, elementPerLine, sharingAdvice, type SharingAdviceContext } from './sharing-advice'
import type { SharedStructure } from '../../../shared/domain'

const structure = (over: Partial<SharedStructure>): SharedStructure => ({
  variable: 'counters',
  lines: 1,
  recorded: { trueSharing: 0, falseSharing: 2 },
  fineEstimate: { trueSharing: 0, falseSharing: 800 },
  references: ['counters_Modify_24@bump+0x5'],
  threads: [2, 3, 4, 5],
  fieldsByThread: [2, 3, 4, 5].map((t, i) => ({ thread: t, fields: [`counters[${i}]`] })),
  interleavings: 3,
  ...over
})

const ctx = (layout: { size: number; elementSize: number | null } | null): SharingAdviceContext => ({
  lineSize: 64,
  levels: [
    { name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' },
    { name: 'LL', size: 8388608, assoc: 16, lineSize: 64, policy: 'lru', shared: true }
  ],
  totalMisses: 200,
  locationOf: () => 'counters.c:24',
  layoutOf: () => layout
})

describe('sharing advice', () => {
  it('calls different bytes false sharing and pads each element onto its own line, on as many cores as threads', () => {
    const [item] = sharingAdvice([structure({})], ctx({ size: 32, elementSize: 8 }))
    expect(item).toMatchObject({ diagnosis: 'false-sharing', variables: ['counters'], locations: ['counters.c:24'], misses: 800, share: 0.8 })
    expect(item!.evidence.join(' ')).toMatch(/estimate, an upper bound\): 800 .*recorded order: 2/)
    expect(item!.action).toMatchObject({ kind: 'cores', cores: 4, interleave: 1, layout: [{ kind: 'internal', variable: 'counters', dim: 1, extent: 8, dims: [4, 1], elementSize: 8 }] })
    expect(item!.action?.kind === 'cores' && item!.action.command).toBe(
      '--cores 4 --interleave 1 --cache L1:32768:8:64:lru --cache LL:8388608:16:64:lru:shared --dims counters=4x1@8 --pad-dim counters=1:8'
    )
  })

  it('calls the same bytes true sharing, with no padding; nothing without estimated misses', () => {
    const items = sharingAdvice([structure({ fineEstimate: { trueSharing: 900, falseSharing: 10 } }), structure({ variable: 'quiet', fineEstimate: { trueSharing: 0, falseSharing: 0 } })], ctx({ size: 32, elementSize: 8 }))
    expect(items).toHaveLength(1)
    expect(items[0]).toMatchObject({ diagnosis: 'true-sharing', misses: 910 })
    expect(items[0]!.action).toBeUndefined()
  })

  it('offers no element padding when the elements are unknown, a line or larger, or one', () => {
    expect(elementPerLine('a', null, 64)).toBeNull()
    expect(elementPerLine('a', { size: 256, elementSize: null }, 64)).toBeNull()
    expect(elementPerLine('a', { size: 256, elementSize: 64 }, 64)).toBeNull()
    expect(elementPerLine('a', { size: 8, elementSize: 8 }, 64)).toBeNull()
    // 24-byte elements: a stride of 8 of them is 3 whole lines (3 would leave elements 6 and 7 on one line).
    expect(elementPerLine('a', { size: 48, elementSize: 24 }, 64)).toMatchObject({ dims: [2, 1], extent: 8 })
    const [item] = sharingAdvice([structure({})], ctx(null))
    expect(item!.action).toBeUndefined()
    expect(item!.suggestion).toMatch(/fields each thread writes on lines of their own/)
  })

  it('writes a layout filter as the flags simulate reads', () => {
    expect(coresFlags(2, 4, ctx(null).levels.slice(0, 1), [{ kind: 'external', variable: 'b', bytes: 64 }])).toBe('--cores 2 --interleave 4 --cache L1:32768:8:64:lru --pad b=64')
  })
})
