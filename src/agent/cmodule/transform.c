/*
 * Frida only: the Stalker transform. Every instruction is kept; those inside the chosen
 * functions' ranges that touch memory get a callout with their plan (heap-allocated, freed
 * by Stalker with the block). Blocks outside the ranges (callees in libc, say) run with no
 * callout at all, so only the chosen functions' own accesses are recorded, as METRIC asks.
 */
static gboolean stride_in_ranges(const StrideState *s, guint64 pc)
{
  for (guint i = 0; i < s->range_count; i++)
    if (pc >= s->ranges[2 * i] && pc < s->ranges[2 * i + 1]) return TRUE;
  return FALSE;
}

void transform(GumStalkerIterator *iterator, GumStalkerOutput *output, gpointer user_data)
{
  StrideState *s = (StrideState *) user_data;
  const cs_insn *insn;
  while (gum_stalker_iterator_next(iterator, &insn)) {
    if (stride_in_ranges(s, insn->address)) {
      StridePlan plan;
      if (stride_plan_insn(insn, s, &plan) != STRIDE_PLAN_NONE) {
        StridePlan *kept = (StridePlan *) g_malloc(sizeof(StridePlan));
        stride_copy(kept, &plan, sizeof(StridePlan));
        gum_stalker_iterator_put_callout(iterator, stride_on_insn, kept, g_free);
      }
    }
    gum_stalker_iterator_keep(iterator);
  }
}
