import { describe, expect, it } from 'vitest'
import { parseSliceQuery } from '../../../shared/slice-notation'
import { unknownSliceNames, type SessionNames } from './slice-names'

const NAMES: SessionNames = { variables: ['A', 'B', 'C', 'unknown'], functions: ['sumfunc', 'main'], files: ['/src/ex/conflict.c'] }
const check = (q: string) => unknownSliceNames(parseSliceQuery(q), NAMES)

describe('unknownSliceNames', () => {
  it('accepts names the run has, *, unknown, files by base name and sections', () => {
    expect(check('[{A,B,unknown},{sumfunc,conflict.c,conflict.c:30},{misses}]')).toBeNull()
    expect(check('[{*,A[*]},{*},{misses}]')).toBeNull()
  })
  it('names an unknown function and the close one', () => {
    expect(check('[{A},{sumfnc},{misses}]')).toBe('Query: no traced function "sumfnc"; did you mean sumfunc?')
  })
  it('names an unknown data structure with the known ones when none is close', () => {
    expect(check('[{Q},{*},{misses}]')).toBe('Query: no data structure "Q" in this run; its data structures are A, B, C, unknown.')
  })
  it('names unknown files in file, line and loop items, all problems at once', () => {
    expect(check('[{A},{nofile.c,nofile.c:3,loop@conflcit.c:28},{misses}]')).toBe(
      'Query: no source file "nofile.c" (in nofile.c) among the traced references; its files are conflict.c. ' +
        'no source file "nofile.c" (in nofile.c:3) among the traced references; its files are conflict.c. ' +
        'no source file "conflcit.c" (in loop@conflcit.c:28) among the traced references; did you mean conflict.c?'
    )
  })
})
