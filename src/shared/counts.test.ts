import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { groupDigits } from './counts'

describe('groupDigits', () => {
  it('writes integers as toLocaleString("en-US") does', () => {
    for (const n of [0, 7, 999, 1000, 12345, 999999, 1000000, 52428800, -1, -1234567, Number.MAX_SAFE_INTEGER]) expect(groupDigits(n)).toBe(n.toLocaleString('en-US'))
    fc.assert(fc.property(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), (n) => groupDigits(n) === n.toLocaleString('en-US')))
  })

  it('rounds a fraction to the nearest integer', () => {
    expect(groupDigits(1234.6)).toBe('1,235')
    expect(groupDigits(-0.4)).toBe('0')
  })
})
