import { describe, expect, it } from 'vitest'
import { inlineCallers, parseInlineSites } from './inline-sites'

// llvm-dwarfdump --debug-info --name=kernel_2mm of a program that inlined it twice into main
// (once with a range list) and once into other.
const DUMP = `/tmp/p:\tfile format elf64-x86-64

0x0000010a: DW_TAG_inlined_subroutine
              DW_AT_abstract_origin\t(0x00000172 "kernel_2mm")
              DW_AT_low_pc\t(0x00000000000010a8)
              DW_AT_high_pc\t(0x00000000000010c6)
              DW_AT_call_file\t("/src/2mm.c")
              DW_AT_call_line\t(12)
              DW_AT_call_column\t(0x03)

0x00000140: DW_TAG_inlined_subroutine
              DW_AT_abstract_origin\t(0x00000172 "kernel_2mm")
              DW_AT_entry_pc\t(0x0000000000001100)
              DW_AT_ranges\t(0x0000000c
                 [0x0000000000001100, 0x0000000000001120)
                 [0x0000000000001060, 0x0000000000001066))
              DW_AT_call_file\t("/src/2mm.c")
              DW_AT_call_line\t(15)

0x00000150: DW_TAG_inlined_subroutine
              DW_AT_abstract_origin\t(0x00000172 "kernel_2mm")
              DW_AT_ranges\t(0x0000002c
                 [0x0000000000001210, 0x0000000000001220))
              DW_AT_call_file\t("/src/2mm.c")
              DW_AT_call_line\t(30)

0x00000172: DW_TAG_subprogram
              DW_AT_name\t("kernel_2mm")
              DW_AT_decl_file\t("/src/2mm.c")
              DW_AT_decl_line\t(4)
              DW_AT_inline\t(DW_INL_inlined)
`

describe('where a function was inlined', () => {
  it('reads the inlined copies and their callers', () => {
    const found = parseInlineSites(DUMP, 'kernel_2mm')
    expect(found.described).toBe(true)
    expect(found.ownCode).toBe(false)
    expect(found.sites).toEqual([
      { file: '/src/2mm.c', line: 12, address: 0x10a8 },
      { file: '/src/2mm.c', line: 15, address: 0x1100 },
      { file: '/src/2mm.c', line: 30, address: 0x1210 }
    ])
    const functions = [
      { name: 'main', start: 0x1080, size: 0x100 },
      { name: 'other.constprop.0', start: 0x1200, size: 0x40 }
    ]
    expect(inlineCallers(found.sites, functions)).toEqual([
      { caller: 'main', calls: ['2mm.c:12', '2mm.c:15'] },
      { caller: 'other.constprop.0', calls: ['2mm.c:30'] }
    ])
  })

  it('an out-of-line copy, or another function of the same prefix, is not "inlined everywhere"', () => {
    const own = `0x00000278: DW_TAG_subprogram
              DW_AT_abstract_origin\t(0x00000234 "kernel_2mm")
              DW_AT_low_pc\t(0x0000000000001210)
`
    expect(parseInlineSites(own, 'kernel_2mm')).toMatchObject({ described: true, ownCode: true, sites: [] })
    expect(parseInlineSites(DUMP, 'kernel')).toEqual({ described: false, ownCode: false, sites: [] })
  })
})
