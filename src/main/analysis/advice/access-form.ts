/**
 * How an irregular reference computes its address, read from its instruction (and, without
 * one, from its source expression): a pointer chase loads the next address through the
 * address it just used (`mov 0x8(%rdi),%rdi`, `ldr x0, [x0, #8]`, `p = p->next`), so no
 * index vector exists and the loads serialize; an indexed gather reads through an index
 * (`(%rax,%rdx,8)`, `a[idx[i]]`), so the indices can be sorted or the elements gathered.
 * Pure: strings in, a form out.
 */

export type AccessForm = 'pointer-chase' | 'gather' | 'unknown'

export interface FormInput {
  id: string
  function: string | null
  disasm?: string | null
  sourceExpr?: string | null
}

interface MemOperand {
  base: string | null
  index: string | null
  /** The register a load writes (null for a store or an arithmetic destination in memory). */
  dest: string | null
}

/** x86-64 32/16/8-bit names to their 64-bit register; arm64 w-registers to x. */
function canonical(reg: string): string {
  const r = reg.replace(/^%/, '').toLowerCase()
  const legacy: Record<string, string> = { eax: 'rax', ebx: 'rbx', ecx: 'rcx', edx: 'rdx', esi: 'rsi', edi: 'rdi', ebp: 'rbp', esp: 'rsp' }
  if (legacy[r]) return legacy[r]
  const ext = /^(r\d+)[dwb]$/.exec(r)
  if (ext) return ext[1]!
  const w = /^w(\d+)$/.exec(r)
  if (w) return `x${w[1]}`
  return r
}

/** The memory operand of an AT&T x86-64 or arm64 instruction, or null when it has none. */
export function parseMemOperand(disasm: string): MemOperand | null {
  const text = disasm.trim()
  const att = /(?:-?0x[0-9a-f]+|-?\d+)?\((%\w+)?(?:,(%\w+)(?:,\d)?)?\)/i.exec(text)
  if (att) {
    const after = text.slice(att.index + att[0].length)
    const dest = /^\s*,\s*(%\w+)\s*$/.exec(after)
    return { base: att[1] ? canonical(att[1]) : null, index: att[2] ? canonical(att[2]) : null, dest: dest ? canonical(dest[1]!) : null }
  }
  const arm = /^(ldr\w*|ldur\w*|ldp\w*)\s+(\w+)(?:\s*,\s*\w+)?\s*,\s*\[(\w+)(?:\s*,\s*(\w+))?/i.exec(text)
  if (arm) {
    const index = arm[4] && !arm[4].startsWith('#') && /^[xw]\d+$/i.test(arm[4]) ? canonical(arm[4]) : null
    return { base: canonical(arm[3]!), index, dest: canonical(arm[2]!) }
  }
  const armStore = /^st\w*\s+\w+(?:\s*,\s*\w+)?\s*,\s*\[(\w+)(?:\s*,\s*(\w+))?/i.exec(text)
  if (armStore) return { base: canonical(armStore[1]!), index: armStore[2] && /^[xw]\d+$/i.test(armStore[2]) ? canonical(armStore[2]) : null, dest: null }
  return null
}

/**
 * The form of `ref`'s address. `peers` are the other references of its function: a chase
 * shows as a load (the reference itself or a peer) whose destination is its own base
 * register, the register `ref` reads through.
 */
export function accessForm(ref: FormInput, peers: FormInput[]): { form: AccessForm; via: FormInput | null } {
  const op = ref.disasm ? parseMemOperand(ref.disasm) : null
  if (op?.base) {
    const chasers = [ref, ...peers.filter((p) => p.function === ref.function && p.id !== ref.id)]
    const via = chasers.find((p) => {
      const o = p.disasm ? parseMemOperand(p.disasm) : null
      return o !== null && o.dest !== null && o.dest === o.base && o.base === op.base
    })
    if (via) return { form: 'pointer-chase', via }
    if (op.index) return { form: 'gather', via: null }
  }
  const expr = ref.sourceExpr ?? ''
  if (/\[[^\]]*\[/.test(expr)) return { form: 'gather', via: null }
  if (op === null && /->/.test(expr) && !/\[/.test(expr)) return { form: 'pointer-chase', via: null }
  return { form: 'unknown', via: null }
}
