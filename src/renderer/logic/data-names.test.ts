import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { computeDataNames, describeData, expressionBase } from './data-names'

describe('expressionBase', () => {
  it('reads the variable an expression names', () => {
    expect(expressionBase('hashTable[h]')).toBe('hashTable')
    expect(expressionBase('*token')).toBe('token')
    expect(expressionBase('cctx -> dictSize')).toBe('cctx->dictSize')
    expect(expressionBase('s.buf[i][j]')).toBe('s.buf')
    expect(expressionBase('(*p)')).toBe('p')
    expect(expressionBase('42')).toBeNull()
  })
})

describe('computeDataNames', () => {
  const ref = (variable: string, sourceExpr: string | null, reads: number, touches?: Array<{ variable: string; accesses: number }>) =>
    ({ id: `${variable}_${reads}`, pc: '0x1', kind: 'read', file: null, line: null, function: null, variable, sourceExpr, reads, writes: 0, levels: {}, ...(touches ? { touches } : {}) })
  it('names a site-only heap block by its most used source name, and leaves named structures alone', () => {
    const report = {
      references: [
        ref('heap@lz4frame.c:123', 'hashTable[h]', 1000),
        ref('heap@lz4frame.c:123', 'cctx->dictSize', 5),
        ref('heap@lz4frame.c:123', 'hashTable[h]', 700),
        ref('ress.srcBuffer', 'ip[0]', 9000),
        // A reference over two structures votes for each with its share of the accesses.
        ref('heap@x.c:9', 'buf[i]', 10, [{ variable: 'heap@x.c:9', accesses: 4 }, { variable: 'heap@y.c:2', accesses: 6 }]),
        ref('heap@z.c:1', null, 50)
      ]
    } as unknown as RunReport
    const names = computeDataNames(report)
    expect(names.get('heap@lz4frame.c:123')).toEqual({ label: 'hashTable', site: 'heap@lz4frame.c:123' })
    expect(names.get('heap@y.c:2')?.label).toBe('buf')
    expect(names.has('ress.srcBuffer')).toBe(false)
    expect(names.has('heap@z.c:1')).toBe(false)
    expect(describeData(names, 'heap@lz4frame.c:123')).toBe('hashTable (heap@lz4frame.c:123)')
    expect(describeData(names, 'ress.srcBuffer')).toBe('ress.srcBuffer')
  })
})
