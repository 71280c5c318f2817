/*
 * The ring of fixed-size records between the traced threads (producers: callouts and the
 * agent's Interceptor hooks) and the agent's drain timer (the one consumer).
 *  - A producer waits for room (yielding up to spin_limit times) before it reserves a slot:
 *    when the host falls behind, the traced threads slow down instead of records being lost.
 *    Past the limit (host gone) the record is dropped and counted in lost.
 *  - Room is checked before reserving, with a margin for producers racing past the check, so
 *    a reserved slot is always free: up to STRIDE_PRODUCER_MARGIN threads may race.
 *  - A slot is published by writing its type last; the consumer copies ready slots in order,
 *    clears them and advances tail. Positions are 32-bit counters compared modulo 2^32.
 */
#define STRIDE_PRODUCER_MARGIN 64

static inline void stride_publish(StrideRecord *r, guint8 type)
{
#if defined(STRIDE_NATIVE) && !defined(__TINYC__)
  __atomic_store_n(&r->type, type, __ATOMIC_RELEASE);
#else
# if defined(__aarch64__)
  __asm__ volatile("dmb ish" ::: "memory"); /* fields before type; x86 keeps store order itself */
# endif
  r->type = type;
#endif
}

static StrideRecord *stride_reserve(StrideState *s)
{
  gint spins = 0;
  while ((guint) (s->head - s->tail) >= s->capacity - STRIDE_PRODUCER_MARGIN) {
    if (++spins > s->spin_limit) {
      g_atomic_int_add(&s->lost, 1);
      return NULL;
    }
    g_thread_yield();
  }
  guint pos = (guint) g_atomic_int_add(&s->head, 1);
  return &s->records[pos & (s->capacity - 1)];
}

static void stride_put(StrideState *s, guint8 type, guint8 kind, guint16 size, guint32 thread, guint64 a, guint64 b, guint64 c)
{
  StrideRecord *r = stride_reserve(s);
  if (r == NULL) return;
  r->kind = kind;
  r->size = size;
  r->thread = thread;
  r->a = a;
  r->b = b;
  r->c = c;
  stride_publish(r, type);
}

static inline guint32 stride_thread_key(guint64 base)
{
  return (guint32) (base >> 4) ^ (guint32) (base >> 36);
}

/* Called by the agent's JavaScript (NativeFunction) for function entry/exit and heap events. */
void stride_record(StrideState *s, guint32 type, guint32 kind, guint64 a, guint64 b, guint64 c)
{
  stride_put(s, (guint8) type, (guint8) kind, 0, stride_thread_key(stride_thread_base()), a, b, c);
}

/* Copies up to max ready records into dest (in order) and frees their slots; returns how many. */
guint stride_drain(StrideState *s, StrideRecord *dest, guint max)
{
  guint tail = (guint) s->tail;
  guint n = 0;
  while (n < max) {
    StrideRecord *r = &s->records[tail & (s->capacity - 1)];
#if defined(STRIDE_NATIVE) && !defined(__TINYC__)
    guint8 type = __atomic_load_n(&r->type, __ATOMIC_ACQUIRE);
#else
    guint8 type = r->type;
#endif
    if (type == 0) break;
    stride_copy(&dest[n], r, sizeof(StrideRecord));
    dest[n].type = type;
    r->type = 0;
    n++;
    tail++;
  }
  s->tail = (gint) tail;
  return n;
}

/* The callout Stalker runs before each planned instruction, on the traced thread. */
void stride_on_insn(GumCpuContext *ctx, gpointer user_data)
{
  const StridePlan *p = (const StridePlan *) user_data;
  StrideState *s = p->state;
  if (!s->enabled) return;
  guint64 base = stride_thread_base();
  guint32 thread = stride_thread_key(base);
  if (p->mode == STRIDE_PLAN_UNTRACED) {
    g_atomic_int_add(&s->untraced, 1);
    stride_put(s, STRIDE_REC_UNTRACED, p->untraced, 0, thread, p->pc, 0, 0);
    return;
  }
  guint64 count = p->mode == STRIDE_PLAN_REP ? ctx->rcx : 1;
  for (guint64 i = 0; i < count; i++)
    for (guint8 k = 0; k < p->n; k++) {
      const StrideMemOp *op = &p->ops[k];
      guint64 address = stride_op_address(op, ctx, base) + i * (guint64) (gint64) op->stride;
      stride_put(s, STRIDE_REC_ACCESS, op->kind, op->size, thread, p->pc, address, 0);
    }
}
