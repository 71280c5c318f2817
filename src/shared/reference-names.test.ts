import { describe, expect, it } from 'vitest'
import { referenceName, referenceSite, type ReferenceNameParts } from './reference-names'

const parts = (p: Partial<ReferenceNameParts>): ReferenceNameParts => ({ variable: 'b', kind: 'read', line: 42, function: 'do_mult', offset: 0x4f, object: 'mult', inProgram: true, link: 0x124f, pc: 0x40124f, ...p })

describe('reference names and sites', () => {
  it('say the data structure, kind, line and where the instruction is', () => {
    expect(referenceName(parts({}))).toBe('b_Read_42@do_mult+0x4f')
    expect(referenceName(parts({ variable: null, kind: 'modify', line: null }))).toBe('unknown_Modify@do_mult+0x4f')
    expect(referenceName(parts({ variable: null, kind: 'write', line: null, function: 'memcpy', object: 'libc.so.6', inProgram: false }))).toBe('unknown_Write@libc.so.6:memcpy+0x4f')
    expect(referenceName(parts({ function: null, offset: null }))).toBe('b_Read_42@mult+0x124f')
  })

  it('give the site without the data structure and line, whatever the structure is called', () => {
    expect(referenceSite('b_Read_42@do_mult+0x4f')).toBe('Read@do_mult+0x4f')
    expect(referenceSite('unknown_Read_42@do_mult+0x4f')).toBe('Read@do_mult+0x4f')
    expect(referenceSite('heap@mult.c:12_Write_7@main+0x9')).toBe('Write@main+0x9')
    expect(referenceSite('my_Read_buf_Modify@libc.so.6:memcpy@@GLIBC_2.14+0x1a')).toBe('Modify@libc.so.6:memcpy@@GLIBC_2.14+0x1a')
    // The older, rank-numbered names are their own sites.
    expect(referenceSite('A_Read_0')).toBe('A_Read_0')
  })
})
