import { describe, expect, it } from 'vitest'
import { parseMethod } from './objects-command'

describe('stride objects --method', () => {
  it('parses the six forms', () => {
    expect(parseMethod('exact')).toEqual({ kind: 'exact', n: null })
    expect(parseMethod('sample:1009')).toEqual({ kind: 'sample', n: 1009 })
    expect(parseMethod('sample:10K')).toEqual({ kind: 'sample', n: 10000 })
    expect(parseMethod('search:10')).toEqual({ kind: 'search', n: 10 })
    expect(parseMethod('approx:raw').kind).toBe('approx-raw')
    expect(parseMethod('approx:loop').kind).toBe('approx-loop')
    expect(parseMethod('approx:skid').kind).toBe('approx-skid')
  })

  it('says what is accepted', () => {
    expect(() => parseMethod('approx:fast')).toThrow(/--method must be exact, sample\[:N\], search:WAYS, approx:raw, approx:loop or approx:skid, not "approx:fast"/)
    expect(parseMethod('sample')).toEqual({ kind: 'sample', n: null })
    expect(parseMethod('sample:auto')).toEqual({ kind: 'sample', n: null })
    expect(() => parseMethod('search')).toThrow(/needs a number, e\.g\. search:10/)
    expect(() => parseMethod('search:1')).toThrow(/at least 2 ways/)
    expect(() => parseMethod('sample:0')).toThrow(/positive whole number/)
  })
})
