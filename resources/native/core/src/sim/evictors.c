/* Evictee x evictor counts; see evictors.h. */
/* Strict aliasing here (binding.gyp turns it off for the core): nothing in this file puns
 * types, and without it every counter store makes the compiler reload the level's fields. */
#pragma GCC optimize("strict-aliasing")
#include "evictors.h"
#include <stdlib.h>
#include <string.h>

#define DENSE_MAX_CELLS (1u << 18)
#define SPARSE_STRIDE (1ull << 26)

bool evictors_init(SimEvictors *m, uint32_t points) {
  memset(m, 0, sizeof *m);
  m->width = (uint64_t)points + SIM_OWNER_SHIFT;
  if (m->width * m->width <= DENSE_MAX_CELLS) {
    m->dense = calloc(m->width * m->width, sizeof *m->dense);
    return m->dense != NULL;
  }
  return true;
}

void evictors_free(SimEvictors *m) {
  free(m->dense);
  free(m->keys);
  free(m->counts);
  m->dense = m->keys = m->counts = NULL;
  m->cap = m->n = 0;
}

static inline size_t hash(uint64_t key, size_t cap) {
  key *= 0x9e3779b97f4a7c15ull;
  return (size_t)(key >> 32) & (cap - 1);
}

static bool sparse_rehash(SimEvictors *m, size_t cap) {
  uint64_t *keys = calloc(cap, sizeof *keys), *counts = calloc(cap, sizeof *counts);
  if (!keys || !counts) {
    free(keys);
    free(counts);
    return false;
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t h = hash(m->keys[i], cap);
    while (keys[h]) h = (h + 1) & (cap - 1);
    keys[h] = m->keys[i];
    counts[h] = m->counts[i];
  }
  free(m->keys);
  free(m->counts);
  m->keys = keys;
  m->counts = counts;
  m->cap = cap;
  return true;
}

void evictors_add_sparse(SimEvictors *m, uint64_t a, uint64_t b, uint64_t count) {
  if ((m->n + 1) * 2 > m->cap && !sparse_rehash(m, m->cap ? m->cap * 2 : 1024)) {
    m->failed = true;
    return;
  }
  /* +1: key 0 marks a free slot. */
  uint64_t key = a * SPARSE_STRIDE + b + 1;
  size_t h = hash(key, m->cap);
  while (m->keys[h] && m->keys[h] != key) h = (h + 1) & (m->cap - 1);
  if (!m->keys[h]) {
    m->keys[h] = key;
    m->n++;
  }
  m->counts[h] += count;
}

static int by_key(const void *x, const void *y) {
  const double *a = x, *b = y;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

double *evictors_entries(const SimEvictors *m, size_t *n) {
  size_t k = 0;
  double *out;
  if (m->dense) {
    size_t cells = m->width * m->width;
    for (size_t i = 0; i < cells; i++) k += m->dense[i] != 0;
    out = malloc((k ? k : 1) * 3 * sizeof *out);
    if (!out) return NULL;
    k = 0;
    for (size_t i = 0; i < cells; i++) {
      if (!m->dense[i]) continue;
      out[3 * k] = (double)(i / m->width) - SIM_OWNER_SHIFT;
      out[3 * k + 1] = (double)(i % m->width) - SIM_OWNER_SHIFT;
      out[3 * k + 2] = (double)m->dense[i];
      k++;
    }
  } else {
    out = malloc((m->n ? m->n : 1) * 3 * sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->keys[i]) continue;
      uint64_t key = m->keys[i] - 1;
      out[3 * k] = (double)(key / SPARSE_STRIDE) - SIM_OWNER_SHIFT;
      out[3 * k + 1] = (double)(key % SPARSE_STRIDE) - SIM_OWNER_SHIFT;
      out[3 * k + 2] = (double)m->counts[i];
      k++;
    }
    qsort(out, k, 3 * sizeof *out, by_key);
  }
  *n = k;
  return out;
}

bool evictors_grow(SimEvictors *m, uint32_t points) {
  uint64_t width = (uint64_t)points + SIM_OWNER_SHIFT;
  if (width <= m->width) return true;
  size_t n;
  double *old = evictors_entries(m, &n);
  if (!old) return false;
  evictors_free(m);
  bool ok = evictors_init(m, points);
  for (size_t i = 0; ok && i < n; i++) evictors_add(m, (int32_t)old[3 * i], (int32_t)old[3 * i + 1], (uint64_t)old[3 * i + 2]);
  free(old);
  return ok && !m->failed;
}

size_t evictors_bytes(const SimEvictors *m) {
  return m->dense ? m->width * m->width * 8 : m->cap * 16;
}
