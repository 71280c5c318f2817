import { describe, expect, it } from 'vitest'
import { buildNameTable, resolveNames, withoutParameters } from './function-names'

describe('function names as users write them', () => {
  const table = buildNameTable(
    ['sumfunc', '_ZN2ns4scanEPKdi', '_ZN1S6methodEv', '_Z3maxIiET_S0_S0_', '_Z1gi', '_Z1gd'],
    ['sumfunc', 'ns::scan(double const*, int)', 'S::method()', 'int max<int>(int, int)', 'g(int)', 'g(double)']
  )
  it('takes symbols and demangled names, with or without parameters', () => {
    expect(resolveNames(table, ['sumfunc', 'ns::scan', 'S::method()', '_ZN2ns4scanEPKdi', 'g(int)'], 'p')).toEqual(['sumfunc', '_ZN2ns4scanEPKdi', '_ZN1S6methodEv', '_ZN2ns4scanEPKdi', '_Z1gi'])
    expect(withoutParameters('int max<int>(int, int)')).toBe('int max<int>')
  })
  it('says which names match nothing or several overloads', () => {
    expect(() => resolveNames(table, ['g'], 'p')).toThrow(/"g" names 2 functions in p \(overloads\); add the parameters/)
    expect(() => resolveNames(table, ['nope'], 'p')).toThrow(/Function "nope" not found in p; .*--backend frida/)
  })

  it("a function's GCC clones (cold path, part, isra) come with it; two real functions stay ambiguous", () => {
    const t = buildNameTable(
      ['_Z6crunchRi', '_Z6crunchRi.cold', 'kernel', 'kernel.part.0', '_Z1hi', '_Z1hd', '_Z1hd.cold'],
      ['crunch(int&)', 'crunch(int&) [clone .cold]', 'kernel', 'kernel.part.0', 'h(int)', 'h(double)', 'h(double) [clone .cold]']
    )
    expect(resolveNames(t, ['crunch'], 'p')).toEqual(['_Z6crunchRi', '_Z6crunchRi.cold'])
    expect(resolveNames(t, ['kernel'], 'p')).toEqual(['kernel'])
    expect(() => resolveNames(t, ['h'], 'p')).toThrow(/"h" names 3 functions/)
  })
})
