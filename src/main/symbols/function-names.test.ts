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
})
