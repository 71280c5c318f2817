/* The encoder's arrays live as long as its trace and grow to their chunk's needs; large ones
 * get pages of their own instead of malloc's heap. Left in the heap they pin its top: the
 * short-lived blocks of everything else in the process (brotli's state per stream, Node's
 * buffers) then land on fresh pages each chunk, and a page fault costs ~14 us on these VMs
 * (docs/BENCHMARKS.md at cb83178, "The encoder's arrays off malloc's heap"). pages_alloc's memory is
 * zero-filled. brotli's working memory (scratch.c) is made of the same blocks. */
#ifndef STRIDE_CODEC_PAGES_H
#define STRIDE_CODEC_PAGES_H
#include <stddef.h>

/* From this size up a block is a mapping of its own; below, malloc's. */
#define PAGES_MAPPED_FROM ((size_t)64 << 10)

void *pages_alloc(size_t bytes);
/* As pages_alloc, its contents unspecified: for blocks that are never pages_realloc'd
 * (scratch.c hands them out again for other sizes). */
void *pages_alloc_raw(size_t bytes);
/* What a mapped block can hold, 0 for one of malloc's. */
size_t pages_capacity(const void *p);
/* Contents kept, the grown part zero-filled; NULL (p kept) when memory runs out. */
void *pages_realloc(void *p, size_t bytes);
void pages_free(void *p);

#endif
