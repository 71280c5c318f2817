import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { csvField, exportFileName, toCsv, toJson } from './export'

/** A small RFC 4180 reader, to check that what we write reads back to the same cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [[]]
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++
      else if (ch === '"') quoted = false
      else field += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') rows.at(-1)!.push(field), (field = '')
    else if (ch === '\r' && text[i + 1] === '\n') rows.at(-1)!.push(field), (field = ''), rows.push([]), i++
    else field += ch
  }
  rows.at(-1)!.push(field)
  return rows
}

describe('toCsv', () => {
  it('quotes commas, quotes, line breaks and edge spaces; leaves plain text and numbers bare', () => {
    expect(toCsv({ columns: ['data', 'misses'], rows: [['A', 8192], ['c[*,1]', 0.5], ['say "hi"', null], ['two\nlines', 1], [' pad', -3]] })).toBe(
      'data,misses\r\nA,8192\r\n"c[*,1]",0.5\r\n"say ""hi""",\r\n"two\nlines",1\r\n" pad",-3'
    )
  })

  it('defuses text a spreadsheet would run as a formula', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`)
    expect(csvField('+1')).toBe("'+1")
    expect(csvField(-1)).toBe('-1')
  })

  it('refuses ragged rows', () => {
    expect(() => toCsv({ columns: ['a', 'b'], rows: [['x']] })).toThrow(/row 1 has 1 cells, the header 2/)
  })

  it('reads back to the same text cells', () => {
    const cell = fc.string({ maxLength: 12 }).filter((s) => !/^[=+\-@\t\r]/.test(s))
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { maxLength: 6 }), (rows) => {
        expect(parseCsv(toCsv({ columns: ['a', 'b', 'c'], rows }))).toEqual([['a', 'b', 'c'], ...rows])
      })
    )
  })
})

describe('toJson', () => {
  it('writes objects keyed by column, with null for missing and non-finite values', () => {
    expect(JSON.parse(toJson({ columns: ['data', 'misses', 'ratio'], rows: [['A', 8192, Number.NaN], ['B', undefined, 1]] }))).toEqual([
      { data: 'A', misses: 8192, ratio: null },
      { data: 'B', misses: null, ratio: 1 }
    ])
  })
})

describe('exportFileName', () => {
  it('keeps letters, digits, dot, dash and underscore', () => {
    expect(exportFileName('slice [{A,B},{sumfunc},{misses}]', 'csv')).toBe('slice-A-B-sumfunc-misses.csv')
    expect(exportFileName('///', 'png')).toBe('stride-export.png')
  })
})
