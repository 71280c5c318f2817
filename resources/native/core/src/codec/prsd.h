/* The METRIC section 4 PRSD/RSD detector per access point: the C twin of
 * src/main/compress/prsd.ts, with the same arithmetic in doubles so its output is identical. */
#ifndef STRIDE_CODEC_PRSD_H
#define STRIDE_CODEC_PRSD_H
#include <stdbool.h>
#include <stdint.h>

#define PRSD_MAX_LEVEL 6
/* RSDs shorter than this are irregular accesses (METRIC section 3.2). */
#define PRSD_MIN_RSD_LENGTH 3

/* A descriptor: length[k], stride[k] belong to the node of height k (0 = the RSD); every
 * node starts where its first child does, so one start serves them all. */
typedef struct {
  int32_t height;
  double start;
  double length[PRSD_MAX_LEVEL + 1];
  double stride[PRSD_MAX_LEVEL + 1];
} Prsd;

/* Receives each point's output in order (the encoder's per-chunk logs). */
typedef struct PrsdSink PrsdSink;
void prsd_sink_descriptor(PrsdSink *sink, uint32_t point, const Prsd *d);
void prsd_sink_irregular(PrsdSink *sink, uint32_t point, double address);

typedef struct {
  uint8_t state[PRSD_MAX_LEVEL + 1];
  Prsd element[PRSD_MAX_LEVEL + 1];
} PrsdLevels;

/* A point's level 0 in one record (an irregular trace visits points in no order: a record
 * per point is a cache line per access, an array per field was one per field). */
typedef struct {
  double start, stride, length;
  uint8_t state;
} PrsdLevel0;

typedef struct {
  uint32_t points; /* capacity */
  PrsdLevel0 *level0;
  PrsdLevels **upper; /* levels 1..MAX_LEVEL, allocated when a point first needs them */
  PrsdSink *sink;
  bool failed; /* out of memory */
} PrsdDetector;

void prsd_init(PrsdDetector *d, PrsdSink *sink);
void prsd_free(PrsdDetector *d);
bool prsd_grow(PrsdDetector *d, uint32_t points);
/* Ends every point's stream (end of a chunk), as prsd.ts's flush. */
void prsd_flush(PrsdDetector *d);
void prsd_push(PrsdDetector *d, uint32_t point, int level, const Prsd *x);

enum { PRSD_EMPTY = 0, PRSD_SINGLE = 1, PRSD_COMPOUND = 2 };

/* A level-0 RSD (height 0): the fields a descriptor of that height has. */
static inline void prsd_level0(Prsd *x, double start, double length, double stride) {
  x->height = 0;
  x->start = start;
  x->length[0] = length;
  x->stride[0] = stride;
}

/* Processes one address of `point` at level 0: the common case, an address the level-0 RSD
 * predicts, is one multiply-add and a compare. */
static inline void prsd_add(PrsdDetector *d, uint32_t point, double address) {
  PrsdLevel0 *z = &d->level0[point];
  uint8_t s = z->state;
  if (s == PRSD_COMPOUND) {
    if (address == z->start + z->length * z->stride) {
      z->length += 1;
      return;
    }
    /* Not a compatible child: push the RSD up, empty level 0, process the address again. Only
     * levels up to the height are ever read, so the rest stays unset (zeroing the whole struct
     * was a tenth of the encoder's time on irregular traces). */
    Prsd rsd;
    prsd_level0(&rsd, z->start, z->length, z->stride);
    z->state = PRSD_EMPTY;
    prsd_push(d, point, 1, &rsd);
    z->state = PRSD_SINGLE;
    z->start = address;
  } else if (s == PRSD_SINGLE) {
    /* Two addresses are always compatible siblings: they form an RSD of length 2. */
    z->stride = address - z->start;
    z->length = 2;
    z->state = PRSD_COMPOUND;
  } else {
    z->state = PRSD_SINGLE;
    z->start = address;
  }
}

#endif
