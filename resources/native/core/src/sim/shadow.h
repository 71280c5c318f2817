/* The fully associative LRU shadow of one cache level, for the three Cs of its misses (Hill &
 * Smith): per access point, how many of its accesses the shadow misses, how many touch a line
 * never touched before, and which of the level's sets its lines fall in. The native twin of
 * src/main/analysis/advice/miss-classes.ts (MissClassifier, the reference model): the same
 * counts for the same accesses (miss-classes-native.test.ts holds them equal). Fed by a trace's
 * first simulation, chunk by chunk, so the advisor reads stored counts instead of replaying
 * the trace. The point table may grow between batches (a trace still recording). */
#ifndef STRIDE_SIM_SHADOW_H
#define STRIDE_SIM_SHADOW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int64_t line;
  int32_t prev, next;
} ShadowSlot;

typedef struct {
  int64_t key; /* a line, or EMPTY */
  int32_t val; /* its slot */
} ShadowEntry;

typedef struct {
  uint32_t capacity; /* lines the level holds */
  uint32_t sets;     /* the level's sets (for the set bitmap) */
  double line_scale; /* 1 / line size, as the model computes a line */
  /* The LRU list over slots, head the least recently used; a slot's line and links in one
   * record, so a move touches a cache line per slot, not one per field. */
  ShadowSlot *slot;
  int32_t head, tail;
  uint32_t used;
  /* line -> slot (open addressing, backward-shift deletion); key and value side by side */
  ShadowEntry *table;
  uint32_t mask, shift;
  /* lines ever touched, up to max_remembered (then later first touches count as misses): a
   * bitmap per page of SEEN_PAGE_LINES lines, the pages in a hash (a new line of a stream
   * falls in the page its predecessor did: one cache line, not a random probe) */
  int64_t *seen_keys;
  uint32_t *seen_page;
  uint64_t *seen_bits;
  uint32_t seen_mask, seen_shift, seen_pages, seen_bits_cap, seen_size, max_remembered;
  int64_t last_page;
  uint64_t *last_bits;
  bool forgetful;
  /* per point */
  uint32_t points; /* known points (one past the largest seen or set) */
  uint32_t points_cap;
  double *shadow_misses, *cold_misses;
  uint8_t *set_bits; /* bits_cap x sets, or NULL once the points outgrow max_set_bitmap */
  uint32_t bits_cap;
  size_t max_set_bitmap;
} Shadow;

/* NULL, or why not (out of memory, a zero-sized level). */
const char *shadow_init(Shadow *s, double size, double assoc, double line_size, uint32_t max_remembered, size_t max_set_bitmap);
void shadow_free(Shadow *s);

/* `count` accesses; `kinds` (n_kinds of them, NULL: none) doubles each access of a modify
 * point (kind 2: a read then a write of the same bytes, as the run counts it). NULL, or why not. */
const char *shadow_run(Shadow *s, uint32_t count, const uint32_t *points, const double *addresses, const uint16_t *sizes, const uint8_t *kinds, size_t n_kinds);

/* Makes room for `points` points (a point table larger than any point fed). NULL, or why not. */
const char *shadow_grow(Shadow *s, uint32_t points);

/* Distinct sets point p's lines fell in (valid while set_bits is kept). */
uint32_t shadow_sets_of(const Shadow *s, uint32_t p);

size_t shadow_bytes(const Shadow *s);
#endif
