/* Evictee x evictor counts for one level (METRIC section 8): the C form of
 * src/main/simulate/evictor-matrix.ts. Owner codes: a point (>= 0), or -1 none, -2
 * prefetch, -3 write-back. Dense while the point table is small, an open-addressing hash
 * beyond that (most pairs never meet). */
#ifndef STRIDE_SIM_EVICTORS_H
#define STRIDE_SIM_EVICTORS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Owner codes are shifted by this so every index is >= 0. */
#define SIM_OWNER_SHIFT 4

typedef struct {
  uint64_t width;
  uint64_t *dense;
  /* Sparse: keys (evictee+3) * 2^26 + (evictor+3), 0 = free slot; counts beside them. */
  uint64_t *keys, *counts;
  size_t cap, n;
  bool failed;
} SimEvictors;

bool evictors_init(SimEvictors *m, uint32_t points);
void evictors_free(SimEvictors *m);
/* The point table grew: move to the sparse form if the dense one no longer fits. */
bool evictors_grow(SimEvictors *m, uint32_t points);
/* The sparse form's add (out of line: the dense one is the hot path). */
void evictors_add_sparse(SimEvictors *m, uint64_t a, uint64_t b, uint64_t count);

static inline void evictors_add(SimEvictors *m, int32_t evictee, int32_t evictor, uint64_t count) {
  uint64_t a = (uint64_t)((int64_t)evictee + SIM_OWNER_SHIFT), b = (uint64_t)((int64_t)evictor + SIM_OWNER_SHIFT);
  if (m->dense)
    m->dense[a * m->width + b] += count;
  else
    evictors_add_sparse(m, a, b, count);
}
/* Entries as (evictee, evictor, count) triples in (evictee, evictor) order; the caller
 * frees the array. *n = triples. NULL when out of memory. */
double *evictors_entries(const SimEvictors *m, size_t *n);
size_t evictors_bytes(const SimEvictors *m);
#endif
