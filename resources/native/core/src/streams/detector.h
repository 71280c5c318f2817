/* Mohan et al.'s online stream detector (section 3, Figure 1) and the statistics of section 2:
 * the C form of src/main/compress/stream-detector.ts, rule for rule (that file and its
 * reference model are what the differential tests compare against); only the bookkeeping of
 * which stream expires when differs (a ring here, an age list there: same streams, same
 * order). Addresses and keys are 64-bit integers (the model's doubles are exact below 2^53,
 * and traced addresses are). */
#ifndef STRIDE_STREAMS_DETECTOR_H
#define STRIDE_STREAMS_DETECTOR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Key -> value, linear probing with backward-shift deletion; a slot's key and value side by
 * side (one cache line per probe), INT64_MIN marking a free slot (keys are addresses and
 * stream successors, far inside +-2^62). */
typedef struct {
  int64_t key, value;
} NumSlot;

typedef struct {
  NumSlot *slots;
  uint32_t mask, shift, size; /* shift = 64 - log2(slots): a key's home is its hash's top bits */
  uint32_t sized; /* slots from the first growth on: what the window needs */
} NumTable;

/* The retired streams' statistics, accumulated in the model's order and arithmetic. */
typedef struct {
  double streams, scalar, in_streams, length_sq, stride_sum, stride_elem_sum;
  double buckets[4]; /* [4-32), [32-128), [128-16384], > 16384 */
  double long_streams[3]; /* long (>= 100) streams by element stride: < 10, 10-31, >= 32 */
} StreamTally;

/* A stream's fields side by side: extending one reads and writes most of them. */
typedef struct {
  int64_t key; /* the expected successor, start + length * stride */
  int64_t stride, length, last; /* last: the time it was last extended */
  int32_t same; /* next stream with the same key */
  uint32_t size; /* the access size, for the tally */
} __attribute__((aligned(64))) Stream; /* 40 bytes would straddle two lines every other record */

typedef struct {
  uint32_t window;
  /* The pool: the last `window` references, by position t % window. prev_same is the chain of
   * older references to the same address in `latest`, or NOT_INDEXED for a reference that was
   * never put there (it extended or began a stream). */
  int64_t *addr, *prev_same;
  uint8_t *marked;
  /* By the same position: the stream begun or extended at that time, or NONE. A stream expires
   * when the pool's oldest position is its `last` (at most one a step, since each reference
   * touches at most one stream), so this ring gives the model's retirement order (by `last`)
   * without an age list relinked at every extension. An entry whose stream was extended
   * again since, or retired and its record reused, no longer matches that stream's `last`. */
  int32_t *touched;
  NumTable latest, table;
  /* How many keys of `latest` hash to each cell (8 cells per slot, up to 2^16; a count that
   * reaches 255 stays): a zero cell shows a pool search's 2c - x absent without a probe. */
  uint8_t *latest_filter;
  uint32_t filter_shift;
  Stream *streams;
  int32_t *free_list;
  uint32_t n_free, allocated, cap;
  int64_t t;
  uint32_t col; /* t % window */
  StreamTally tally;
  bool failed;
} StreamDetector;

bool detector_init(StreamDetector *d, uint32_t window);
void detector_free(StreamDetector *d);
/* Feeds access i < count, at points[i], to detectors[group_of[points[i]]] (n detectors, a
 * group for the first groups_known points). Returns how many it fed: fewer than count when a
 * point has no group. */
uint32_t detector_add_batch(StreamDetector *detectors, uint32_t n, uint32_t count, const uint32_t *points, const double *addresses, const uint16_t *sizes, const int32_t *group_of, size_t groups_known);
/* Retires every stream into the tally (the detector is done after this). */
void detector_finish(StreamDetector *d);
#endif
