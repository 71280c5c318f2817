/*
 * Effective addresses of x86-64 memory operands, in two steps:
 *  - stride_plan_insn(), once per instruction when Stalker compiles its block: reads capstone's
 *    operand detail and decides what to record (which operands, read/write, size, how to add
 *    up base + index x scale + displacement, segment base), or that nothing is recorded;
 *  - stride_op_address(), before every execution: one add per register from the CPU context.
 * Rules (Valgrind lackey's, so both backends see the same accesses):
 *  - lea, nop and prefetch name memory without touching it: no record;
 *  - rip-relative: the address is known at plan time (insn address + size + disp);
 *  - fs-relative: the thread's fs base is added at run time (read from fs:0, which glibc
 *    keeps pointing at itself); gs and other unreadable bases are counted untraced;
 *  - push/pop/call/ret/leave/pushf/popf touch the stack implicitly (8 bytes at rsp-8 or rsp);
 *  - rep movs/stos/lods repeat their operands rcx times (DF assumed clear, as the ABI
 *    requires at every call); repe/repne cmps/scas stop on data, so they are counted untraced;
 *  - gathers/scatters index with a vector register the context does not hold: untraced;
 *  - mov-family stores are decided from the operand position (capstone flags some vector
 *    stores as reads); everything else from capstone's access flags (read+write = modify).
 */

static gboolean stride_reg_slot(x86_reg reg, gint *offset, guint64 *mask)
{
  guint64 full = ~(guint64) 0, low = 0xffffffffull;
#define STRIDE_SLOT(r64, r32, field) \
  case X86_REG_##r64: *offset = (gint) offsetof(GumCpuContext, field); *mask = full; return TRUE; \
  case X86_REG_##r32: *offset = (gint) offsetof(GumCpuContext, field); *mask = low; return TRUE;
  switch (reg) {
    STRIDE_SLOT(RAX, EAX, rax)
    STRIDE_SLOT(RBX, EBX, rbx)
    STRIDE_SLOT(RCX, ECX, rcx)
    STRIDE_SLOT(RDX, EDX, rdx)
    STRIDE_SLOT(RSI, ESI, rsi)
    STRIDE_SLOT(RDI, EDI, rdi)
    STRIDE_SLOT(RBP, EBP, rbp)
    STRIDE_SLOT(RSP, ESP, rsp)
    STRIDE_SLOT(R8, R8D, r8)
    STRIDE_SLOT(R9, R9D, r9)
    STRIDE_SLOT(R10, R10D, r10)
    STRIDE_SLOT(R11, R11D, r11)
    STRIDE_SLOT(R12, R12D, r12)
    STRIDE_SLOT(R13, R13D, r13)
    STRIDE_SLOT(R14, R14D, r14)
    STRIDE_SLOT(R15, R15D, r15)
    default:
      return FALSE;
  }
#undef STRIDE_SLOT
}

/* An implicit stack slot: 8 bytes at rsp + disp. */
static void stride_stack_op(StrideMemOp *op, gint64 disp, guint8 kind)
{
  stride_zero(op, sizeof(*op));
  op->base_offset = (gint) offsetof(GumCpuContext, rsp);
  op->index_offset = -1;
  op->addr_mask = ~(guint64) 0;
  op->scale = 1;
  op->disp = disp;
  op->size = 8;
  op->kind = kind;
}

static gboolean stride_is_mov_family(const cs_insn *insn)
{
  const char *m = insn->mnemonic;
  if (m[0] == 'v') m++;
  return m[0] == 'm' && m[1] == 'o' && m[2] == 'v';
}

/* Fills op from a capstone memory operand; returns 0 or the STRIDE_UNTRACED_* reason. */
static guint8 stride_mem_op(const cs_insn *insn, const cs_x86_op *o, guint8 kind, gint stride, StrideMemOp *op)
{
  stride_zero(op, sizeof(*op));
  op->base_offset = -1;
  op->index_offset = -1;
  op->addr_mask = ~(guint64) 0;
  op->scale = o->mem.scale;
  op->disp = o->mem.disp;
  op->size = o->size;
  op->kind = kind;
  op->stride = stride;
  if (o->size == 0) return STRIDE_UNTRACED_OPERAND;
  if (o->mem.segment == X86_REG_FS) op->fs = 1;
  else if (o->mem.segment == X86_REG_GS) return STRIDE_UNTRACED_SEGMENT;
  if (o->mem.base == X86_REG_RIP) {
    op->disp += (gint64) (insn->address + insn->size);
  } else if (o->mem.base != X86_REG_INVALID) {
    guint64 mask;
    if (!stride_reg_slot(o->mem.base, &op->base_offset, &mask)) return STRIDE_UNTRACED_OPERAND;
    op->addr_mask &= mask;
  }
  if (o->mem.index != X86_REG_INVALID && o->mem.index != X86_REG_RIZ && o->mem.index != X86_REG_EIZ) {
    guint64 mask;
    /* A vector index register: a gather or scatter. */
    if (!stride_reg_slot(o->mem.index, &op->index_offset, &mask)) return STRIDE_UNTRACED_GATHER;
    op->addr_mask &= mask;
  }
  return 0;
}

static guint8 stride_access_kind(const cs_insn *insn, const cs_x86_op *o, guint8 position)
{
  if (stride_is_mov_family(insn)) return position == 0 ? STRIDE_KIND_WRITE : STRIDE_KIND_READ;
  guint8 ac = o->access & (CS_AC_READ | CS_AC_WRITE);
  if (ac == (CS_AC_READ | CS_AC_WRITE)) return STRIDE_KIND_MODIFY;
  if (ac == CS_AC_WRITE) return STRIDE_KIND_WRITE;
  if (ac == CS_AC_READ) return STRIDE_KIND_READ;
  /* No flags: the destination (first operand) of a two-operand form is updated, else read. */
  return position == 0 && insn->detail->x86.op_count > 1 ? STRIDE_KIND_MODIFY : STRIDE_KIND_READ;
}

static gint stride_string_element(x86_insn id)
{
  switch (id) {
    case X86_INS_MOVSB: case X86_INS_STOSB: case X86_INS_LODSB: case X86_INS_CMPSB: case X86_INS_SCASB: return 1;
    case X86_INS_MOVSW: case X86_INS_STOSW: case X86_INS_LODSW: case X86_INS_CMPSW: case X86_INS_SCASW: return 2;
    case X86_INS_MOVSD: case X86_INS_STOSD: case X86_INS_LODSD: case X86_INS_CMPSD: case X86_INS_SCASD: return 4;
    case X86_INS_MOVSQ: case X86_INS_STOSQ: case X86_INS_LODSQ: case X86_INS_CMPSQ: case X86_INS_SCASQ: return 8;
    default: return 0;
  }
}

static gboolean stride_all_operands_mem_or_implicit(const cs_x86 *x)
{
  for (guint8 i = 0; i < x->op_count; i++)
    if (x->operands[i].type == X86_OP_REG) {
      x86_reg r = x->operands[i].reg;
      /* String forms name only al/ax/eax/rax as register operands; SSE movsd/cmpsd name xmm. */
      if (!(r == X86_REG_AL || r == X86_REG_AX || r == X86_REG_EAX || r == X86_REG_RAX)) return FALSE;
    } else if (x->operands[i].type != X86_OP_MEM) return FALSE;
  return TRUE;
}

/* Plans the instruction's recording; returns the STRIDE_PLAN_* mode (also stored in plan). */
static guint8 stride_plan_insn(const cs_insn *insn, StrideState *state, StridePlan *plan)
{
  const cs_x86 *x = &insn->detail->x86;
  stride_zero(plan, sizeof(*plan));
  plan->state = state;
  plan->pc = insn->address;
  plan->mode = STRIDE_PLAN_NONE;

  switch (insn->id) {
    case X86_INS_LEA: case X86_INS_NOP:
    case X86_INS_PREFETCH: case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0:
    case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2: case X86_INS_PREFETCHW:
      return plan->mode;
    case X86_INS_PUSH: case X86_INS_PUSHFQ: case X86_INS_CALL:
      /* push [mem] / call [mem] read the operand first, then store at rsp - 8. */
      if (x->op_count == 1 && x->operands[0].type == X86_OP_MEM) {
        guint8 why = stride_mem_op(insn, &x->operands[0], STRIDE_KIND_READ, 0, &plan->ops[plan->n]);
        if (why) { plan->untraced = why; return plan->mode = STRIDE_PLAN_UNTRACED; }
        plan->n++;
      }
      stride_stack_op(&plan->ops[plan->n++], -8, STRIDE_KIND_WRITE);
      return plan->mode = STRIDE_PLAN_ACCESS;
    case X86_INS_POP: case X86_INS_POPFQ: case X86_INS_RET:
      stride_stack_op(&plan->ops[plan->n++], 0, STRIDE_KIND_READ);
      if (insn->id == X86_INS_POP && x->op_count == 1 && x->operands[0].type == X86_OP_MEM) {
        guint8 why = stride_mem_op(insn, &x->operands[0], STRIDE_KIND_WRITE, 0, &plan->ops[plan->n]);
        if (why) { plan->untraced = why; return plan->mode = STRIDE_PLAN_UNTRACED; }
        /* pop [rsp + d] addresses with rsp already incremented. */
        if (plan->ops[plan->n].base_offset == (gint) offsetof(GumCpuContext, rsp)) plan->ops[plan->n].disp += 8;
        plan->n++;
      }
      return plan->mode = STRIDE_PLAN_ACCESS;
    case X86_INS_LEAVE:
      stride_stack_op(&plan->ops[0], 0, STRIDE_KIND_READ);
      plan->ops[0].base_offset = (gint) offsetof(GumCpuContext, rbp); /* mov rsp, rbp; pop rbp */
      plan->n = 1;
      return plan->mode = STRIDE_PLAN_ACCESS;
    default:
      break;
  }

  gint element = stride_string_element(insn->id);
  if (element > 0 && stride_all_operands_mem_or_implicit(x)) {
    gboolean rep = x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE;
    gboolean scan = insn->id == X86_INS_CMPSB || insn->id == X86_INS_CMPSW || insn->id == X86_INS_CMPSD || insn->id == X86_INS_CMPSQ ||
                    insn->id == X86_INS_SCASB || insn->id == X86_INS_SCASW || insn->id == X86_INS_SCASD || insn->id == X86_INS_SCASQ;
    if (rep && scan) { plan->untraced = STRIDE_UNTRACED_REP_SCAN; return plan->mode = STRIDE_PLAN_UNTRACED; }
    /* Source (rsi) before destination (rdi), as the instruction reads then writes. */
    for (gint pass = 0; pass < 2; pass++)
      for (guint8 i = 0; i < x->op_count; i++) {
        const cs_x86_op *o = &x->operands[i];
        if (o->type != X86_OP_MEM) continue;
        gboolean is_dest = o->mem.base == X86_REG_RDI || o->mem.base == X86_REG_EDI;
        if ((pass == 0) == is_dest) continue;
        guint8 kind = is_dest && !scan ? STRIDE_KIND_WRITE : STRIDE_KIND_READ;
        guint8 why = stride_mem_op(insn, o, kind, element, &plan->ops[plan->n]);
        plan->ops[plan->n].size = (guint16) element;
        if (why) { plan->untraced = why; return plan->mode = STRIDE_PLAN_UNTRACED; }
        if (plan->n < STRIDE_MAX_MEM_OPS) plan->n++;
      }
    if (plan->n == 0) return plan->mode;
    return plan->mode = rep ? STRIDE_PLAN_REP : STRIDE_PLAN_ACCESS;
  }

  for (guint8 i = 0; i < x->op_count && plan->n < STRIDE_MAX_MEM_OPS; i++) {
    const cs_x86_op *o = &x->operands[i];
    if (o->type != X86_OP_MEM) continue;
    guint8 why = stride_mem_op(insn, o, stride_access_kind(insn, o, i), 0, &plan->ops[plan->n]);
    if (why) { plan->untraced = why; plan->n = 0; return plan->mode = STRIDE_PLAN_UNTRACED; }
    plan->n++;
  }
  if (plan->n > 0) plan->mode = STRIDE_PLAN_ACCESS;
  return plan->mode;
}

static inline guint64 stride_op_address(const StrideMemOp *op, const GumCpuContext *ctx, guint64 fs_base)
{
  const guint8 *c = (const guint8 *) ctx;
  guint64 a = (guint64) op->disp;
  if (op->base_offset >= 0) a += *(const guint64 *) (c + op->base_offset);
  if (op->index_offset >= 0) a += *(const guint64 *) (c + op->index_offset) * (guint64) op->scale;
  a &= op->addr_mask;
  if (op->fs) a += fs_base;
  return a;
}

/* The thread's fs base (x86-64: glibc's TCB points at itself at fs:0), also its identity. */
static inline guint64 stride_thread_base(void)
{
  guint64 v;
#if defined(__x86_64__)
  __asm__ volatile("movq %%fs:0, %0" : "=r"(v));
#elif defined(__aarch64__)
  __asm__ volatile("mrs %0, tpidr_el0" : "=r"(v));
#else
  v = 0;
#endif
  return v;
}
