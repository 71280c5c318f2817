import { describe, expect, it } from 'vitest'
import { splitFunctionList } from './function-list'

describe('--functions', () => {
  it('splits on top-level commas only', () => {
    expect(splitFunctionList('sumfunc, matmul')).toEqual(['sumfunc', 'matmul'])
    expect(splitFunctionList('max<int, int>,ns::f(int, char),g')).toEqual(['max<int, int>', 'ns::f(int, char)', 'g'])
    expect(splitFunctionList('')).toEqual([])
  })
})
