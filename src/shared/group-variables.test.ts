import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ReferenceStats, RunReport } from './domain'
import { apportion, groupVariables } from './report-model'

function ref(id: string, variable: string, reads: number, misses: number, touches?: Array<{ variable: string; accesses: number }>): ReferenceStats {
  return { id, pc: '0x1', kind: 'read', file: 'k.c', line: 3, function: 'f', variable, reads, writes: 0, levels: { L1: { hits: reads - misses, misses, readMisses: misses, writeMisses: 0 } }, ...(touches ? { touches } : {}) }
}

function report(references: ReferenceStats[]): RunReport {
  return { run: 1, config: { levels: [{ name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false }, levels: [], lines: [], references }
}

describe('report --by variable, per access', () => {
  it('a reference that touches two arrays (two threads, one function) credits each its own accesses', () => {
    // sum() read a 1,000,000 times and b 1,000,000 times: not all 2M to a.
    const rows = groupVariables(report([ref('a_Read_0', 'a', 2_000_000, 250_000, [{ variable: 'a', accesses: 1_000_000 }, { variable: 'b', accesses: 1_000_000 }])]))
    const by = new Map(rows.map((r) => [r.variable, r]))
    expect(by.get('a')).toMatchObject({ reads: 1_000_000, apportioned: true })
    expect(by.get('b')).toMatchObject({ reads: 1_000_000, apportioned: true })
    expect(by.get('a')!.levels.L1!.misses! + by.get('b')!.levels.L1!.misses!).toBe(250_000)
  })

  it('per-variable accesses sum to the per-access truth; one-structure references are unchanged', () => {
    const rows = groupVariables(
      report([
        ref('p_Read_0', 'h', 100, 10, [{ variable: 'h', accesses: 70 }, { variable: 'g', accesses: 20 }, { variable: 'local', accesses: 10 }]),
        ref('g_Read_1', 'g', 50, 5)
      ])
    )
    const by = new Map(rows.map((r) => [r.variable, r]))
    expect([by.get('h')!.reads, by.get('g')!.reads, by.get('local')!.reads]).toEqual([70, 70, 10])
    expect(rows.reduce((a, r) => a + r.reads, 0)).toBe(150)
    expect(by.get('g')!.apportioned).toBe(true)
  })
})

describe('report --by variable, as the run counted it', () => {
  it('takes each part of a reference from its own counts, not from access shares', () => {
    const whole = ref('a_Read_0', 'a', 200, 100, [
      { variable: 'a', accesses: 100 },
      { variable: 'b', accesses: 100 }
    ])
    whole.touches![0] = { ...whole.touches![0]!, reads: 100, writes: 0, levels: { L1: { hits: 99, misses: 1, readMisses: 1, writeMisses: 0 } } }
    whole.touches![1] = { ...whole.touches![1]!, reads: 100, writes: 0, levels: { L1: { hits: 1, misses: 99, readMisses: 99, writeMisses: 0 } } }
    const by = new Map(groupVariables(report([whole])).map((r) => [r.variable, r]))
    expect([by.get('a')!.levels.L1!.misses, by.get('b')!.levels.L1!.misses]).toEqual([1, 99])
    expect(by.get('a')!.apportioned).toBeUndefined()
  })
})

describe('apportion (the one splitting rule)', () => {
  it('gives whole numbers that add up exactly, each within 1 of its exact share', () => {
    fc.assert(
      fc.property(fc.nat(1e9), fc.array(fc.nat(1e6), { minLength: 1, maxLength: 8 }), (total, weights) => {
        const parts = apportion(total, weights)
        expect(parts.reduce((a, n) => a + n, 0)).toBe(total)
        const sum = weights.reduce((a, w) => a + w, 0)
        parts.forEach((n, i) => {
          expect(Number.isInteger(n)).toBe(true)
          if (sum > 0) expect(Math.abs(n - (total * weights[i]!) / sum)).toBeLessThan(1)
        })
      })
    )
    expect(apportion(10, [1, 1, 1])).toEqual([4, 3, 3])
    expect(apportion(7, [0, 0])).toEqual([7, 0])
  })
})
