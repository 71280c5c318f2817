/*
 * Frida only: the AVX upper state a followed thread is left with. Stalker's prologs and
 * epilogs save and restore the upper halves of ymm0-15 around every callout and gate when
 * the CPU has AVX2 (vextracti128 / vinserti128), and vinserti128 marks that state in use
 * (XSTATE_BV bit 2) even when it restores zeros. Nothing clears it after the thread is let
 * go: on a glibc that picks its EVEX string functions (AVX-512 machines) no vzeroupper
 * runs, and every later legacy-SSE instruction pays for the dirty upper state, for good
 * (attach-target's sumfunc: ~91 K calls per CPU-second against ~210 K before the attach).
 *
 * stride_clear_upper runs as a native Interceptor onLeave after the agent's own onLeave,
 * whose Stalker.unfollow of the current thread takes effect when that listener returns:
 * by then the thread runs its own code again, and vzeroupper puts the upper state back to
 * its initial, clean form. Safe at a function's return: the SysV ABI preserves no vector
 * register across a call, and the return value's lower 128 bits (xmm0) are kept; only a
 * function returning a 256-bit vector would lose its upper half, as under any compiler's
 * own vzeroupper.
 */
typedef struct _GumInvocationContext GumInvocationContext;

static int stride_cpuid_has(guint32 leaf, int reg, int bit)
{
  guint32 a = leaf, b = 0, c = 0, d = 0;
  __asm__ volatile(".byte 0x0f, 0xa2" /* cpuid */ : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
  guint32 r = reg == 1 ? b : reg == 2 ? c : d;
  return (r >> bit) & 1;
}

/* 1 where Stalker saves the upper halves (the CPU has AVX2 and the OS keeps ymm state). */
int stride_upper_state_saved(void)
{
  guint32 a = 0, c = 0, d = 0;
  if (!stride_cpuid_has(1, 2, 27)) return 0; /* OSXSAVE */
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" /* xgetbv */ : "=a"(a), "=d"(d) : "c"(c));
  if ((a & 6) != 6) return 0; /* XCR0: SSE and AVX state enabled */
  return stride_cpuid_has(7, 1, 5); /* AVX2 */
}

void stride_clear_upper(GumInvocationContext *ic)
{
  (void) ic;
  __asm__ volatile(".byte 0xc5, 0xf8, 0x77" /* vzeroupper */);
}
