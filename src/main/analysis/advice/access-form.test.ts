import { describe, expect, it } from 'vitest'
import { accessForm, parseMemOperand } from './access-form'

const ref = (id: string, disasm: string | null, sourceExpr: string | null = null, fn = 'walk') => ({ id, function: fn, disasm, sourceExpr })

describe('parseMemOperand', () => {
  it('reads AT&T base, index and load destination', () => {
    expect(parseMemOperand('mov    0x8(%rdi),%rdi')).toEqual({ base: 'rdi', index: null, dest: 'rdi' })
    expect(parseMemOperand('add    (%rdi),%rax')).toEqual({ base: 'rdi', index: null, dest: 'rax' })
    expect(parseMemOperand('movsd  (%rax,%rdx,8),%xmm0')).toEqual({ base: 'rax', index: 'rdx', dest: 'xmm0' })
    expect(parseMemOperand('mov    %eax,-0x4(%rbp)')).toEqual({ base: 'rbp', index: null, dest: null })
    expect(parseMemOperand('mov    0x10(%r8d),%r8d')).toEqual({ base: 'r8', index: null, dest: 'r8' })
  })
  it('reads arm64 loads and stores', () => {
    expect(parseMemOperand('ldr x0, [x0, #8]')).toEqual({ base: 'x0', index: null, dest: 'x0' })
    expect(parseMemOperand('ldr d0, [x1, x2, lsl #3]')).toEqual({ base: 'x1', index: 'x2', dest: 'd0' })
    expect(parseMemOperand('str w1, [x3]')).toEqual({ base: 'x3', index: null, dest: null })
  })
  it('has nothing to say about an instruction without memory operand', () => {
    expect(parseMemOperand('ret')).toBeNull()
  })
})

describe('accessForm', () => {
  // gcc -O2 of `for (p = head; p; p = p->next) s += p->value;`
  const value = ref('pool_Read_6', 'add    (%rdi),%rax', 'p->value')
  const next = ref('pool_Read_7', 'mov    0x8(%rdi),%rdi', 'p->next')
  it('a load through the register the list walk reloads is a pointer chase', () => {
    expect(accessForm(value, [next]).form).toBe('pointer-chase')
    expect(accessForm(next, [value]).form).toBe('pointer-chase')
    expect(accessForm(value, [next]).via).toBe(next)
  })
  it('only peers of the same function count', () => {
    expect(accessForm(value, [{ ...next, function: 'other' }]).form).toBe('unknown')
  })
  it('an indexed load is a gather', () => {
    expect(accessForm(ref('C_Read_3', 'movsd  (%rax,%rdx,8),%xmm0', 'C[idx[i]]'), [ref('idx_Read_2', 'movslq (%rcx,%rsi,4),%rdx', 'idx[i]')]).form).toBe('gather')
  })
  it('falls back on the source expression without an instruction', () => {
    expect(accessForm(ref('n', null, 'node->next'), []).form).toBe('pointer-chase')
    expect(accessForm(ref('g', null, 'x[perm[i]]'), []).form).toBe('gather')
    expect(accessForm(ref('u', null, 'x'), []).form).toBe('unknown')
  })
})
