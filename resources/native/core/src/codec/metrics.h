/* METRIC section 9 per-point stream metrics: the C twin of src/main/compress/rsd-metrics.ts
 * (level-0 RSDs over the whole trace, across chunks). */
#ifndef STRIDE_CODEC_METRICS_H
#define STRIDE_CODEC_METRICS_H
#include <stdbool.h>
#include <stdint.h>

#define METRICS_HISTOGRAM_LIMIT 32

/* (point, value) -> count, open addressing: the distinct lengths or strides of every point. A
 * slot's fields in one record: a run's end probes a random slot, and an array per field was a
 * cache miss per field (jsoncpp's whole-program trace closes millions of runs). */
typedef struct {
  double key, count;
  uint32_t point;
  uint8_t used;
} HistogramSlot;

typedef struct {
  HistogramSlot *slot;
  uint32_t mask, size;
} Histogram;

/* One point's state in one record: an irregular program's accesses visit thousands of points
 * in no order, and an array per field cost a cache miss per field per access. */
typedef struct {
  double start, stride, length, accesses, predictable;
  uint8_t state;
} MetricsPoint;

typedef struct {
  uint32_t points; /* capacity */
  MetricsPoint *at;
  Histogram lengths, strides;
  bool failed; /* out of memory */
} RsdMetrics;

void metrics_init(RsdMetrics *m);
void metrics_free(RsdMetrics *m);
bool metrics_grow(RsdMetrics *m, uint32_t points);
void metrics_close(RsdMetrics *m, uint32_t point);

static inline void metrics_add(RsdMetrics *m, uint32_t point, double address) {
  MetricsPoint *x = &m->at[point];
  x->accesses += 1;
  uint8_t s = x->state;
  if (s == 2) {
    if (address == x->start + x->length * x->stride) {
      x->length += 1;
      return;
    }
    metrics_close(m, point);
    x->state = 1;
    x->start = address;
  } else if (s == 1) {
    x->stride = address - x->start;
    x->length = 2;
    x->state = 2;
  } else {
    x->state = 1;
    x->start = address;
  }
}

/* One point's finished metrics; `lengths`/`strides` hold [value, count] pairs, most
 * frequent first (value ascending on ties), at most METRICS_HISTOGRAM_LIMIT each. */
typedef struct {
  uint32_t point;
  double accesses, predictable, streams, length_sum;
  uint32_t distinct_lengths, distinct_strides, top_lengths, top_strides;
  double lengths[2 * METRICS_HISTOGRAM_LIMIT], strides[2 * METRICS_HISTOGRAM_LIMIT];
} PointMetrics;

/* Ends every open RSD (end of trace) and calls `each` for every point with accesses, in
 * point order. False when memory runs out. */
bool metrics_finish(RsdMetrics *m, void (*each)(void *ctx, const PointMetrics *pm), void *ctx);

#endif
