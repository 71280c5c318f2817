/* The first stage of chunk codecs prsd-sequitur-v1, -v2 and -v3 (see src/main/compress/prsd-codec.ts):
 * SEQUITUR over the point order (v2: after loop folding, fold.h; v3: then successor chains,
 * chain.h), PRSDs per point, and the
 * structure and residue bytes the second stage (brotli, in JavaScript) compresses. Also keeps
 * the stream metrics. */
#ifndef STRIDE_CODEC_ENCODER_H
#define STRIDE_CODEC_ENCODER_H
#include "bytes.h"
#include "chain.h"
#include "fold.h"
#include "metrics.h"
#include "prsd.h"
#include "sequitur.h"

/* The detector's output for one chunk, in emission order, and per point how much of it.
 * Descriptors are written as the structure holds them (each point's own deltas) into
 * `desc_log` as they come, so that grouping them by point moves a few bytes each: gathering
 * whole descriptors in point order was a cache miss per descriptor, a third of the encoder's
 * own time on irregular programs. */
struct PrsdSink {
  uint32_t *irr_point;
  double *irr_address;
  size_t irr_count, irr_cap;
  uint32_t *desc_point;
  uint16_t *desc_bytes; /* each logged descriptor's length in desc_log */
  size_t desc_count, desc_cap;
  ByteBuf desc_log;
  uint32_t points_cap;
  /* Per point: irregular addresses since its last descriptor, its totals this chunk, its
   * descriptors' bytes, and its last descriptor's start (valid while point_desc is non-zero). */
  uint32_t *pending, *point_irr, *point_desc, *point_desc_bytes;
  double *last_start;
  uint32_t *touched;
  size_t touched_count;
  bool failed;
};

typedef struct {
  uint32_t max_events;
  int version; /* 1 to 4: the format written */
  Sequitur sequitur;
  Folder folder;
  SuccessorChains chains;
  PrsdDetector detector;
  RsdMetrics metrics;
  PrsdSink out;
  int32_t *size_of;
  uint32_t size_of_cap;
  uint32_t *exceptions; /* (event index, size) pairs */
  uint8_t *grouped;     /* scratch: desc_log's entries grouped by point */
  size_t grouped_cap;
  uint64_t *ordered;    /* scratch: the irregular addresses in the residue's order */
  size_t ordered_cap;
  ByteBuf structure, residue;
  /* Statistics of the last chunk. */
  size_t descriptors, irregular;
  int32_t rules;
  /* An encode runs on the thread pool (codecEncodeAsync): nothing else may touch it. */
  bool busy;
} ChunkEncoder;

bool encoder_init(ChunkEncoder *e, uint32_t max_events, int version);
void encoder_free(ChunkEncoder *e);
/* Encodes one chunk into e->structure and e->residue (empty when nothing is irregular).
 * Returns NULL, or a message naming what is wrong with the input. */
const char *encoder_encode(ChunkEncoder *e, uint32_t count, const uint32_t *points, const double *addresses,
                           const uint16_t *sizes, uint32_t point_count);

#endif
