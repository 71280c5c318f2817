import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { EVICTOR_WIDTH, POINT_WIDTH, compareText, flatRows, orNull } from './run-rows'

describe('flat run rows', () => {
  it('flatten rows read back in the columns\' order, NULL as NaN, and read NaN back as NULL', () => {
    const rows = [
      [0, 0, 10, 2, 1, 0, 5, 6, 48, 3],
      [0, 1, 1, 0, 1, 0, null, null, null, null],
      [7, 0, 2 ** 40, 0, 3, 0, 0, 0, 0, 0]
    ]
    const flat = flatRows(rows, POINT_WIDTH)
    expect(flat.length).toBe(3 * POINT_WIDTH)
    const back = Array.from({ length: 3 }, (_, i) => Array.from(flat.subarray(i * POINT_WIDTH, (i + 1) * POINT_WIDTH), orNull))
    expect(back).toEqual(rows)
    expect(flatRows([], EVICTOR_WIDTH)).toEqual(new Float64Array(0))
  })
})

describe('compareText', () => {
  const utf8 = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')))
  it('orders text as SQLite does (UTF-8 bytes), where a character beyond U+FFFF sorts after U+E000-U+FFFF', () => {
    expect(Math.sign(compareText('\u{1F600}', '\uFF01'))).toBe(1)
    expect('\u{1F600}' < '\uFF01').toBe(true) // what JavaScript's own order says
    expect(Math.sign(compareText('B', 'A'))).toBe(1)
    expect(Math.sign(compareText('ab', 'abc'))).toBe(-1)
    expect(compareText('std::map<int>', 'std::map<int>')).toBe(0)
    // Well-formed text (a lone surrogate is stored as U+FFFD: not the same string back).
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => Math.sign(compareText(a, b)) === utf8(a, b)))
  })
})
