/* Brotli's working memory (the second stage's hash tables, ring buffer and command arrays:
 * 0.1-5 MB a call) and the decoder's arrays (a few MB a chunk), kept for the process between
 * calls instead of returned. malloc hands blocks this large to fresh mappings, so every
 * chunk's brotli would fault its tables in afresh: ~14 us a page on these VMs, ~35 K faults
 * on a C++ program's trace (docs/BENCHMARKS.md at cb83178, "Brotli in the core"). Kept blocks are shared
 * by every thread (one lock, taken twice a block), at most SCRATCH_KEEP_BYTES of them; small
 * blocks stay malloc's (pages.h). The signatures are brotli's allocator hooks (opaque unused). */
#ifndef STRIDE_CODEC_SCRATCH_H
#define STRIDE_CODEC_SCRATCH_H
#include <stddef.h>

#define SCRATCH_KEEP_BYTES ((size_t)64 << 20)

void *scratch_alloc(void *opaque, size_t bytes);
void scratch_free(void *opaque, void *p);
/* What is kept now, for tests: blocks and their mapped bytes. */
void scratch_kept(size_t *blocks, size_t *bytes);

#endif
