/* Growing C arrays (the codec's buffers grow with the point table and the chunk's output). */
#ifndef STRIDE_CODEC_GROW_H
#define STRIDE_CODEC_GROW_H
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "pages.h"

/* Reallocates *a (pages.h) to new_bytes, what it adds zero-filled (pages_realloc does that);
 * false (and *a kept) when memory runs out. */
static inline bool grow_zeroed(void **a, size_t new_bytes) {
  void *next = pages_realloc(*a, new_bytes);
  if (!next) return false;
  *a = next;
  return true;
}

/* Makes room for `need` elements of `elem` bytes (pages.h), doubling *cap. */
static inline bool grow_to(void **a, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return true;
  size_t n = *cap ? *cap : 256;
  while (n < need) n *= 2;
  void *next = pages_realloc(*a, n * elem);
  if (!next) return false;
  *a = next;
  *cap = n;
  return true;
}

#endif
