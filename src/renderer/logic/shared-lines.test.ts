import { describe, expect, it } from 'vitest'
import { computeSharedLineRows } from './shared-lines'
import type { SharedLines } from '../../shared/domain'

const fp = (field: string | null, offset: number, trueSharing = false) => ({ field, offset, size: 8, accesses: 3, reads: 3, writes: 3, reference: 'r', sourceExpr: null, trueSharing })

describe('shared line rows', () => {
  it('say per line its structures, verdict, each thread\'s fields and the two figures', () => {
    const s: SharedLines = {
      lineSize: 64,
      threads: [2, 3],
      note: 'n',
      variables: [],
      lines: [
        {
          address: '0x4040',
          variables: ['counters'],
          threads: [
            { thread: 2, reads: 3, writes: 3, footprints: [fp('counters[0]', 0), fp('counters[0]', 0)] },
            { thread: 3, reads: 3, writes: 3, footprints: [fp(null, 8, true)] }
          ],
          interleavings: 1,
          recorded: { trueSharing: 1, falseSharing: 2 },
          fineEstimate: { trueSharing: 3, falseSharing: 4 },
          verdict: 'false-sharing'
        },
        { address: '0x8000', variables: [], threads: [], interleavings: 0, recorded: { trueSharing: 0, falseSharing: 0 }, fineEstimate: { trueSharing: 5, falseSharing: 0 }, verdict: 'true-sharing' }
      ]
    }
    const [a, b] = computeSharedLineRows(s)
    expect(a).toMatchObject({ address: '0x4040', variables: 'counters', verdict: 'false sharing', recordedTotal: 3, recordedFalse: 2, estimateTotal: 7, estimateFalse: 4, interleavings: 1 })
    expect(a!.threads).toEqual([
      { thread: 2, fields: 'counters[0]', reads: 3, writes: 3, trueSharing: false },
      { thread: 3, fields: '+8', reads: 3, writes: 3, trueSharing: true }
    ])
    expect(b).toMatchObject({ variables: 'unknown', verdict: 'true sharing', estimateTotal: 5 })
  })
})
