/* Mohan's stream detector; see detector.h and src/main/compress/stream-detector.ts. */
/* Strict aliasing here (binding.gyp turns it off for the core): nothing in this file puns types. */
#pragma GCC optimize("strict-aliasing")
#include "detector.h"
#include <stdlib.h>
#include <string.h>

#define NONE (-1)
#define MIN_STREAM_LENGTH 3
#define LONG_STREAM 100

/* ---- the key -> value table ---- */

#define FREE_KEY INT64_MIN

static NumSlot *free_slots(uint32_t n) {
  NumSlot *slots = malloc(n * sizeof *slots);
  if (slots)
    for (uint32_t i = 0; i < n; i++) slots[i].key = FREE_KEY;
  return slots;
}

static bool table_init(NumTable *h, uint32_t expected) {
  uint32_t bits = 4;
  while ((1u << bits) < expected * 4u) bits++;
  h->bits = bits;
  h->mask = (1u << bits) - 1;
  h->size = 0;
  h->slots = free_slots(1u << bits);
  return h->slots != NULL;
}

static void table_free(NumTable *h) {
  free(h->slots);
  h->slots = NULL;
}

static inline uint32_t slot_of(const NumTable *h, int64_t key) {
  uint64_t k = (uint64_t)key * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(k >> (64 - h->bits)) & h->mask;
}

static inline int64_t table_get(const NumTable *h, int64_t key) {
  for (uint32_t i = slot_of(h, key); h->slots[i].key != FREE_KEY; i = (i + 1) & h->mask)
    if (h->slots[i].key == key) return h->slots[i].value;
  return NONE;
}

static bool table_set(NumTable *h, int64_t key, int64_t value);

static bool table_grow(NumTable *h) {
  NumTable old = *h;
  uint32_t n = (old.mask + 1) * 2;
  h->bits++;
  h->mask = n - 1;
  h->size = 0;
  h->slots = free_slots(n);
  if (!h->slots) {
    *h = old;
    return false;
  }
  for (uint32_t i = 0; i <= old.mask; i++)
    if (old.slots[i].key != FREE_KEY) table_set(h, old.slots[i].key, old.slots[i].value);
  table_free(&old);
  return true;
}

static bool table_set(NumTable *h, int64_t key, int64_t value) {
  uint32_t i = slot_of(h, key);
  for (; h->slots[i].key != FREE_KEY; i = (i + 1) & h->mask)
    if (h->slots[i].key == key) {
      h->slots[i].value = value;
      return true;
    }
  h->slots[i] = (NumSlot){key, value};
  if (++h->size * 2 > h->mask) return table_grow(h);
  return true;
}

static void table_delete(NumTable *h, int64_t key) {
  uint32_t i = slot_of(h, key);
  while (h->slots[i].key != FREE_KEY && h->slots[i].key != key) i = (i + 1) & h->mask;
  if (h->slots[i].key == FREE_KEY) return;
  h->slots[i].key = FREE_KEY;
  h->size--;
  /* Backward shift: later entries of the probe run move into the hole when their home allows. */
  for (uint32_t j = (i + 1) & h->mask; h->slots[j].key != FREE_KEY; j = (j + 1) & h->mask) {
    uint32_t home = slot_of(h, h->slots[j].key);
    if (((j - home) & h->mask) >= ((j - i) & h->mask)) {
      h->slots[i] = h->slots[j];
      h->slots[j].key = FREE_KEY;
      i = j;
    }
  }
}

/* ---- the tally (StreamTally.add) ---- */

static void tally_add(StreamTally *t, int64_t len, int64_t signed_stride, double size) {
  double l = (double)len;
  t->streams++;
  t->in_streams += l;
  t->length_sq += l * l;
  double stride = (double)(signed_stride < 0 ? -signed_stride : signed_stride);
  t->stride_sum += stride;
  double elems = stride / (size > 1 ? size : 1);
  t->stride_elem_sum += elems;
  if (stride == 0) t->scalar++;
  if (len >= 4 && len < 32)
    t->buckets[0]++;
  else if (len >= 32 && len < 128)
    t->buckets[1]++;
  else if (len >= 128 && len <= 16384)
    t->buckets[2]++;
  else if (len > 16384)
    t->buckets[3]++;
  if (len >= LONG_STREAM) t->long_streams[elems < 10 ? 0 : elems < 32 ? 1 : 2]++;
}

/* ---- the detector ---- */

static bool grow_streams(StreamDetector *d) {
  uint32_t n = d->cap ? d->cap * 2 : d->window + 8;
#define GROW(field)                                         \
  do {                                                      \
    void *p = realloc(d->field, n * sizeof *d->field);      \
    if (!p) return false;                                   \
    d->field = p;                                           \
  } while (0)
  GROW(s_start);
  GROW(s_stride);
  GROW(s_length);
  GROW(s_last);
  GROW(s_size);
  GROW(s_same);
  GROW(s_newer);
  GROW(s_older);
  GROW(free_list);
#undef GROW
  d->cap = n;
  return true;
}

bool detector_init(StreamDetector *d, uint32_t window) {
  memset(d, 0, sizeof *d);
  if (window < 3) return false;
  d->window = window;
  d->addr = malloc(window * sizeof *d->addr);
  d->time = malloc(window * sizeof *d->time);
  d->prev_same = malloc(window * sizeof *d->prev_same);
  d->marked = calloc(window, 1);
  d->newest = d->oldest = NONE;
  if (!d->addr || !d->time || !d->prev_same || !d->marked || !table_init(&d->latest, window) || !table_init(&d->table, window) || !grow_streams(d)) {
    detector_free(d);
    return false;
  }
  for (uint32_t i = 0; i < window; i++) d->time[i] = d->prev_same[i] = -1;
  return true;
}

void detector_free(StreamDetector *d) {
  free(d->addr);
  free(d->time);
  free(d->prev_same);
  free(d->marked);
  table_free(&d->latest);
  table_free(&d->table);
  free(d->s_start);
  free(d->s_stride);
  free(d->s_length);
  free(d->s_last);
  free(d->s_size);
  free(d->s_same);
  free(d->s_newer);
  free(d->s_older);
  free(d->free_list);
  memset(d, 0, sizeof *d);
}

static inline int64_t key_of(const StreamDetector *d, int32_t s) { return d->s_start[s] + d->s_length[s] * d->s_stride[s]; }

static void link_key(StreamDetector *d, int32_t s) {
  int64_t k = key_of(d, s);
  d->s_same[s] = (int32_t)table_get(&d->table, k);
  if (!table_set(&d->table, k, s)) d->failed = true;
}

static void unlink_key(StreamDetector *d, int64_t k, int32_t s) {
  int32_t head = (int32_t)table_get(&d->table, k);
  if (head == s) {
    int32_t next = d->s_same[s];
    if (next != NONE) {
      if (!table_set(&d->table, k, next)) d->failed = true;
    } else
      table_delete(&d->table, k);
  } else {
    for (int32_t c = head; c != NONE; c = d->s_same[c])
      if (d->s_same[c] == s) {
        d->s_same[c] = d->s_same[s];
        break;
      }
  }
  d->s_same[s] = NONE;
}

/* Moves a stream to the young end of the age list. */
static void touch(StreamDetector *d, int32_t s) {
  if (d->newest == s) return;
  int32_t newer = d->s_newer[s], older = d->s_older[s];
  if (newer != NONE) d->s_older[newer] = older;
  if (older != NONE) d->s_newer[older] = newer;
  if (d->oldest == s) d->oldest = newer;
  d->s_newer[s] = NONE;
  d->s_older[s] = d->newest;
  if (d->newest != NONE) d->s_newer[d->newest] = s;
  d->newest = s;
  if (d->oldest == NONE) d->oldest = s;
}

/* Retires the oldest stream (the only one ever retired) into the statistics. */
static void retire(StreamDetector *d, int32_t s) {
  unlink_key(d, key_of(d, s), s);
  int32_t newer = d->s_newer[s];
  d->oldest = newer;
  if (newer != NONE)
    d->s_older[newer] = NONE;
  else
    d->newest = NONE;
  d->s_newer[s] = d->s_older[s] = NONE;
  d->free_list[d->n_free++] = s;
  tally_add(&d->tally, d->s_length[s], d->s_stride[s], d->s_size[s]);
}

static int32_t new_stream(StreamDetector *d, int64_t start, int64_t stride, uint32_t size, int64_t t) {
  int32_t s;
  if (d->n_free)
    s = d->free_list[--d->n_free];
  else {
    if (d->allocated == d->cap && !grow_streams(d)) {
      d->failed = true;
      return NONE;
    }
    s = (int32_t)d->allocated++;
  }
  d->s_start[s] = start;
  d->s_stride[s] = stride;
  d->s_length[s] = MIN_STREAM_LENGTH;
  d->s_size[s] = size;
  d->s_last[s] = t;
  d->s_same[s] = d->s_newer[s] = d->s_older[s] = NONE;
  return s;
}

void detector_add(StreamDetector *d, int64_t address, uint32_t size) {
  int64_t t = d->t++;
  /* Pool positions by a running column, not t % w: a 64-bit division per access and per
   * candidate was a third of the detector's time. */
  uint32_t w = d->window, col = d->col;
  d->col = col + 1 == w ? 0 : col + 1;
  /* The reference leaving the pool. */
  if (d->time[col] >= 0) {
    int64_t old = d->addr[col];
    if (table_get(&d->latest, old) == d->time[col]) table_delete(&d->latest, old);
  }
  while (d->oldest != NONE && d->s_last[d->oldest] <= t - w) retire(d, d->oldest);
  d->addr[col] = address;
  d->time[col] = t;
  d->marked[col] = 0;
  d->prev_same[col] = -1;

  int64_t s = table_get(&d->table, address);
  if (s != NONE) {
    /* Extends a known stream: re-key it under its next expected successor. */
    unlink_key(d, address, (int32_t)s);
    d->s_length[s]++;
    d->s_last[s] = t;
    touch(d, (int32_t)s);
    link_key(d, (int32_t)s);
    d->marked[col] = 1;
    return;
  }
  /* Search the pool for a pair (e, c) with x - c = c - e, nearest c first. */
  int64_t lo = t - w; /* positions > lo are in the pool */
  for (uint32_t i = 1; i < w; i++) {
    int64_t tc = t - i;
    if (tc <= lo || tc < 0) break;
    uint32_t cc = col >= i ? col - i : col + w - i; /* tc % w, as tc = t - i */
    if (d->marked[cc]) continue;
    int64_t c = d->addr[cc];
    int64_t want = 2 * c - address;
    for (int64_t te = table_get(&d->latest, want); te >= 0 && te > lo;) {
      uint32_t back = (uint32_t)(t - te); /* in [1, w): te is in the pool */
      uint32_t ce = col >= back ? col - back : col + w - back;
      if (te < tc && !d->marked[ce]) {
        d->marked[ce] = d->marked[cc] = d->marked[col] = 1;
        int32_t n = new_stream(d, want, address - c, size, t);
        if (n == NONE) return;
        touch(d, n);
        link_key(d, n);
        return;
      }
      te = d->prev_same[ce];
    }
  }
  /* Not part of a stream (yet): index it for later searches. */
  d->prev_same[col] = table_get(&d->latest, address);
  if (!table_set(&d->latest, address, t)) d->failed = true;
}

void detector_finish(StreamDetector *d) {
  while (d->oldest != NONE) retire(d, d->oldest);
}
