import { describe, expect, it } from 'vitest'
import { parseLdd, parseLibrarySpec } from './library-spec'

describe('LIBRARY:function specs', () => {
  it('reads a library and a function, never a C++ scope', () => {
    expect(parseLibrarySpec('libfix.so:lib_sum')).toEqual({ library: 'libfix.so', name: 'lib_sum' })
    expect(parseLibrarySpec('libm.so.6:sin')).toEqual({ library: 'libm.so.6', name: 'sin' })
    expect(parseLibrarySpec('libx.so:ns::f(int)')).toEqual({ library: 'libx.so', name: 'ns::f(int)' })
    expect(parseLibrarySpec('ns::f')).toBeNull()
    expect(parseLibrarySpec('kernel')).toBeNull()
    expect(parseLibrarySpec('/abs/libfix.so:f')).toBeNull()
  })
  it('reads ldd output', () => {
    const m = parseLdd('\tlinux-vdso.so.1 (0x00007ffd)\n\tlibfix.so => /tmp/x/libfix.so (0x00007f1)\n\t/tmp/y/libpath.so (0x00007f3)\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f2)\n')
    expect([...m]).toEqual([
      ['libfix.so', '/tmp/x/libfix.so'],
      ['libpath.so', '/tmp/y/libpath.so'],
      ['libc.so.6', '/lib/x86_64-linux-gnu/libc.so.6']
    ])
  })
})
