/* Mohan's stream detector; see detector.h and src/main/compress/stream-detector.ts. */
/* Strict aliasing here (binding.gyp turns it off for the core): nothing in this file puns types. */
#pragma GCC optimize("strict-aliasing")
#include "detector.h"
#include <stdlib.h>
#include <string.h>

#define NONE (-1)
#define MIN_STREAM_LENGTH 3
#define LONG_STREAM 100
/* prev_same of a pool reference never put in `latest` (chains hold times or NONE). */
#define NOT_INDEXED (-2)

/* ---- the key -> value table ---- */

#define FREE_KEY INT64_MIN

static NumSlot *free_slots(uint32_t n) {
  NumSlot *slots = malloc(n * sizeof *slots);
  if (slots)
    for (uint32_t i = 0; i < n; i++) slots[i].key = FREE_KEY;
  return slots;
}

/* A table starts at 16 slots and, once those fill, goes to its window's size: a whole-program
 * trace keeps a detector per function (hundreds), most seeing a few addresses, and tables
 * sized for the window up front cost 5 pages each to fill in (~14 us a page fault on this
 * kind of VM). A busy detector's tables are as large as before (the probe runs as short). */
#define FIRST_BITS 4

static bool table_init(NumTable *h, uint32_t expected) {
  uint32_t bits = FIRST_BITS, sized = 1u << FIRST_BITS;
  while (sized < expected * 4u) sized *= 2;
  h->sized = sized;
  h->shift = 64 - bits;
  h->mask = (1u << bits) - 1;
  h->size = 0;
  h->slots = free_slots(1u << bits);
  return h->slots != NULL;
}

static void table_free(NumTable *h) {
  free(h->slots);
  h->slots = NULL;
}

#define HASH_MUL 0x9e3779b97f4a7c15ull

static inline uint32_t slot_of(const NumTable *h, int64_t key) { return (uint32_t)(((uint64_t)key * HASH_MUL) >> h->shift); }

/* The slot holding key, or the free slot ending its probe run (where it would go): callers
 * that then change the entry probe once, not once to look and again to change. */
static inline uint32_t table_find(const NumTable *h, int64_t key) {
  uint32_t i = slot_of(h, key);
  while (h->slots[i].key != key && h->slots[i].key != FREE_KEY) i = (i + 1) & h->mask;
  return i;
}

static inline bool table_has(const NumTable *h, uint32_t i) { return h->slots[i].key != FREE_KEY; }

static inline int64_t table_get(const NumTable *h, int64_t key) {
  uint32_t i = table_find(h, key);
  return table_has(h, i) ? h->slots[i].value : NONE;
}

static bool table_grow(NumTable *h);

/* Fills the free slot i (from table_find) with key -> value. */
static inline bool table_insert_at(NumTable *h, uint32_t i, int64_t key, int64_t value) {
  h->slots[i] = (NumSlot){key, value};
  /* Half full, or a quarter while it has its first 16 slots: a detector that sees more than a
   * few addresses gets its window's table at once. */
  ++h->size;
  if (h->size * 2 > h->mask || (h->mask + 1 < h->sized && h->size * 4 > h->mask + 1)) return table_grow(h);
  return true;
}

static bool table_set(NumTable *h, int64_t key, int64_t value) {
  uint32_t i = table_find(h, key);
  if (table_has(h, i)) {
    h->slots[i].value = value;
    return true;
  }
  return table_insert_at(h, i, key, value);
}

static bool table_grow(NumTable *h) {
  NumTable old = *h;
  uint32_t n = (old.mask + 1) * 2;
  if (n < h->sized) n = h->sized;
  h->shift = 64 - (uint32_t)__builtin_ctz(n);
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

/* Empties the occupied slot i. */
static void table_delete_at(NumTable *h, uint32_t i) {
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
  /* From 16 records, doubling: most detectors of a whole-program trace hold a few streams. */
  uint32_t n = d->cap ? d->cap * 2 : 16;
  Stream *s = aligned_alloc(64, n * sizeof *s);
  if (!s) return false;
  if (d->streams) memcpy(s, d->streams, d->cap * sizeof *s);
  free(d->streams);
  d->streams = s;
  int32_t *f = realloc(d->free_list, n * sizeof *f);
  if (!f) return false;
  d->free_list = f;
  d->cap = n;
  return true;
}

/* The filter cell of a `latest` key (saturated counts stay, so a cell never drops to 0 while
 * a key of it is in the table). */
static inline uint8_t *filter_cell(const StreamDetector *d, int64_t key) { return &d->latest_filter[((uint64_t)key * HASH_MUL) >> d->filter_shift]; }

/* Sizes `latest`'s filter to the table (8 cells a slot, up to 2^16: it grows with the table,
 * small while the table is) and counts the table's keys into it. False when out of memory
 * (the filter stays as it was). */
static bool fit_filter(StreamDetector *d) {
  uint32_t bits = 64 - d->latest.shift + 3;
  if (bits > 16) bits = 16;
  if (d->latest_filter && d->filter_shift == 64 - bits) return true;
  uint8_t *cells = calloc((size_t)1 << bits, 1);
  if (!cells) return false;
  free(d->latest_filter);
  d->latest_filter = cells;
  d->filter_shift = 64 - bits;
  const NumTable *h = &d->latest;
  for (uint32_t i = 0; i <= h->mask; i++)
    if (h->slots[i].key != FREE_KEY) {
      uint8_t *f = filter_cell(d, h->slots[i].key);
      if (*f != 255) ++*f;
    }
  return true;
}

bool detector_init(StreamDetector *d, uint32_t window) {
  memset(d, 0, sizeof *d);
  if (window < 3) return false;
  d->window = window;
  d->addr = malloc(window * sizeof *d->addr);
  d->prev_same = malloc(window * sizeof *d->prev_same);
  d->marked = calloc(window, 1);
  d->touched = malloc(window * sizeof *d->touched);
  bool tables = table_init(&d->latest, window) && table_init(&d->table, window);
  if (!d->addr || !d->prev_same || !d->marked || !d->touched || !tables || !fit_filter(d) || !grow_streams(d)) {
    detector_free(d);
    return false;
  }
  for (uint32_t i = 0; i < window; i++) {
    d->prev_same[i] = NOT_INDEXED;
    d->touched[i] = NONE;
  }
  return true;
}

void detector_free(StreamDetector *d) {
  free(d->addr);
  free(d->prev_same);
  free(d->marked);
  free(d->touched);
  free(d->latest_filter);
  table_free(&d->latest);
  table_free(&d->table);
  free(d->streams);
  free(d->free_list);
  memset(d, 0, sizeof *d);
}

/* Files stream s under its key, first on that key's chain. */
static inline __attribute__((always_inline)) void link_key(StreamDetector *d, int32_t s) {
  NumTable *h = &d->table;
  int64_t k = d->streams[s].key;
  uint32_t i = table_find(h, k);
  if (table_has(h, i)) {
    d->streams[s].same = (int32_t)h->slots[i].value;
    h->slots[i].value = s;
  } else {
    d->streams[s].same = NONE;
    if (!table_insert_at(h, i, k, s)) d->failed = true;
  }
}

/* Takes stream s off its key's chain; slot i is the key's (from table_find). */
static void unlink_at(StreamDetector *d, uint32_t i, int32_t s) {
  NumTable *h = &d->table;
  Stream *st = d->streams;
  int32_t head = table_has(h, i) ? (int32_t)h->slots[i].value : NONE;
  if (head == s) {
    if (st[s].same != NONE)
      h->slots[i].value = st[s].same;
    else
      table_delete_at(h, i);
  } else {
    for (int32_t c = head; c != NONE; c = st[c].same)
      if (st[c].same == s) {
        st[c].same = st[s].same;
        break;
      }
  }
  st[s].same = NONE;
}

/* Retires stream s (no longer extended within the window) into the statistics. Apart from the
 * per-access path: few accesses retire any. */
static __attribute__((noinline)) void retire(StreamDetector *d, int32_t s) {
  Stream *st = d->streams;
  unlink_at(d, table_find(&d->table, st[s].key), s);
  d->free_list[d->n_free++] = s;
  tally_add(&d->tally, st[s].length, st[s].stride, st[s].size);
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
  d->streams[s] = (Stream){.key = start + MIN_STREAM_LENGTH * stride, .stride = stride, .length = MIN_STREAM_LENGTH, .last = t, .same = NONE, .size = size};
  return s;
}

/* Candidate c (pool column cc, time tc) of a pool search for x at time t, column col: is
 * there an unmarked e = 2c - x in the pool before c? If so, begins the stream (e, c, x) and
 * returns true. `want_hash` is (2c - x) * HASH_MUL. */
static __attribute__((noinline)) bool pair_with(StreamDetector *d, uint32_t cc, int64_t tc, int64_t address, uint32_t size, int64_t t,
                                                uint32_t col, uint64_t want_hash) {
  uint32_t w = d->window;
  int64_t lo = t - w;
  const NumTable *latest = &d->latest;
  const NumSlot *slots = latest->slots;
  int64_t want = 2 * d->addr[cc] - address;
  uint32_t j = (uint32_t)(want_hash >> latest->shift);
  int64_t key;
  while ((key = slots[j].key) != want && key != FREE_KEY) j = (j + 1) & latest->mask;
  if (key == FREE_KEY) return false;
  for (int64_t te = slots[j].value; te >= 0 && te > lo;) {
    uint32_t back = (uint32_t)(t - te); /* in [1, w): te is in the pool */
    uint32_t ce = col >= back ? col - back : col + w - back;
    if (te < tc && !d->marked[ce]) {
      d->marked[ce] = d->marked[cc] = d->marked[col] = 1;
      int32_t n = new_stream(d, want, address - d->addr[cc], size, t);
      if (n != NONE) {
        d->touched[col] = n;
        link_key(d, n);
      }
      return true;
    }
    te = d->prev_same[ce];
  }
  return false;
}

/* Candidates at columns hi down to lo (tc = cc + offset), nearest first: true when one
 * began a stream. Most candidates have no partner: the filter of `latest` says so without a
 * probe, whose first slot is taken one time in five. The mark and the filter cell are both
 * loaded and tested in one branch, rarely taken: a branch on each (the mark's first) was
 * mispredicted often on irregular traces (the C++ containers program's detectors 8% slower). */
static inline __attribute__((always_inline)) bool search_columns(StreamDetector *d, int64_t hi, int64_t lo, int64_t offset, int64_t address, uint32_t size,
                                                                  int64_t t, uint32_t col) {
  const uint8_t *marked = d->marked, *filter = d->latest_filter;
  const int64_t *addr = d->addr;
  uint32_t filter_shift = d->filter_shift;
  for (int64_t cc = hi; cc >= lo; cc--) {
    uint64_t hash = (uint64_t)(2 * addr[cc] - address) * HASH_MUL;
    /* Non-zero when the filter has the key and c is unmarked (marked is 0 or 1, so 1 - 1 clears). */
    if (filter[hash >> filter_shift] & (uint8_t)(marked[cc] - 1))
      if (pair_with(d, (uint32_t)cc, cc + offset, address, size, t, col, hash)) return true;
  }
  return false;
}

/* A reference that extends no stream: search the pool for a pair (e, c) with x - c = c - e,
 * nearest c first; else index it for later searches. Apart from the common path (most
 * references of regular programs extend a stream), so that one stays small. For irregular
 * programs this is the cost (up to w - 1 candidates per reference). The candidates, times
 * t - 1 down to max(t - w + 1, 0), are the pool's columns col - 1 down to 0, then w - 1 down. */
static __attribute__((noinline)) void search_pool(StreamDetector *d, int64_t address, uint32_t size, int64_t t, uint32_t col) {
  uint32_t w = d->window;
  int64_t candidates = t < (int64_t)w - 1 ? t : (int64_t)w - 1;
  int64_t first = candidates < (int64_t)col ? candidates : (int64_t)col; /* columns col - 1 .. col - first */
  if (search_columns(d, (int64_t)col - 1, (int64_t)col - first, t - col, address, size, t, col)) return;
  if (candidates > first &&
      search_columns(d, (int64_t)w - 1, (int64_t)w - (candidates - first), t - col - w, address, size, t, col))
    return;
  /* Not part of a stream (yet). */
  uint32_t i = table_find(&d->latest, address);
  if (table_has(&d->latest, i)) {
    d->prev_same[col] = d->latest.slots[i].value;
    d->latest.slots[i].value = t;
  } else {
    d->prev_same[col] = NONE;
    uint8_t *f = filter_cell(d, address);
    if (*f != 255) ++*f;
    /* A grown table gets a filter to match (this key counted again with the rest). */
    uint32_t mask = d->latest.mask;
    if (!table_insert_at(&d->latest, i, address, t) || (d->latest.mask != mask && !fit_filter(d))) d->failed = true;
  }
}

/* One access; inlined into detector_add_batch's loop (a call per access cost a tenth of the
 * time: arguments, the call, six registers saved and restored). */
static inline __attribute__((always_inline)) void add_one(StreamDetector *d, int64_t address, uint32_t size) {
  int64_t t = d->t++;
  /* Pool positions by a running column, not t % w: a 64-bit division per access and per
   * candidate was a third of the detector's time. */
  uint32_t w = d->window, col = d->col;
  d->col = col + 1 == w ? 0 : col + 1;
  int64_t gone = t - w; /* the time of the reference leaving the pool, if any */
  /* It leaves `latest` if it is still the newest indexed reference to its address; one that
   * was never indexed needs no look-up. */
  if (d->prev_same[col] != NOT_INDEXED) {
    uint32_t i = table_find(&d->latest, d->addr[col]);
    if (table_has(&d->latest, i) && d->latest.slots[i].value == gone) {
      uint8_t *f = filter_cell(d, d->addr[col]);
      if (*f != 255) --*f;
      table_delete_at(&d->latest, i);
    }
  }
  Stream *st = d->streams;
  /* The stream last touched `window` references ago expires now, unless touched since. */
  int32_t expiring = d->touched[col];
  if (expiring != NONE) {
    if (st[expiring].last == gone) retire(d, expiring);
    d->touched[col] = NONE;
  }
  d->addr[col] = address;
  d->prev_same[col] = NOT_INDEXED;

  NumTable *h = &d->table;
  uint32_t i = table_find(h, address);
  if (!table_has(h, i)) {
    d->marked[col] = 0;
    search_pool(d, address, size, t, col);
    return;
  }
  /* Extends a known stream, the first on the address's chain: re-key it under its next
   * expected successor (the model's unlink, extend, touch, link, with the address's slot
   * found once). */
  d->marked[col] = 1;
  int32_t s = (int32_t)h->slots[i].value;
  Stream *x = &st[s];
  if (x->same != NONE)
    h->slots[i].value = x->same;
  else
    table_delete_at(h, i);
  x->length++;
  x->last = t;
  x->key += x->stride;
  d->touched[col] = s;
  link_key(d, s);
}

uint32_t detector_add_batch(StreamDetector *detectors, uint32_t n, uint32_t count, const uint32_t *points, const double *addresses, const uint16_t *sizes, const int32_t *group_of, size_t groups_known) {
  for (uint32_t i = 0; i < count; i++) {
    uint32_t p = points[i];
    int32_t k = p < groups_known ? group_of[p] : -1;
    if (k < 0 || (uint32_t)k >= n) return i;
    add_one(&detectors[k], (int64_t)addresses[i], sizes[i]);
  }
  return count;
}

void detector_finish(StreamDetector *d) {
  /* In the order of their last extension: the pool's positions from the oldest time on. */
  uint32_t w = d->window;
  for (uint32_t k = 0, col = d->col; k < w; k++, col = col + 1 == w ? 0 : col + 1) {
    int64_t time = d->t - w + k;
    int32_t s = d->touched[col];
    if (time >= 0 && s != NONE && d->streams[s].last == time) retire(d, s);
    d->touched[col] = NONE;
  }
}
