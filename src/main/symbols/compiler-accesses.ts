/**
 * Accesses the compiler made on its own, told from the instruction (gdb's AT&T text): they
 * belong to no expression of the source line, so they get a label of their own instead of
 * taking one of the line's expressions (a `ret` is not `p[i]`, a constant is not `C[i][j]`).
 */

/** The label of a compiler-generated access, or null when the access is the source's. */
export function compilerAccess(disasm: string | null, variable: string | null): string | null {
  if (!disasm) return null
  const [mnemonic = '', operands = ''] = disasm.replace(/^=>\s*/, '').replace(/#.*$/, '').trim().split(/\s+/, 2)
  if (/^(ret|retq|call|callq)$/.test(mnemonic) && !operands.includes('(')) return '(return address)'
  if (/^(push|pushq|pop|popq|leave|leaveq)$/.test(mnemonic) && !operands.includes('(')) return '(saved register)'
  if (variable !== null) return null // it touched a named data structure: a source access
  // rip-relative and named by no symbol: a literal the compiler put in .rodata.
  if (/\(%rip\)/.test(operands)) return '(constant)'
  // Frame-relative with no index and no named local there: a spill or reload.
  if (/\(%r[sb]p\)/.test(operands)) return '(stack slot)'
  return null
}
