import { describe, expect, it } from 'vitest'
import { compilerAccess } from './compiler-accesses'

describe('compiler-generated accesses', () => {
  it('labels return addresses, saved registers, constants and spills', () => {
    expect(compilerAccess('ret', null)).toBe('(return address)')
    expect(compilerAccess('call   0x1139 <scale>', null)).toBe('(return address)')
    expect(compilerAccess('push   %rbp', null)).toBe('(saved register)')
    expect(compilerAccess('pop    %rbx', null)).toBe('(saved register)')
    expect(compilerAccess('movsd  0xd80(%rip),%xmm3        # 0x2008', null)).toBe('(constant)')
    expect(compilerAccess('mov    0x18(%rsp),%rax', null)).toBe('(stack slot)')
    expect(compilerAccess('movsd  %xmm0,-0x28(%rbp)', null)).toBe('(stack slot)')
  })

  it('leaves the source accesses alone', () => {
    expect(compilerAccess('movsd  (%rcx),%xmm2', null)).toBeNull() // through a pointer, even unnamed
    expect(compilerAccess('mulsd  (%rsi,%rax,1),%xmm2', 'A')).toBeNull()
    expect(compilerAccess('mov    0x2ee1(%rip),%eax        # 0x4010 <counter>', 'counter')).toBeNull() // a named global
    expect(compilerAccess('mov    -0x220(%rbp,%rax,8),%rdx', null)).toBeNull() // an indexed local array
    expect(compilerAccess('movsd  -0x20(%rbp),%xmm0', 'sum')).toBeNull() // a named local
    expect(compilerAccess('call   *0x8(%rax)', null)).toBeNull() // reads a function pointer
    expect(compilerAccess(null, null)).toBeNull()
  })
})
