/* See pages.h. Each block starts with a header (its size and whether it is mapped); the
 * header is a cache line, so mapped blocks stay 64-byte aligned. */
#define _GNU_SOURCE
#include "pages.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HEADER 64
/* Below PAGES_MAPPED_FROM, malloc's heap (its small bins do not pin the top). */
#define MAPPED_FROM PAGES_MAPPED_FROM

typedef struct {
  size_t bytes;  /* what the caller asked for */
  size_t mapped; /* the mapping's length, 0 when the block is malloc's */
} Header;

/* From HUGE_FROM up a block is whole huge pages (2 MB, aligned) that the kernel is asked to
 * back with transparent huge pages: one fault per 2 MB instead of 512 (~14 us each on these
 * VMs; docs/BENCHMARKS.md, "Where a short command's time goes"), for at most twice the
 * memory of a block just past HUGE_FROM. Without THP the advice is refused: ordinary pages. */
#define HUGE ((size_t)2 << 20)
#define HUGE_FROM ((size_t)1 << 20)

static size_t mapping_for(size_t bytes) {
  size_t n = bytes + HEADER, page = n >= HUGE_FROM ? HUGE : 4096;
  return (n + page - 1) & ~(page - 1);
}

/* `length` bytes of zero-filled memory; a multiple of HUGE is mapped HUGE-aligned and advised. */
static void *map(size_t length) {
  if (length % HUGE) {
    void *base = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return base == MAP_FAILED ? NULL : base;
  }
  /* Over-mapped by HUGE - 4 KB, then the ends around the aligned range given back. */
  size_t slack = HUGE - 4096;
  char *raw = mmap(NULL, length + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  char *base = (char *)(((uintptr_t)raw + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
  if (base > raw) munmap(raw, (size_t)(base - raw));
  size_t tail = (size_t)(raw + length + slack - (base + length));
  if (tail) munmap(base + length, tail);
  madvise(base, length, MADV_HUGEPAGE);
  return base;
}

static void *place(void *base, size_t bytes, size_t mapped) {
  Header *h = base;
  h->bytes = bytes;
  h->mapped = mapped;
  return (char *)base + HEADER;
}

static Header *header_of(void *p) { return (Header *)((char *)p - HEADER); }

static void *alloc(size_t bytes, bool zeroed) {
  if (bytes > SIZE_MAX - 2 * 4096) return NULL;
  if (bytes < MAPPED_FROM) {
    void *base = zeroed ? calloc(1, bytes + HEADER) : malloc(bytes + HEADER);
    return base ? place(base, bytes, 0) : NULL;
  }
  size_t length = mapping_for(bytes);
  void *base = map(length);
  return base ? place(base, bytes, length) : NULL;
}

void *pages_alloc(size_t bytes) { return alloc(bytes, true); }
void *pages_alloc_raw(size_t bytes) { return alloc(bytes, false); }

size_t pages_capacity(const void *p) {
  const Header *h = (const Header *)((const char *)p - HEADER);
  return h->mapped ? h->mapped - HEADER : 0;
}

void *pages_realloc(void *p, size_t bytes) {
  if (!p) return pages_alloc(bytes);
  Header *h = header_of(p);
  size_t old = h->bytes;
  if (h->mapped && bytes >= MAPPED_FROM && bytes <= SIZE_MAX - 2 * 4096) {
    size_t length = mapping_for(bytes), was = h->mapped;
    void *base = length == was ? (void *)h : mremap(h, was, length, MREMAP_MAYMOVE);
    if (base == MAP_FAILED) return NULL;
    /* Moved or not, a block grown into huge sizes is advised too (only its aligned part can be huge). */
    if (length % HUGE == 0 && length != was) madvise(base, length, MADV_HUGEPAGE);
    /* Pages past the old mapping come zero-filled; bytes of it past `old` may hold what a
     * shrink left. */
    size_t from_old = (was < length ? was : length) - HEADER, end = from_old < bytes ? from_old : bytes;
    if (end > old) memset((char *)base + HEADER + old, 0, end - old);
    return place(base, bytes, length);
  }
  void *next = pages_alloc(bytes);
  if (!next) return NULL;
  memcpy(next, p, old < bytes ? old : bytes);
  pages_free(p);
  return next;
}

void pages_free(void *p) {
  if (!p) return;
  Header *h = header_of(p);
  if (h->mapped) munmap(h, h->mapped);
  else free(h);
}
