import { describe, expect, it } from 'vitest'
import { buildIdDebugPath, findSymbol, parseAddr2line, parseNm, parseReadelfSymbolTypes } from './elf-parse'

const NM = `0000000000024040 0000000000010000 B A
0000000000014040 0000000000010000 B B
0000000000003de0 d _DYNAMIC
0000000000004018 D __TMC_END__
0000000000001050 0000000000000022 T _start
0000000000004020 0000000000000001 b completed.0
0000000000001080 t deregister_tm_clones
00000000000010b0 t register_tm_clones
0000000000001174 000000000000008f T main
0000000000001139 000000000000003b T sumfunc
`

describe('binutils parsers', () => {
  it('splits nm output into sized functions and data objects', () => {
    const { functions, data } = parseNm(NM)
    expect(data.map((d) => d.name)).toEqual(['completed.0', 'B', 'A'])
    expect(functions.map((f) => f.name)).toEqual(['_start', 'deregister_tm_clones', 'register_tm_clones', 'sumfunc', 'main'])
    expect(functions.find((f) => f.name === 'deregister_tm_clones')!.size).toBe(0x30) // gap to the next
    expect(findSymbol(functions, 0x1180)!.name).toBe('main')
    expect(findSymbol(functions, 0x1139 + 0x3b)!.name).toBe("main")
    expect(findSymbol(functions, 0x1174 + 0x8f)).toBeNull()
    expect(findSymbol(data, 0x24040 + 8 * 100)!.name).toBe('A')
    expect(findSymbol(data, 0x34040)).toBeNull()
  })

  it('reads addr2line locations, with discriminators and unknowns', () => {
    const out = parseAddr2line('sumfunc\n/src/conflict.c:30 (discriminator 3)\n??\n??:0\nmain\n/src/x.c:?\n', 3)
    expect(out).toEqual([
      { file: '/src/conflict.c', line: 30 },
      { file: null, line: null },
      { file: '/src/x.c', line: null }
    ])
  })

  it('finds a detached debug file by build ID', () => {
    expect(buildIdDebugPath('93ac61ec5a8eb1396f9fbd350e3169a558528a40')).toBe('/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug')
    expect(buildIdDebugPath(null)).toBeNull()
    expect(buildIdDebugPath('../../etc')).toBeNull()
  })
})

import { parseGdbLines } from './gdb-lines'
describe('gdb line rows', () => {
  it('reads file and line, and unknowns', () => {
    expect(parseGdbLines('/src/conflict.c\t30\tmovsd (%rdi,%rax,8),%xmm0\n?\t0\n', 3)).toEqual([
      { file: '/src/conflict.c', line: 30, disasm: 'movsd (%rdi,%rax,8),%xmm0' },
      { file: null, line: null },
      { file: null, line: null }
    ])
  })

  it("types readelf's symbols: FUNC and IFUNC are functions, OBJECT and NOTYPE are not", () => {
    const { functions, others } = parseReadelfSymbolTypes(`
Symbol table '.dynsym' contains 3 entries:
   Num:    Value          Size Type    Bind   Vis      Ndx Name
     1: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND printf@GLIBC_2.2.5 (3)
     2: 0000000000001200    40 IFUNC   GLOBAL DEFAULT   15 memcpy@@GLIBC_2.14
Symbol table '.symtab' contains 6 entries:
     3: 0000000000000000     0 FILE    LOCAL  DEFAULT  ABS mult.c
    20: 0000000000004008     0 NOTYPE  WEAK   DEFAULT   25 data_start
    28: 0000000000002000     4 OBJECT  GLOBAL DEFAULT   17 _IO_stdin_used
    34: 0000000000001139    76 FUNC    GLOBAL DEFAULT   15 do_mult
    35: 0000000000001139    76 FUNC    LOCAL  DEFAULT   15 S::f(int) const
`)
    expect([...functions]).toEqual(['memcpy', 'do_mult', 'S::f(int) const'])
    expect([...others]).toEqual(['data_start', '_IO_stdin_used'])
  })
})
