/* See prsd.h and the algorithm's description in src/main/compress/prsd.ts. */
#include "prsd.h"
#include "grow.h"
#include <stdlib.h>
#include <string.h>

void prsd_init(PrsdDetector *d, PrsdSink *sink) {
  memset(d, 0, sizeof *d);
  d->sink = sink;
}

void prsd_free(PrsdDetector *d) {
  for (uint32_t p = 0; p < d->points; p++) free(d->upper[p]);
  pages_free(d->upper);
  pages_free(d->level0);
  memset(d, 0, sizeof *d);
}

bool prsd_grow(PrsdDetector *d, uint32_t points) {
  if (points <= d->points) return true;
  uint32_t cap = points > 2 * d->points ? points : 2 * d->points;
  size_t n = cap;
  if (!grow_zeroed((void **)&d->level0, n * sizeof *d->level0) || !grow_zeroed((void **)&d->upper, n * sizeof(PrsdLevels *))) {
    d->failed = true;
    return false;
  }
  d->points = cap;
  return true;
}

/* Same height, lengths and strides at every level (the start may differ). */
static inline bool compatible_sibling(const Prsd *x, const Prsd *y) {
  if (x->height != y->height) return false;
  for (int k = 0; k <= x->height; k++)
    if (x->length[k] != y->length[k] || x->stride[k] != y->stride[k]) return false;
  return true;
}

/* X is the next instance Y produces: compatible with Y's child and starting where predicted. */
static inline bool compatible_child(const Prsd *x, const Prsd *y) {
  int h = y->height;
  if (h == 0 || x->start != y->start + y->length[h] * y->stride[h] || x->height != h - 1) return false;
  for (int k = 0; k < h; k++)
    if (x->length[k] != y->length[k] || x->stride[k] != y->stride[k]) return false;
  return true;
}

static void emit(PrsdDetector *d, uint32_t point, const Prsd *x) {
  if (x->height == 0 && x->length[0] < PRSD_MIN_RSD_LENGTH) {
    for (int i = 0; i < x->length[0]; i++) prsd_sink_irregular(d->sink, point, x->start + i * x->stride[0]);
  } else
    prsd_sink_descriptor(d->sink, point, x);
}

static PrsdLevels *levels(PrsdDetector *d, uint32_t point) {
  PrsdLevels *l = d->upper[point];
  if (!l) {
    l = calloc(1, sizeof *l);
    if (!l) d->failed = true;
    d->upper[point] = l;
  }
  return l;
}

/* Flushes levels >= from, oldest (highest) first. */
static void flush_levels(PrsdDetector *d, uint32_t point, PrsdLevels *l, int from) {
  for (int level = PRSD_MAX_LEVEL; level >= from; level--) {
    if (l->state[level] != PRSD_EMPTY) emit(d, point, &l->element[level]);
    l->state[level] = PRSD_EMPTY;
  }
}

void prsd_push(PrsdDetector *d, uint32_t point, int level, const Prsd *x) {
  if (level > PRSD_MAX_LEVEL) {
    emit(d, point, x);
    return;
  }
  PrsdLevels *l = levels(d, point);
  if (!l) return;
  uint8_t state = l->state[level];
  Prsd *y = &l->element[level];
  if (state == PRSD_EMPTY) {
    *y = *x;
    l->state[level] = PRSD_SINGLE;
  } else if (state == PRSD_SINGLE) {
    if (compatible_sibling(x, y)) {
      /* A composite of length 2 whose child is Y replaces Y. */
      int h = y->height + 1;
      y->length[h] = 2;
      y->stride[h] = x->start - y->start;
      y->height = h;
      l->state[level] = PRSD_COMPOUND;
    } else {
      /* A change of pattern: flush this level and every higher one, then keep X. */
      Prsd keep = *x; /* x may live in a level flush_levels empties */
      flush_levels(d, point, l, level);
      *y = keep;
      l->state[level] = PRSD_SINGLE;
    }
  } else if (compatible_child(x, y)) {
    y->length[y->height] += 1;
  } else {
    Prsd up = *y, again = *x;
    l->state[level] = PRSD_EMPTY;
    prsd_push(d, point, level + 1, &up);
    prsd_push(d, point, level, &again);
  }
}

void prsd_flush(PrsdDetector *d) {
  for (uint32_t p = 0; p < d->points; p++) {
    PrsdLevel0 *z = &d->level0[p];
    uint8_t s = z->state;
    if (s == PRSD_EMPTY) continue;
    z->state = PRSD_EMPTY;
    if (s == PRSD_COMPOUND) {
      Prsd rsd;
      prsd_level0(&rsd, z->start, z->length, z->stride);
      prsd_push(d, p, 1, &rsd);
    }
    PrsdLevels *l = d->upper[p];
    if (l) {
      for (int level = 1; level <= PRSD_MAX_LEVEL; level++) {
        if (l->state[level] == PRSD_EMPTY) continue;
        Prsd e = l->element[level];
        l->state[level] = PRSD_EMPTY;
        prsd_push(d, p, level + 1, &e);
      }
    }
    if (s == PRSD_SINGLE) prsd_sink_irregular(d->sink, p, z->start);
  }
}
