/*
 * Stride's CModule: the per-instruction work of the Frida agent, in C.
 *
 * The same source compiles two ways:
 *  - inside Frida (TinyCC, CModule runtime headers): gum/gumstalker.h brings GumCpuContext,
 *    capstone and glib's atomics;
 *  - natively with gcc and Debian's capstone when STRIDE_NATIVE is defined, against the
 *    minimal CPU-context struct below (same field names as Frida's GumCpuContext on x86-64),
 *    so the effective-address logic is tested without Frida (effective-address.integration.test.ts).
 *
 * The agent concatenates this header, effective-address.c, ring.c and transform.c into one
 * CModule source (CModule cannot #include local files).
 */
#ifndef STRIDE_CMODULE_H
#define STRIDE_CMODULE_H

#ifdef STRIDE_NATIVE
# include <stddef.h>
# include <stdint.h>
# include <string.h>
# include <capstone/capstone.h>
typedef int gint;
typedef unsigned int guint;
typedef int gboolean;
typedef uint8_t guint8;
typedef uint16_t guint16;
typedef uint32_t guint32;
typedef int64_t gint64;
typedef uint64_t guint64;
typedef void *gpointer;
typedef size_t gsize;
# define TRUE 1
# define FALSE 0
/* Field names as Frida's GumCpuContext (x86-64); the order is irrelevant to the code. */
typedef struct {
  guint64 rip;
  guint64 r15, r14, r13, r12, r11, r10, r9, r8;
  guint64 rdi, rsi, rbp, rsp, rbx, rdx, rcx, rax;
} GumCpuContext;
# ifdef __TINYC__
/* TinyCC (as CModule uses) has no __atomic builtins; the native harness is single-threaded. */
static inline gint g_atomic_int_add(volatile gint *atomic, gint val) { gint old = *atomic; *atomic = old + val; return old; }
# else
static inline gint g_atomic_int_add(volatile gint *atomic, gint val) { return __atomic_fetch_add(atomic, val, __ATOMIC_SEQ_CST); }
# endif
static inline void g_thread_yield(void) {}
#else
# include <gum/gumstalker.h>
#endif

/* Record types, as the host decodes them (src/main/tracing/frida/batch-decoder.ts). 0 = empty slot. */
#define STRIDE_REC_ACCESS 1   /* a: pc, b: effective address, size, kind */
#define STRIDE_REC_ENTER 2    /* a: function start, b: stack pointer at entry, c: return address */
#define STRIDE_REC_EXIT 3     /* a: function start, b: stack pointer after return */
#define STRIDE_REC_ALLOC 4    /* a: block, b: size, c: old block (realloc) or 0; kind: 0 malloc 1 calloc 2 realloc */
#define STRIDE_REC_FREE 5     /* a: block */
#define STRIDE_REC_FRAME 6    /* a: return address of one backtrace frame of the preceding ALLOC; kind: frame index */
#define STRIDE_REC_UNTRACED 7 /* a: pc, b: accesses not recorded (0 when unknown); kind: STRIDE_UNTRACED_* */

#define STRIDE_UNTRACED_GATHER 1   /* vector gather/scatter: the index vector is not in the CPU context */
#define STRIDE_UNTRACED_REP_SCAN 2 /* repe/repne cmps/scas: the count depends on the data */
#define STRIDE_UNTRACED_SEGMENT 3  /* gs-relative or another segment base we cannot read */
#define STRIDE_UNTRACED_OPERAND 4  /* a memory operand we cannot size or address */

#define STRIDE_KIND_READ 0
#define STRIDE_KIND_WRITE 1
#define STRIDE_KIND_MODIFY 2

/* One ring slot: 32 bytes, little-endian, the layout RECORD_BYTES in the host decoder mirrors. */
typedef struct {
  volatile guint8 type;
  guint8 kind;
  guint16 size;
  guint32 thread;
  guint64 a;
  guint64 b;
  guint64 c;
} StrideRecord;

/*
 * Shared state, allocated by the agent's JavaScript (Memory.alloc) and passed to every
 * callout through its plan: CModule globals are read-only, so nothing writable is global.
 */
typedef struct {
  volatile gint head;     /* next slot to reserve (producers, atomically) */
  volatile gint tail;     /* next slot to drain (the one consumer) */
  volatile gint lost;     /* records dropped after waiting too long for room */
  volatile gint enabled;  /* 0: callouts record nothing (periodic sampling's off interval) */
  guint capacity;         /* slots, a power of two */
  guint range_count;      /* traced [start, end) pairs in ranges */
  guint64 *ranges;        /* the chosen functions' code, runtime addresses */
  StrideRecord *records;  /* capacity slots */
  volatile gint untraced; /* accesses (or instructions, when the count is unknown) not recorded */
  gint spin_limit;        /* yields to wait for room before dropping a record */
} StrideState;

/* Byte loops instead of memset/memcpy and struct assignment: TinyCC lowers the latter to
 * libc calls, and the CModule runtime's libc surface is not something to lean on. */
static inline void stride_zero(void *p, gsize n)
{
  guint8 *b = (guint8 *) p;
  for (gsize i = 0; i < n; i++) b[i] = 0;
}

static inline void stride_copy(void *dst, const void *src, gsize n)
{
  guint8 *d = (guint8 *) dst;
  const guint8 *s = (const guint8 *) src;
  for (gsize i = 0; i < n; i++) d[i] = s[i];
}

#define STRIDE_MAX_MEM_OPS 2

/* How to compute one memory operand's address at run time, decided once per instruction. */
typedef struct {
  gint base_offset;   /* byte offset of the base register in GumCpuContext, -1: none */
  gint index_offset;  /* same for the index register */
  guint64 addr_mask;  /* 0xffffffff with 32-bit address registers (address-size override) */
  gint scale;
  gint64 disp;        /* rip-relative operands fold insn address + size into disp */
  guint16 size;
  guint8 kind;
  guint8 fs;          /* add the thread's fs base */
  gint stride;        /* string instructions: per-element step applied count times; 0 otherwise */
} StrideMemOp;

#define STRIDE_PLAN_NONE 0       /* no data access: nothing is put */
#define STRIDE_PLAN_ACCESS 1     /* ops[0..n) each once */
#define STRIDE_PLAN_REP 2        /* rep movs/stos/lods: ops repeated rcx times, interleaved */
#define STRIDE_PLAN_UNTRACED 3   /* a callout that only counts (reason in untraced) */

typedef struct {
  StrideState *state;
  guint64 pc;
  guint8 mode;
  guint8 n;
  guint8 untraced;
  guint8 pad;
  StrideMemOp ops[STRIDE_MAX_MEM_OPS];
} StridePlan;

#endif
