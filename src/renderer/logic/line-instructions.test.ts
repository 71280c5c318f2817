import { describe, expect, it } from 'vitest'
import type { ReferenceStats } from '../../shared/domain'
import { computeLineInstructions } from './line-instructions'

const ref = (id: string, pc: string, disasm: string | null, misses: number): ReferenceStats => ({
  id, pc, kind: 'read', file: '/s/lz4.c', line: 837, function: 'f', variable: 'hashTable', disasm, reads: 100, writes: 0,
  levels: { D1: { hits: 100 - misses, misses, readMisses: misses, writeMisses: 0 } }
})

describe('computeLineInstructions', () => {
  it('lists a line\'s instructions in address order with their reference and counts per level', () => {
    const rows = computeLineInstructions([ref('h_Read_837@f+0xaaf', '0x10faaf', 'mov (%r8),%eax', 40), ref('h_Read_837@f+0xa4e', '0x10fa4e', 'mov (%rsi),%eax', 5), ref('point_3', '0x10ffff', null, 0)], ['D1', 'LL'])
    expect(rows.map((r) => [r.place, r.disasm, r.reference])).toEqual([
      ['f+0xa4e', 'mov (%rsi),%eax', 'h_Read_837@f+0xa4e'],
      ['f+0xaaf', 'mov (%r8),%eax', 'h_Read_837@f+0xaaf'],
      ['0x10ffff', null, 'point_3']
    ])
    expect(rows[1]!.accesses).toBe(100)
    expect(rows[1]!.levels).toEqual([{ level: 'D1', misses: 40, ratio: 0.4 }, { level: 'LL', misses: 0, ratio: null }])
  })
})
