/* Growing C arrays (the codec's buffers grow with the point table and the chunk's output). */
#ifndef STRIDE_CODEC_GROW_H
#define STRIDE_CODEC_GROW_H
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Reallocates *a from old_bytes to new_bytes, zeroing the new part; false (and *a kept) when
 * memory runs out. */
static inline bool grow_zeroed(void **a, size_t old_bytes, size_t new_bytes) {
  void *next = realloc(*a, new_bytes);
  if (!next) return false;
  memset((char *)next + old_bytes, 0, new_bytes - old_bytes);
  *a = next;
  return true;
}

/* Makes room for `need` elements of `elem` bytes, doubling *cap. */
static inline bool grow_to(void **a, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return true;
  size_t n = *cap ? *cap : 256;
  while (n < need) n *= 2;
  void *next = realloc(*a, n * elem);
  if (!next) return false;
  *a = next;
  *cap = n;
  return true;
}

#endif
