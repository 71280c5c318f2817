import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { METRIC_NAMES, parseSliceQuery, printSliceQuery, SliceParseError, type CodeItem, type DataItem, type DimSelector, type MetricItem, type SliceQuery } from './slice-notation'

function parseError(text: string): SliceParseError {
  try {
    parseSliceQuery(text)
  } catch (e) {
    if (e instanceof SliceParseError) return e
    throw e
  }
  throw new Error(`"${text}" parsed`)
}

describe('parseSliceQuery', () => {
  it("reads SIGMA's example: whole arrays, a column section, a function, a metric", () => {
    expect(parseSliceQuery('[{a,b,c[*,1]},{foo},{loads}]')).toEqual({
      data: [
        { name: 'a', section: null },
        { name: 'b', section: null },
        { name: 'c', section: [{ kind: 'all' }, { kind: 'index', index: 1 }] }
      ],
      code: [{ kind: 'function', name: 'foo' }],
      metrics: [{ level: null, name: 'loads' }]
    })
  })

  it('tells code regions apart by shape: function, file, lines, line range, loop, all', () => {
    const q = parseSliceQuery('[ {*} , {sumfunc, conflict.c, conflict.c:30, src/m.c:28-33, loop@conflict.c:28, *}, {L2.misses, miss_ratio} ]')
    expect(q.code).toEqual<CodeItem[]>([
      { kind: 'function', name: 'sumfunc' },
      { kind: 'file', file: 'conflict.c' },
      { kind: 'lines', file: 'conflict.c', from: 30, to: 30 },
      { kind: 'lines', file: 'src/m.c', from: 28, to: 33 },
      { kind: 'loop', file: 'conflict.c', line: 28 },
      { kind: 'all' }
    ])
    expect(q.data).toEqual([{ name: '*', section: null }])
    expect(q.metrics).toEqual<MetricItem[]>([
      { level: 'L2', name: 'misses' },
      { level: null, name: 'miss_ratio' }
    ])
  })

  it('reads ranges and quoted names', () => {
    const q = parseSliceQuery('[{"heap@list.c:42"[2:5], "my var"},{"ns::f(int)"},{stores}]')
    expect(q.data[0]).toEqual({ name: 'heap@list.c:42', section: [{ kind: 'range', from: 2, to: 5 }] })
    expect(q.data[1]).toEqual({ name: 'my var', section: null })
    expect(q.code[0]).toEqual({ kind: 'function', name: 'ns::f(int)' })
  })

  it('points at the column of the problem', () => {
    expect(parseError('[{A,B},{sumfunc},{mises}]')).toMatchObject({ column: 19 })
    expect(parseError('[{A,B},{sumfunc},{mises}]').message).toMatch(/unknown metric "mises".*column 19/)
    expect(parseError('[{A,B}{sumfunc},{misses}]')).toMatchObject({ column: 7 })
    expect(parseError('[{A,B},{sumfunc},{misses}')).toMatchObject({ column: 26 })
    expect(parseError('[{c[*,x]},{f},{loads}]')).toMatchObject({ column: 7 })
    expect(parseError('[{c[5:2]},{f},{loads}]').message).toMatch(/runs backwards/)
    expect(parseError('[{},{f},{loads}]').message).toMatch(/data structure set is empty/)
    expect(parseError('[{A},{f},{loads}] x')).toMatchObject({ column: 19 })
    expect(parseError('[{A},{f:x},{loads}]').message).toMatch(/FILE:LINE/)
    expect(parseError('[{A},{f},{L 2.loads}]')).toMatchObject({ column: 11 })
  })

  it('prints the canonical text', () => {
    expect(printSliceQuery(parseSliceQuery(' [ { A , B } , { sumfunc } , { misses } ] '))).toBe('[{A,B},{sumfunc},{misses}]')
    expect(printSliceQuery(parseSliceQuery('[{c[*,1],c[0:3,*]},{loop@m.c:5,m.c:1-9},{L1.loads}]'))).toBe('[{c[*,1],c[0:3,*]},{loop@m.c:5,m.c:1-9},{L1.loads}]')
  })
})

// Round trip: any query prints to text that parses back to the same query.
const name = fc.oneof(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/), fc.string({ minLength: 1, maxLength: 8 }))
const dim: fc.Arbitrary<DimSelector> = fc.oneof(
  fc.constant<DimSelector>({ kind: 'all' }),
  fc.nat(10000).map<DimSelector>((index) => ({ kind: 'index', index })),
  fc.tuple(fc.nat(100), fc.nat(100)).map<DimSelector>(([a, b]) => ({ kind: 'range', from: Math.min(a, b), to: Math.max(a, b) }))
)
const dataItem: fc.Arbitrary<DataItem> = fc.oneof(
  fc.constant<DataItem>({ name: '*', section: null }),
  fc.record({ name, section: fc.option(fc.array(dim, { minLength: 1, maxLength: 3 }), { nil: null }) })
)
const file = fc.stringMatching(/^[a-z][a-z0-9_/]{0,8}\.[ch]$/)
const codeItem: fc.Arbitrary<CodeItem> = fc.oneof(
  fc.constant<CodeItem>({ kind: 'all' }),
  name.map<CodeItem>((n) => ({ kind: 'function', name: n })),
  file.map<CodeItem>((f) => ({ kind: 'file', file: f })),
  fc.tuple(file, fc.integer({ min: 1, max: 999 }), fc.nat(20)).map<CodeItem>(([f, a, n]) => ({ kind: 'lines', file: f, from: a, to: a + n })),
  fc.tuple(file, fc.integer({ min: 1, max: 999 })).map<CodeItem>(([f, line]) => ({ kind: 'loop', file: f, line }))
)
const metric: fc.Arbitrary<MetricItem> = fc.record({
  level: fc.option(fc.stringMatching(/^[A-Z][A-Za-z0-9]{0,4}$/), { nil: null }),
  name: fc.constantFrom(...METRIC_NAMES)
})
const query: fc.Arbitrary<SliceQuery> = fc.record({
  data: fc.array(dataItem, { minLength: 1, maxLength: 4 }),
  code: fc.array(codeItem, { minLength: 1, maxLength: 4 }),
  metrics: fc.array(metric, { minLength: 1, maxLength: 3 })
})

describe('printSliceQuery', () => {
  it('round-trips any query through its text', () => {
    fc.assert(
      fc.property(query, (q) => {
        expect(parseSliceQuery(printSliceQuery(q))).toEqual(q)
      }),
      { numRuns: 500 }
    )
  })
})
