/* The encoder's arrays live as long as its trace and grow to their chunk's needs; large ones
 * get pages of their own instead of malloc's heap. Left in the heap they pin its top: the
 * short-lived blocks of everything else in the process (brotli's state per stream, Node's
 * buffers) then land on fresh pages each chunk, and a page fault costs ~14 us on these VMs
 * (docs/BENCHMARKS.md, "The encoder's arrays off malloc's heap"). Memory is zero-filled. */
#ifndef STRIDE_CODEC_PAGES_H
#define STRIDE_CODEC_PAGES_H
#include <stddef.h>

void *pages_alloc(size_t bytes);
/* Contents kept, the grown part zero-filled; NULL (p kept) when memory runs out. */
void *pages_realloc(void *p, size_t bytes);
void pages_free(void *p);

#endif
