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

/* The detector's output for one chunk, in emission order, and per point how much of it. */
struct PrsdSink {
  uint32_t *irr_point;
  double *irr_address;
  size_t irr_count, irr_cap;
  uint32_t *desc_point, *desc_before;
  Prsd *desc;
  size_t desc_count, desc_cap;
  uint32_t points_cap;
  /* Per point: irregular addresses since its last descriptor, and its totals this chunk. */
  uint32_t *pending, *point_irr, *point_desc;
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
  uint32_t *order;      /* scratch: log entries grouped by point */
  size_t order_cap;
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
