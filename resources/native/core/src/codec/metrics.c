/* See metrics.h. */
#include "metrics.h"
#include "grow.h"
#include <stdlib.h>
#include <string.h>

static bool hist_init(Histogram *h, uint32_t size) {
  h->slot = pages_alloc(size * sizeof *h->slot); /* zeroed: every slot unused */
  h->size = 0;
  h->mask = size - 1;
  if (h->slot) return true;
  memset(h, 0, sizeof *h);
  return false;
}

static void hist_free(Histogram *h) {
  pages_free(h->slot);
  memset(h, 0, sizeof *h);
}

static inline uint32_t hist_home(const Histogram *h, uint32_t point, double key) {
  uint64_t k;
  double zero = key == 0 ? 0 : key; /* -0 and +0 are one key, as in a JavaScript Map */
  memcpy(&k, &zero, 8);
  k ^= (uint64_t)point * 0x9e3779b97f4a7c15ull;
  k ^= k >> 29;
  k *= 0xbf58476d1ce4e5b9ull;
  k ^= k >> 32;
  return (uint32_t)k & h->mask;
}

static bool hist_add(Histogram *h, uint32_t point, double key) {
  if (!h->slot) return false;
  uint32_t i = hist_home(h, point, key);
  for (HistogramSlot *s = &h->slot[i]; s->used; s = &h->slot[i]) {
    if (s->point == point && s->key == key) {
      s->count += 1;
      return true;
    }
    i = (i + 1) & h->mask;
  }
  h->slot[i] = (HistogramSlot){key, 1, point, 1};
  if (++h->size * 2 <= h->mask + 1) return true;
  /* Load above 1/2: rehash into twice the slots. */
  Histogram bigger;
  if (!hist_init(&bigger, 2 * (h->mask + 1))) return false;
  for (uint32_t j = 0; j <= h->mask; j++) {
    const HistogramSlot *s = &h->slot[j];
    if (!s->used) continue;
    uint32_t k = hist_home(&bigger, s->point, s->key);
    while (bigger.slot[k].used) k = (k + 1) & bigger.mask;
    bigger.slot[k] = *s;
  }
  bigger.size = h->size;
  hist_free(h);
  *h = bigger;
  return true;
}

void metrics_init(RsdMetrics *m) {
  memset(m, 0, sizeof *m);
  if (!hist_init(&m->lengths, 1024) || !hist_init(&m->strides, 1024)) m->failed = true;
}

void metrics_free(RsdMetrics *m) {
  pages_free(m->at);
  hist_free(&m->lengths);
  hist_free(&m->strides);
  memset(m, 0, sizeof *m);
}

bool metrics_grow(RsdMetrics *m, uint32_t points) {
  if (points <= m->points) return true;
  size_t n = points > 2 * m->points ? points : 2 * m->points;
  if (!grow_zeroed((void **)&m->at, n * sizeof *m->at)) {
    m->failed = true;
    return false;
  }
  m->points = (uint32_t)n;
  return true;
}

void metrics_close(RsdMetrics *m, uint32_t point) {
  MetricsPoint *x = &m->at[point];
  double len = x->length;
  if (len < 3) return;
  x->predictable += len;
  if (!hist_add(&m->lengths, point, len) || !hist_add(&m->strides, point, x->stride)) m->failed = true;
}

/* Histogram entries grouped by point: `first[p]..first[p+1]` index `slots`. */
typedef struct {
  uint32_t *first, *slots;
} Grouped;

static bool group(const Histogram *h, uint32_t points, Grouped *g) {
  g->first = calloc((size_t)points + 1, 4);
  g->slots = malloc(((size_t)h->size + 1) * 4);
  if (!g->first || !g->slots) return false;
  for (uint32_t j = 0; j <= h->mask; j++)
    if (h->slot[j].used) g->first[h->slot[j].point + 1]++;
  for (uint32_t p = 0; p < points; p++) g->first[p + 1] += g->first[p];
  uint32_t *at = malloc(((size_t)points + 1) * 4);
  if (!at) return false;
  memcpy(at, g->first, ((size_t)points + 1) * 4);
  for (uint32_t j = 0; j <= h->mask; j++)
    if (h->slot[j].used) g->slots[at[h->slot[j].point]++] = j;
  free(at);
  return true;
}

static _Thread_local const Histogram *sorting; /* qsort has no context argument; workers share the module */

static int by_count_then_value(const void *a, const void *b) {
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  double ci = sorting->slot[i].count, cj = sorting->slot[j].count;
  if (ci != cj) return ci > cj ? -1 : 1;
  double ki = sorting->slot[i].key, kj = sorting->slot[j].key;
  return ki < kj ? -1 : ki > kj ? 1 : 0;
}

/* Sorts one point's entries and copies the top ones out; returns how many were copied. */
static uint32_t top(const Histogram *h, uint32_t *slots, uint32_t n, double *out, double *streams, double *sum) {
  sorting = h;
  qsort(slots, n, 4, by_count_then_value);
  for (uint32_t k = 0; k < n; k++) {
    if (streams) {
      *streams += h->slot[slots[k]].count;
      *sum += h->slot[slots[k]].key * h->slot[slots[k]].count;
    }
    if (k < METRICS_HISTOGRAM_LIMIT) {
      out[2 * k] = h->slot[slots[k]].key;
      out[2 * k + 1] = h->slot[slots[k]].count;
    }
  }
  return n < METRICS_HISTOGRAM_LIMIT ? n : METRICS_HISTOGRAM_LIMIT;
}

bool metrics_finish(RsdMetrics *m, void (*each)(void *ctx, const PointMetrics *pm), void *ctx) {
  for (uint32_t p = 0; p < m->points; p++) {
    if (m->at[p].state == 2) metrics_close(m, p);
    m->at[p].state = 0;
  }
  if (m->failed) return false;
  Grouped gl = {0}, gs = {0};
  bool ok = group(&m->lengths, m->points, &gl) && group(&m->strides, m->points, &gs);
  PointMetrics *pm = ok ? malloc(sizeof *pm) : NULL;
  if (pm) {
    for (uint32_t p = 0; p < m->points; p++) {
      if (m->at[p].accesses == 0) continue;
      pm->point = p;
      pm->accesses = m->at[p].accesses;
      pm->predictable = m->at[p].predictable;
      pm->streams = 0;
      pm->length_sum = 0;
      pm->distinct_lengths = gl.first[p + 1] - gl.first[p];
      pm->distinct_strides = gs.first[p + 1] - gs.first[p];
      pm->top_lengths = top(&m->lengths, gl.slots + gl.first[p], pm->distinct_lengths, pm->lengths, &pm->streams, &pm->length_sum);
      pm->top_strides = top(&m->strides, gs.slots + gs.first[p], pm->distinct_strides, pm->strides, NULL, NULL);
      each(ctx, pm);
    }
  }
  bool done = pm != NULL;
  free(pm);
  free(gl.first), free(gl.slots), free(gs.first), free(gs.slots);
  return done;
}
