/* See fold.h; the rules are written out in src/main/compress/fold.ts. */
#pragma GCC optimize("strict-aliasing")
#include "fold.h"
#include "chain.h"
#include "grow.h"
#include <stdlib.h>
#include <string.h>

#define MASK (FOLD_WINDOW - 1)
#define MIN_TABLE 256

static void feed(Folder *f, int level, uint32_t x);

/* Sizes every level's `last` for symbols below `symbols` (level 0 only sees points). */
static bool grow_last(Folder *f, size_t symbols) {
  for (int l = 0; l < FOLD_LEVELS; l++) {
    FoldLevel *L = &f->level[l];
    size_t need = l == 0 ? f->base : symbols;
    if (need <= L->last_cap) continue;
    size_t cap = need > 2 * L->last_cap ? need : 2 * L->last_cap;
    if (!grow_zeroed((void **)&L->last, cap * 8)) return false;
    L->last_cap = cap;
  }
  return true;
}

static bool set_table_size(Folder *f, uint32_t size) {
  uint64_t *keys = pages_alloc((size_t)size * 8);
  uint32_t *ids = pages_alloc((size_t)size * 4);
  if (!keys || !ids) {
    pages_free(keys), pages_free(ids);
    return false;
  }
  pages_free(f->keys), pages_free(f->ids);
  f->keys = keys;
  f->ids = ids;
  f->mask = size - 1;
  return true;
}

bool fold_init(Folder *f, Sequitur *sink) {
  memset(f, 0, sizeof *f);
  f->sink = sink;
  for (int l = 0; l < FOLD_LEVELS; l++) f->level[l].start = f->level[l].pos = 1; /* 0 in `last`: never seen */
  if (!set_table_size(f, MIN_TABLE)) return false;
  return true;
}

void fold_free(Folder *f) {
  for (int l = 0; l < FOLD_LEVELS; l++) pages_free(f->level[l].last);
  pages_free(f->marker_level), pages_free(f->marker_k), pages_free(f->marker_r);
  pages_free(f->keys), pages_free(f->ids);
  memset(f, 0, sizeof *f);
}

bool fold_reset(Folder *f, uint32_t base) {
  for (int l = 0; l < FOLD_LEVELS; l++) {
    FoldLevel *L = &f->level[l];
    L->start = L->pos;
    L->running = false;
    L->cand = L->cnt = 0;
  }
  if (f->markers > 0) memset(f->keys, 0, ((size_t)f->mask + 1) * 8);
  f->markers = 0;
  f->base = base;
  f->failed = !grow_last(f, (size_t)base + f->marker_cap);
  return !f->failed;
}

static inline uint32_t slot_of(const Folder *f, uint64_t key) { return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & f->mask; }

/* The marker for (level, k, r), made on first use (markers are numbered in that order). */
static uint32_t intern(Folder *f, int level, uint32_t k, uint32_t r) {
  uint64_t key = (uint64_t)r << 8 | k << 2 | (uint64_t)level; /* k <= 32, level < 4; r >= 2 (a chain: level 3) so key != 0 */
  uint32_t i = slot_of(f, key);
  while (f->keys[i] != 0) {
    if (f->keys[i] == key) return f->ids[i];
    i = (i + 1) & f->mask;
  }
  uint32_t m = f->markers;
  if (m == f->marker_cap) {
    size_t c1 = m, c2 = m, c3 = m;
    if (!grow_to((void **)&f->marker_level, &c1, m + 1, 4) || !grow_to((void **)&f->marker_k, &c2, m + 1, 4) ||
        !grow_to((void **)&f->marker_r, &c3, m + 1, 4) || !grow_last(f, (size_t)f->base + c1)) {
      f->failed = true;
      return 0;
    }
    f->marker_cap = (uint32_t)c1;
  }
  f->marker_level[m] = (uint32_t)level;
  f->marker_k[m] = k;
  f->marker_r[m] = r;
  f->markers = m + 1;
  f->keys[i] = key;
  f->ids[i] = m;
  if (2 * (size_t)f->markers > (size_t)f->mask + 1) {
    /* Rehash at twice the size (failure keeps the old table: fuller, still correct). */
    uint32_t size = f->mask + 1;
    uint64_t *keys = f->keys;
    uint32_t *ids = f->ids;
    f->keys = NULL, f->ids = NULL;
    if (!set_table_size(f, size * 2)) {
      f->keys = keys, f->ids = ids, f->mask = size - 1;
    } else {
      for (uint32_t j = 0; j < size; j++) {
        if (!keys[j]) continue;
        uint32_t s = slot_of(f, keys[j]);
        while (f->keys[s]) s = (s + 1) & f->mask;
        f->keys[s] = keys[j];
        f->ids[s] = ids[j];
      }
      pages_free(keys), pages_free(ids);
    }
  }
  return m;
}

uint32_t fold_marker_symbol(Folder *f, int level, uint32_t k, uint32_t r) { return f->base + intern(f, level, k, r); }

/* A symbol leaving `level`: into the next level, or after the last, the chains (v3) or SEQUITUR. */
static inline void emit(Folder *f, int level, uint32_t x) {
  if (level + 1 == FOLD_LEVELS) {
    if (f->chains) chains_add(f->chains, x);
    else sequitur_append(f->sink, (int32_t)x);
  }
  else feed(f, level + 1, x);
}

/* Ends the run: its body once, then its marker; the level searches again from here. */
static void end_run(Folder *f, int level) {
  FoldLevel *L = &f->level[level];
  for (uint32_t i = 0; i < L->k; i++) emit(f, level, L->body[i]);
  uint32_t m = intern(f, level, L->k, L->r);
  emit(f, level, f->base + m);
  L->running = false;
  L->start = L->pos;
  L->cand = L->cnt = 0;
}

/* Searching: a symbol enters the window. The candidate period is the distance to the
 * symbol's previous occurrence (a loop body names each point once, mostly); `cnt` counts
 * positions in a row that repeat the one `cand` back. A square (the body twice; three times
 * for a body of one symbol, so that folding always saves a symbol) starts a run. */
static void search(Folder *f, int level, uint32_t x) {
  FoldLevel *L = &f->level[level];
  int64_t p = L->pos++;
  L->ring[p & MASK] = x;
  if (L->cand && L->ring[(p - L->cand) & MASK] == x)
    L->cnt++;
  else {
    int64_t q = L->last[x];
    if (q >= L->start && p - q <= FOLD_MAX_BODY) {
      L->cand = (uint32_t)(p - q);
      L->cnt = 1;
    } else
      L->cand = L->cnt = 0;
  }
  L->last[x] = p;
  uint32_t k = L->cand;
  if (k && L->cnt >= (k == 1 ? 2 : k)) {
    int64_t from = p + 1 - (k == 1 ? 3 : 2 * (int64_t)k);
    for (int64_t j = L->start; j < from; j++) emit(f, level, L->ring[j & MASK]);
    for (uint32_t i = 0; i < k; i++) L->body[i] = L->ring[(p + 1 - k + i) & MASK];
    L->running = true;
    L->k = k;
    L->r = k == 1 ? 3 : 2;
    L->phase = 0;
    L->start = L->pos;
    L->cand = L->cnt = 0;
  } else if (L->pos - L->start > 2 * FOLD_MAX_BODY) {
    /* Older than any square ending later could reach: on to the next level. */
    emit(f, level, L->ring[L->start & MASK]);
    L->start++;
  }
}

/* Ends the run and searches again the part of the next copy it had seen (that part is
 * shorter than the body, so a run it starts is shorter too: this ends). */
static void close_run(Folder *f, int level) {
  FoldLevel *L = &f->level[level];
  uint32_t partial[FOLD_MAX_BODY], n = L->phase;
  memcpy(partial, L->body, n * 4);
  end_run(f, level);
  for (uint32_t i = 0; i < n; i++) feed(f, level, partial[i]);
}

static void feed(Folder *f, int level, uint32_t x) {
  FoldLevel *L = &f->level[level];
  if (!L->running) {
    search(f, level, x);
    return;
  }
  if (x == L->body[L->phase]) {
    if (++L->phase == L->k) {
      L->r++;
      L->phase = 0;
    }
    return;
  }
  close_run(f, level);
  feed(f, level, x);
}

void fold_add(Folder *f, uint32_t point) {
  FoldLevel *L = &f->level[0];
  /* The common case inside a loop: the next symbol of the body. */
  if (L->running && point == L->body[L->phase]) {
    if (++L->phase == L->k) {
      L->r++;
      L->phase = 0;
    }
    return;
  }
  feed(f, 0, point);
}

void fold_flush(Folder *f) {
  for (int l = 0; l < FOLD_LEVELS; l++) {
    FoldLevel *L = &f->level[l];
    while (L->running) close_run(f, l);
    for (int64_t j = L->start; j < L->pos; j++) emit(f, l, L->ring[j & MASK]);
    L->start = L->pos;
  }
}
