import { describe, expect, it } from 'vitest'
import { objdumpIsCheaper, parseObjdumpText } from './objdump-text'

describe('instruction text from objdump', () => {
  it("writes gdb's x/i form", () => {
    const text = [
      '0000000000001139 <sumfunc>:',
      '    1139:\ttest   %ecx,%ecx',
      '    113b:\tjle    116e <sumfunc+0x35>',
      '    1150:\tcall   1139 <sumfunc>',
      '    1155:\tlea    0x2ee1(%rip),%rax        # 4010 <A>',
      '    115c:\tmovsd  0xd80(%rip),%xmm3        # 2008 <_IO_stdin_used+0x8>',
      '    1164:\tret'
    ].join('\n')
    expect(Object.fromEntries(parseObjdumpText(text))).toEqual({
      [0x1139]: 'test   %ecx,%ecx',
      [0x113b]: 'jle    0x116e <sumfunc+53>',
      [0x1150]: 'call   0x1139 <sumfunc>',
      [0x1155]: 'lea    0x2ee1(%rip),%rax        # 0x4010 <A>',
      [0x115c]: 'movsd  0xd80(%rip),%xmm3        # 0x2008 <_IO_stdin_used+8>',
      [0x1164]: 'ret'
    })
    // Only the addresses asked for, in the same form.
    expect(Object.fromEntries(parseObjdumpText(text, new Set([0x113b, 0x1164, 0x9999])))).toEqual({ [0x113b]: 'jle    0x116e <sumfunc+53>', [0x1164]: 'ret' })
  })

  it('is chosen where the addresses are dense', () => {
    expect(objdumpIsCheaper([0x1000, 0x1010, 0x1020])).toBe(true)
    // A small program's whole text: gdb's start alone costs more than objdump over it.
    expect(objdumpIsCheaper([0x1000, 0x30000])).toBe(true)
    expect(objdumpIsCheaper([0x1000, 0x200000])).toBe(false)
    expect(objdumpIsCheaper([])).toBe(false)
  })
})
