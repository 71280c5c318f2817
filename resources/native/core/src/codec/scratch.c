/* See scratch.h. Blocks are pages.c's (mapped from PAGES_MAPPED_FROM up); a kept one is handed
 * out again for a request of at least half its capacity (a call's tables have the same sizes
 * chunk after chunk; its ring buffer and commands follow the input). Only the pages a call
 * touches are resident, so a larger block costs address space, not memory. */
#include "scratch.h"
#include "pages.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define KEEP_BLOCKS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *kept[KEEP_BLOCKS];
static size_t n_kept, kept_bytes;

/* The smallest kept block that holds `bytes` in at most twice that, taken out; or NULL. */
static void *take(size_t bytes) {
  pthread_mutex_lock(&lock);
  size_t best = n_kept, best_capacity = SIZE_MAX;
  for (size_t i = 0; i < n_kept; i++) {
    size_t c = pages_capacity(kept[i]);
    if (c >= bytes && c / 2 <= bytes && c < best_capacity) {
      best = i;
      best_capacity = c;
    }
  }
  void *p = NULL;
  if (best < n_kept) {
    p = kept[best];
    kept[best] = kept[--n_kept];
    kept_bytes -= best_capacity;
  }
  pthread_mutex_unlock(&lock);
  return p;
}

void *scratch_alloc(void *opaque, size_t bytes) {
  (void)opaque;
  void *p = bytes >= PAGES_MAPPED_FROM ? take(bytes) : NULL;
  return p ? p : pages_alloc_raw(bytes);
}

void scratch_free(void *opaque, void *p) {
  (void)opaque;
  size_t capacity = p ? pages_capacity(p) : 0;
  bool keep = false;
  if (capacity) {
    pthread_mutex_lock(&lock);
    keep = n_kept < KEEP_BLOCKS && kept_bytes + capacity <= SCRATCH_KEEP_BYTES;
    if (keep) {
      kept[n_kept++] = p;
      kept_bytes += capacity;
    }
    pthread_mutex_unlock(&lock);
  }
  if (!keep) pages_free(p);
}

void scratch_kept(size_t *blocks, size_t *bytes) {
  pthread_mutex_lock(&lock);
  *blocks = n_kept;
  *bytes = kept_bytes;
  pthread_mutex_unlock(&lock);
}
