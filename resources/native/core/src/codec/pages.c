/* See pages.h. Each block's data follows a header (its size and whether it is mapped); the
 * header is a cache line, so malloc's blocks stay 64-byte aligned, mapped ones page-aligned. */
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
  size_t mapped; /* the data part's length (after the header page), 0 when the block is malloc's */
} Header;

/* From HUGE_FROM up a block's data is whole huge pages (2 MB, aligned) that the kernel is asked
 * to back with transparent huge pages: one fault per 2 MB instead of 512 (~14 us each on these
 * VMs; docs/BENCHMARKS.md at cb83178, "Where a short command's time goes"), for at most twice the
 * memory of a block just past HUGE_FROM. Without THP the advice is refused: ordinary pages.
 * A mapped block's header sits at the end of an ordinary page of its own before the data:
 * in the data's first huge page, writing it made the kernel zero 2 MB for each block made,
 * used or not (an encoder's arrays: about 20 MB zeroed for every trace). */
#define HUGE ((size_t)2 << 20)
#define HUGE_FROM ((size_t)1 << 20)
#define HEAD_PAGE ((size_t)4096)

/* The data part's length: whole huge pages from HUGE_FROM, else whole pages. */
static size_t data_length(size_t bytes) {
  size_t page = bytes >= HUGE_FROM ? HUGE : HEAD_PAGE;
  return (bytes + page - 1) & ~(page - 1);
}

/* Asks for huge pages over a whole mapping (header page and data), so that it stays one
 * mapping: advice on the data alone split it in two, and mremap refuses (EFAULT) to move a
 * range that spans two. Only the data's aligned 2 MB extents can be huge; the header page,
 * alone in its extent, stays an ordinary page. */
static void advise(char *start, size_t length) { madvise(start, HEAD_PAGE + length, MADV_HUGEPAGE); }

/* A mapping of the header page and `length` bytes of zero-filled data; returns the data. Data
 * of whole huge pages is mapped HUGE-aligned and advised. */
static char *map(size_t length) {
  if (length % HUGE) {
    char *start = mmap(NULL, HEAD_PAGE + length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return start == MAP_FAILED ? NULL : start + HEAD_PAGE;
  }
  /* Over-mapped by HUGE, then the ends around [aligned data - HEAD_PAGE, data end) given back. */
  size_t total = HEAD_PAGE + length + HUGE;
  char *raw = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  char *data = (char *)(((uintptr_t)raw + HEAD_PAGE + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
  char *start = data - HEAD_PAGE;
  if (start > raw) munmap(raw, (size_t)(start - raw));
  size_t tail = (size_t)(raw + total - (data + length));
  if (tail) munmap(data + length, tail);
  advise(start, length);
  return data;
}

static void *place(void *data, size_t bytes, size_t mapped) {
  Header *h = (Header *)((char *)data - HEADER);
  h->bytes = bytes;
  h->mapped = mapped;
  return data;
}

static Header *header_of(void *p) { return (Header *)((char *)p - HEADER); }

static void *alloc(size_t bytes, bool zeroed) {
  if (bytes > SIZE_MAX - HUGE - 2 * HEAD_PAGE) return NULL;
  if (bytes < MAPPED_FROM) {
    char *base = zeroed ? calloc(1, bytes + HEADER) : malloc(bytes + HEADER);
    return base ? place(base + HEADER, bytes, 0) : NULL;
  }
  size_t length = data_length(bytes);
  char *data = map(length);
  return data ? place(data, bytes, length) : NULL;
}

void *pages_alloc(size_t bytes) { return alloc(bytes, true); }
void *pages_alloc_raw(size_t bytes) { return alloc(bytes, false); }

size_t pages_capacity(const void *p) {
  const Header *h = (const Header *)((const char *)p - HEADER);
  return h->mapped;
}

void *pages_realloc(void *p, size_t bytes) {
  if (!p) return pages_alloc(bytes);
  Header *h = header_of(p);
  size_t old = h->bytes;
  if (h->mapped && bytes >= MAPPED_FROM && bytes <= SIZE_MAX - HUGE - 2 * HEAD_PAGE) {
    size_t length = data_length(bytes), was = h->mapped;
    char *start = (char *)p - HEAD_PAGE, *data = (char *)p;
    if (length != was) {
      /* Huge-page data is moved onto a fresh aligned mapping (its pages move, nothing is
       * copied): where the kernel would place it, the data after the header page would start
       * 4 KB past a 2 MB boundary, its first huge page lost to 4 KB faults. */
      char *onto = length % HUGE == 0 ? map(length) : NULL;
      if (length % HUGE == 0 && !onto) return NULL;
      char *moved = onto ? mremap(start, HEAD_PAGE + was, HEAD_PAGE + length, MREMAP_MAYMOVE | MREMAP_FIXED, onto - HEAD_PAGE)
                         : mremap(start, HEAD_PAGE + was, HEAD_PAGE + length, MREMAP_MAYMOVE);
      if (moved == MAP_FAILED) {
        if (onto) munmap(onto - HEAD_PAGE, HEAD_PAGE + length);
        return NULL;
      }
      data = moved + HEAD_PAGE;
      /* The moved mapping keeps the old one's advice: a block grown into huge sizes is advised. */
      if (onto) advise(moved, length);
    }
    /* Pages past the old mapping come zero-filled; bytes of it past `old` may hold what a
     * shrink left. */
    size_t from_old = was < length ? was : length, end = from_old < bytes ? from_old : bytes;
    if (end > old) memset(data + old, 0, end - old);
    return place(data, bytes, length);
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
  if (h->mapped) munmap((char *)p - HEAD_PAGE, HEAD_PAGE + h->mapped);
  else free(h);
}
