/* See scratch.h. A block is reused for a request of at least half its size (a call's tables
 * have the same sizes chunk after chunk; its ring buffer and commands follow the input). Only
 * the pages a call touches are resident, so a larger block costs address space, not memory. */
#define _GNU_SOURCE
#include "scratch.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HEADER 64 /* a cache line: mapped blocks stay 64-byte aligned */
#define KEPT_FROM ((size_t)64 << 10)
#define KEEP_BLOCKS 64

typedef struct {
  size_t length; /* the mapping's length, 0 when the block is malloc's */
} Header;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Header *kept[KEEP_BLOCKS];
static size_t n_kept, kept_bytes;

/* The smallest kept block of at least `length` and at most twice it, taken out; or NULL. */
static Header *take(size_t length) {
  pthread_mutex_lock(&lock);
  size_t best = n_kept;
  for (size_t i = 0; i < n_kept; i++) {
    size_t l = kept[i]->length;
    if (l >= length && l / 2 <= length && (best == n_kept || l < kept[best]->length)) best = i;
  }
  Header *h = NULL;
  if (best < n_kept) {
    h = kept[best];
    kept[best] = kept[--n_kept];
    kept_bytes -= h->length;
  }
  pthread_mutex_unlock(&lock);
  return h;
}

void *scratch_alloc(void *opaque, size_t bytes) {
  (void)opaque;
  if (bytes > SIZE_MAX / 2) return NULL;
  if (bytes + HEADER < KEPT_FROM) {
    Header *h = malloc(bytes + HEADER);
    if (!h) return NULL;
    h->length = 0;
    return (char *)h + HEADER;
  }
  size_t length = (bytes + HEADER + 4095) & ~(size_t)4095;
  Header *h = take(length);
  if (!h) {
    void *base = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return NULL;
    h = base;
    h->length = length;
  }
  return (char *)h + HEADER;
}

void scratch_free(void *opaque, void *p) {
  (void)opaque;
  if (!p) return;
  Header *h = (Header *)((char *)p - HEADER);
  if (!h->length) {
    free(h);
    return;
  }
  pthread_mutex_lock(&lock);
  bool keep = n_kept < KEEP_BLOCKS && kept_bytes + h->length <= SCRATCH_KEEP_BYTES;
  if (keep) {
    kept[n_kept++] = h;
    kept_bytes += h->length;
  }
  pthread_mutex_unlock(&lock);
  if (!keep) munmap(h, h->length);
}

void scratch_kept(size_t *blocks, size_t *bytes) {
  pthread_mutex_lock(&lock);
  *blocks = n_kept;
  *bytes = kept_bytes;
  pthread_mutex_unlock(&lock);
}
