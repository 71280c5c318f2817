import { describe, expect, it } from 'vitest'
import { buildNameTable, cloneOf, resolveNames, withoutParameters } from './function-names'

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
    expect(resolveNames(t, ['kernel'], 'p')).toEqual(['kernel', 'kernel.part.0'])
    expect(() => resolveNames(t, ['h'], 'p')).toThrow(/"h" names 2 functions/)
  })

  it('a C function is found by its clones alone (kernel_2mm.constprop.0 at -O2), and takes all of them', () => {
    const symbols = [
      'kernel_2mm.constprop.0',
      'kernel_2mm_extra',
      'deflateStateCheck',
      'deflateStateCheck.part.0',
      'work.isra.0',
      'work.isra.0.cold',
      'scan.constprop.0.isra.0',
      'scan.cold',
      'init_array',
      'init_array_cold'
    ]
    const t = buildNameTable(symbols, symbols)
    expect(resolveNames(t, ['kernel_2mm'], 'p')).toEqual(['kernel_2mm.constprop.0'])
    expect(resolveNames(t, ['kernel_2mm_extra'], 'p')).toEqual(['kernel_2mm_extra'])
    expect(resolveNames(t, ['deflateStateCheck'], 'p')).toEqual(['deflateStateCheck', 'deflateStateCheck.part.0'])
    expect(resolveNames(t, ['work'], 'p')).toEqual(['work.isra.0', 'work.isra.0.cold'])
    expect(resolveNames(t, ['scan'], 'p')).toEqual(['scan.constprop.0.isra.0', 'scan.cold'])
    // A clone's own symbol still names just it.
    expect(resolveNames(t, ['work.isra.0.cold'], 'p')).toEqual(['work.isra.0.cold'])
    // Not a prefix match: an underscore is part of another function's name.
    expect(resolveNames(t, ['init_array'], 'p')).toEqual(['init_array'])
    expect(() => resolveNames(t, ['kernel'], 'p')).toThrow(/Function "kernel" not found in p/)
    expect(cloneOf('kernel_2mm.constprop.0')).toBe('kernel_2mm')
    expect(cloneOf('f.isra.0.cold')).toBe('f')
    expect(cloneOf('f.constprop.0.isra.0')).toBe('f')
    expect(cloneOf('_Z1hd.cold')).toBe('_Z1hd')
    expect(cloneOf('kernel_2mm')).toBeNull()
    expect(cloneOf('.cold')).toBeNull()
  })
})
