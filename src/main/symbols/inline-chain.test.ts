import { describe, expect, it } from 'vitest'
import { parseAddr2lineInline, parseSymbolizerJson } from './inline-chain'

describe('inline chains', () => {
  it('reads llvm-symbolizer JSON, innermost level first', () => {
    const json =
      '[{"Address":"0x11a0","ModuleName":"p","Symbol":[{"FileName":"/s/p.c","FunctionName":"xmalloc","Line":11},{"FileName":"/s/p.c","FunctionName":"polybench_alloc_data","Line":21},{"FileName":"/s/p.c","FunctionName":"main","Line":47}]}]\n' +
      '[{"Address":"0x1","ModuleName":"p","Symbol":[{"FileName":"??","FunctionName":"??","Line":0}]}]\n'
    expect(parseSymbolizerJson(json)).toEqual([
      [
        { file: '/s/p.c', line: 11, function: 'xmalloc' },
        { file: '/s/p.c', line: 21, function: 'polybench_alloc_data' },
        { file: '/s/p.c', line: 47, function: 'main' }
      ],
      []
    ])
  })

  it('reads addr2line -f -i pairs', () => {
    expect(parseAddr2lineInline('xmalloc\n/s/p.c:11\nmain\n/s/p.c:47 (discriminator 2)\n')).toEqual([
      { file: '/s/p.c', line: 11, function: 'xmalloc' },
      { file: '/s/p.c', line: 47, function: 'main' }
    ])
  })
})
