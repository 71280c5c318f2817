/* The fully associative LRU shadow; see shadow.h. Every step mirrors MissClassifier.touch. */
#include "shadow.h"
#include "context.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY (-1)
#define SEEN_PAGE_BITS 9 /* 512 lines a page: its bitmap is one 64-byte line */
#define SEEN_WORDS ((1u << SEEN_PAGE_BITS) / 64)
#define HASH_MUL 0x9e3779b97f4a7c15ull
#define MODIFY 2

static inline uint32_t hash_of(int64_t key, uint32_t shift) { return (uint32_t)(((uint64_t)key * HASH_MUL) >> shift); }

static int64_t *empty_keys(size_t n) {
  int64_t *k = malloc(n * sizeof *k);
  if (k)
    for (size_t i = 0; i < n; i++) k[i] = EMPTY;
  return k;
}

static uint32_t log2_at_least(uint64_t n) {
  uint32_t bits = 4;
  while (((uint64_t)1 << bits) < n) bits++;
  return bits;
}

const char *shadow_init(Shadow *s, double size, double assoc, double line_size, uint32_t max_remembered, size_t max_set_bitmap) {
  memset(s, 0, sizeof *s);
  if (!(line_size >= 1) || !(assoc >= 1) || !(size >= 1)) return "shadow: the level needs a size, ways and a line size";
  double lines = floor(size / line_size);
  if (lines < 1) lines = 1;
  if (lines > (double)(1u << 30)) return "shadow: the level holds too many lines";
  double sets = floor(lines / assoc);
  s->capacity = (uint32_t)lines;
  s->sets = sets < 1 ? 1 : (uint32_t)sets;
  s->line_scale = 1 / line_size;
  s->max_remembered = max_remembered;
  s->max_set_bitmap = max_set_bitmap;
  s->head = s->tail = EMPTY;
  uint32_t bits = log2_at_least((uint64_t)s->capacity * 2);
  s->mask = (1u << bits) - 1;
  s->shift = 64 - bits;
  s->table = malloc(((size_t)s->mask + 1) * sizeof *s->table);
  if (s->table)
    for (size_t i = 0; i <= s->mask; i++) s->table[i].key = EMPTY;
  s->slot = malloc((size_t)s->capacity * sizeof *s->slot);
  s->seen_mask = 255;
  s->seen_shift = 64 - 8;
  s->seen_keys = empty_keys(256);
  s->seen_page = malloc(256 * sizeof *s->seen_page);
  s->last_page = EMPTY;
  if (!s->table || !s->slot || !s->seen_keys || !s->seen_page) {
    shadow_free(s);
    return "shadow: out of memory";
  }
  return NULL;
}

void shadow_free(Shadow *s) {
  free(s->slot);
  free(s->table);
  free(s->seen_keys);
  free(s->seen_page);
  free(s->seen_bits);
  free(s->shadow_misses);
  free(s->cold_misses);
  free(s->set_bits);
  memset(s, 0, sizeof *s);
}

/* The set bitmap is kept while points x sets fits max_set_bitmap (the model decides on the
 * final point table: past it, it keeps none, so neither does this once the table outgrows it). */
static const char *grow_bits(Shadow *s, uint32_t points) {
  if (!s->set_bits && s->points_cap > 0) return NULL; /* dropped before */
  if ((size_t)points * s->sets > s->max_set_bitmap) {
    free(s->set_bits);
    s->set_bits = NULL;
    s->bits_cap = 0;
    return NULL;
  }
  if (points <= s->bits_cap) return NULL;
  uint32_t cap = s->bits_cap ? s->bits_cap : 256;
  while (cap < points) cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
  if ((size_t)cap * s->sets > s->max_set_bitmap) cap = (uint32_t)(s->max_set_bitmap / s->sets);
  uint8_t *b = realloc(s->set_bits, (size_t)cap * s->sets);
  if (!b) return "shadow: out of memory";
  memset(b + (size_t)s->bits_cap * s->sets, 0, (size_t)(cap - s->bits_cap) * s->sets);
  s->set_bits = b;
  s->bits_cap = cap;
  return NULL;
}

const char *shadow_grow(Shadow *s, uint32_t points) {
  const char *why = grow_bits(s, points);
  if (why) return why;
  if (points > s->points_cap) {
    uint32_t cap = s->points_cap ? s->points_cap : 256;
    while (cap < points) cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
    double *sm = realloc(s->shadow_misses, (size_t)cap * sizeof *sm);
    if (!sm) return "shadow: out of memory";
    s->shadow_misses = sm;
    double *cm = realloc(s->cold_misses, (size_t)cap * sizeof *cm);
    if (!cm) return "shadow: out of memory";
    s->cold_misses = cm;
    memset(sm + s->points_cap, 0, (size_t)(cap - s->points_cap) * sizeof *sm);
    memset(cm + s->points_cap, 0, (size_t)(cap - s->points_cap) * sizeof *cm);
    s->points_cap = cap;
  }
  if (points > s->points) s->points = points;
  return NULL;
}

/* ---- line -> slot ---- */

static inline uint32_t find(const Shadow *s, int64_t line) {
  uint32_t i = hash_of(line, s->shift);
  while (s->table[i].key != line && s->table[i].key != EMPTY) i = (i + 1) & s->mask;
  return i;
}

static void delete_at(Shadow *s, uint32_t i) {
  ShadowEntry *t = s->table;
  t[i].key = EMPTY;
  for (uint32_t j = (i + 1) & s->mask; t[j].key != EMPTY; j = (j + 1) & s->mask) {
    uint32_t home = hash_of(t[j].key, s->shift);
    if (((j - home) & s->mask) >= ((j - i) & s->mask)) {
      t[i] = t[j];
      t[j].key = EMPTY;
      i = j;
    }
  }
}

/* ---- the LRU list ---- */

static inline void unlink_slot(Shadow *s, int32_t x) {
  ShadowSlot *slot = s->slot;
  int32_t p = slot[x].prev, n = slot[x].next;
  if (p != EMPTY) slot[p].next = n; else s->head = n;
  if (n != EMPTY) slot[n].prev = p; else s->tail = p;
}

static inline void push_mru(Shadow *s, int32_t x) {
  ShadowSlot *slot = s->slot;
  slot[x].prev = s->tail;
  slot[x].next = EMPTY;
  if (s->tail != EMPTY) slot[s->tail].next = x; else s->head = x;
  s->tail = x;
}

/* ---- lines ever touched ---- */

static bool seen_grow(Shadow *s) {
  uint32_t old_n = s->seen_mask + 1, n = old_n * 2;
  int64_t *old_keys = s->seen_keys, *k = empty_keys(n);
  uint32_t *old_page = s->seen_page, *v = malloc((size_t)n * sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return false;
  }
  s->seen_keys = k;
  s->seen_page = v;
  s->seen_mask = n - 1;
  s->seen_shift--;
  for (uint32_t i = 0; i < old_n; i++)
    if (old_keys[i] != EMPTY) {
      uint32_t j = hash_of(old_keys[i], s->seen_shift);
      while (k[j] != EMPTY) j = (j + 1) & s->seen_mask;
      k[j] = old_keys[i];
      v[j] = old_page[i];
    }
  free(old_keys);
  free(old_page);
  return true;
}

/* The bitmap of the page holding `line` (made when `make`), or NULL (none; or out of memory
 * with *failed set). */
static inline uint64_t *seen_bits_of(Shadow *s, int64_t page, bool make, bool *failed) {
  if (page == s->last_page) return s->last_bits;
  uint32_t j = hash_of(page, s->seen_shift);
  while (s->seen_keys[j] != page && s->seen_keys[j] != EMPTY) j = (j + 1) & s->seen_mask;
  if (s->seen_keys[j] == EMPTY) {
    if (!make) return NULL;
    if (s->seen_pages == s->seen_bits_cap) {
      uint32_t cap = s->seen_bits_cap ? s->seen_bits_cap * 2 : 64;
      uint64_t *b = realloc(s->seen_bits, (size_t)cap * SEEN_WORDS * sizeof *b);
      if (!b) {
        *failed = true;
        return NULL;
      }
      s->seen_bits = b;
      s->seen_bits_cap = cap;
    }
    memset(s->seen_bits + (size_t)s->seen_pages * SEEN_WORDS, 0, SEEN_WORDS * sizeof *s->seen_bits);
    s->seen_keys[j] = page;
    s->seen_page[j] = s->seen_pages++;
    if (s->seen_pages * 2 > s->seen_mask && !seen_grow(s)) {
      *failed = true;
      return NULL;
    }
    /* The bitmaps may have moved (realloc): the cached page is this one, from where they are now. */
    s->last_page = page;
    s->last_bits = s->seen_bits + (size_t)(s->seen_pages - 1) * SEEN_WORDS;
    return s->last_bits;
  }
  s->last_page = page;
  s->last_bits = s->seen_bits + (size_t)s->seen_page[j] * SEEN_WORDS;
  return s->last_bits;
}

/* A context access (SIM_CONTEXT, context.h: the rest of the program's, in a function's trace
 * warmed by it) moves lines in the shadow (and marks them seen) as any access does, and counts
 * for no point: a fully associative LRU cares only which lines were touched in which order, so
 * its folded reads and writes are one touch. */

/* 0: hit, 1: miss, 2: first touch; -1: out of memory. */
static inline int touch(Shadow *s, uint32_t point, int64_t line) {
  if (s->set_bits && point < SIM_CONTEXT) {
    /* A mask for the usual power-of-two set count: a 64-bit division per access is not free. */
    uint64_t set = (s->sets & (s->sets - 1)) == 0 ? (uint64_t)line & (s->sets - 1) : (uint64_t)line % s->sets;
    s->set_bits[(size_t)point * s->sets + set] = 1;
  }
  /* The most recently used line again (the next field, the next element): a hit, in place. */
  if (s->tail != EMPTY && s->slot[s->tail].line == line) return 0;
  uint32_t i = find(s, line);
  if (s->table[i].key == line) {
    int32_t x = s->table[i].val;
    if (x != s->tail) {
      unlink_slot(s, x);
      push_mru(s, x);
    }
    return 0;
  }
  int32_t x;
  if (s->used < s->capacity)
    x = (int32_t)s->used++;
  else {
    /* The least recently used line leaves (the model inserts first, then drops the oldest). */
    x = s->head;
    unlink_slot(s, x);
    delete_at(s, find(s, s->slot[x].line));
    i = find(s, line);
  }
  s->table[i].key = line;
  s->table[i].val = x;
  s->slot[x].line = line;
  push_mru(s, x);
  int64_t page = line >> SEEN_PAGE_BITS;
  uint32_t bit = (uint32_t)(line & ((1 << SEEN_PAGE_BITS) - 1));
  bool failed = false;
  uint64_t *bits = seen_bits_of(s, page, s->seen_size < s->max_remembered, &failed);
  if (failed) return -1;
  if (bits && (bits[bit >> 6] >> (bit & 63) & 1)) return 1;
  if (s->seen_size >= s->max_remembered) {
    s->forgetful = true;
    return 1;
  }
  bits[bit >> 6] |= (uint64_t)1 << (bit & 63);
  s->seen_size++;
  return 2;
}

static inline bool access_one(Shadow *s, uint32_t p, double address, uint16_t size) {
  /* Addresses are never negative: truncation is the model's Math.floor, without a libm call. */
  int64_t first = (int64_t)(address * s->line_scale);
  int64_t last = (int64_t)((address + (size > 1 ? size : 1) - 1) * s->line_scale);
  bool miss = false, cold = false;
  for (int64_t line = first; line <= last && line <= first + 1; line++) {
    int r = touch(s, p, line);
    if (r < 0) return false;
    miss |= r != 0;
    cold |= r == 2;
  }
  if (p >= SIM_CONTEXT) return true;
  if (miss) s->shadow_misses[p]++;
  if (cold) s->cold_misses[p]++;
  return true;
}

const char *shadow_run(Shadow *s, uint32_t count, const uint32_t *points, const double *addresses, const uint16_t *sizes, const uint8_t *kinds, size_t n_kinds) {
  uint32_t most = 0;
  for (uint32_t i = 0; i < count; i++)
    if (points[i] >= most && points[i] < SIM_CONTEXT) most = points[i] + 1;
  const char *why = shadow_grow(s, most);
  if (why) return why;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t p = points[i];
    if (!access_one(s, p, addresses[i], sizes[i])) return "shadow: out of memory";
    if (kinds && p < n_kinds && kinds[p] == MODIFY && !access_one(s, p, addresses[i], sizes[i])) return "shadow: out of memory";
  }
  return NULL;
}

uint32_t shadow_sets_of(const Shadow *s, uint32_t p) {
  uint32_t n = 0;
  const uint8_t *row = s->set_bits + (size_t)p * s->sets;
  for (uint32_t k = 0; k < s->sets; k++) n += row[k];
  return n;
}

size_t shadow_bytes(const Shadow *s) {
  return ((size_t)s->mask + 1) * sizeof *s->table + (size_t)s->capacity * sizeof *s->slot +
         ((size_t)s->seen_mask + 1) * (sizeof *s->seen_keys + sizeof *s->seen_page) + (size_t)s->seen_bits_cap * SEEN_WORDS * sizeof(uint64_t) +
         (size_t)s->points_cap * 2 * sizeof(double) + (size_t)s->bits_cap * s->sets;
}
