/* Loop folding for chunk codec prsd-sequitur-v2: the C twin of src/main/compress/fold.ts
 * (same rules, same markers, same order). A run of the same body of k symbols repeated r
 * times becomes the body once and a repeat marker (SIGMA's repeat, DeRose et al. 2.2-2.3),
 * so SEQUITUR sees a few symbols per loop instead of one per access. Each level folds the
 * output of the one below (loops of loops); the last level feeds SEQUITUR (v3: successor
 * chains first, chain.h). */
#ifndef STRIDE_CODEC_FOLD_H
#define STRIDE_CODEC_FOLD_H
#include "sequitur.h"

/* Longest body a level detects, and how many levels fold (the decoder checks both). */
#define FOLD_MAX_BODY 32
#define FOLD_LEVELS 3
/* The search window: a power of two above 2 * FOLD_MAX_BODY (a square of period k spans 2k). */
#define FOLD_WINDOW 128

typedef struct {
  /* Per symbol value (points, then markers): absolute position of its last search input.
   * Positions only grow (across chunks too), so a stale entry lies before `start`. */
  int64_t *last;
  size_t last_cap;
  uint32_t ring[FOLD_WINDOW]; /* the window: positions [start, pos) at index position % FOLD_WINDOW */
  int64_t start, pos;
  uint32_t cand, cnt; /* candidate period, and how many positions in a row repeat it */
  /* A run in progress: body[0..k) seen r times, then `phase` symbols of the next copy. */
  bool running;
  uint32_t k, r, phase;
  uint32_t body[FOLD_MAX_BODY];
} FoldLevel;

struct SuccessorChains;

typedef struct {
  FoldLevel level[FOLD_LEVELS];
  Sequitur *sink;
  struct SuccessorChains *chains; /* v3: the last level feeds these, and they SEQUITUR (chain.h) */
  uint32_t base; /* marker m is the symbol base + m (base: the chunk's point count) */
  /* The chunk's markers in order of creation: level, body length, repeats. */
  uint32_t *marker_level, *marker_k, *marker_r;
  uint32_t markers, marker_cap;
  /* Interning: (level, k, r) -> marker + 1, open addressing (0 = empty). */
  uint64_t *keys;
  uint32_t *ids;
  uint32_t mask;
  bool failed; /* out of memory */
} Folder;

/* False when memory runs out. */
bool fold_init(Folder *f, Sequitur *sink);
void fold_free(Folder *f);
/* Starts a chunk whose points are below `base`. */
bool fold_reset(Folder *f, uint32_t base);
void fold_add(Folder *f, uint32_t point);
/* Ends the chunk: every level's pending symbols go on to SEQUITUR. */
void fold_flush(Folder *f);
/* The symbol of marker (level, k, r), made on first use: successor chains make theirs here. */
uint32_t fold_marker_symbol(Folder *f, int level, uint32_t k, uint32_t r);

#endif
