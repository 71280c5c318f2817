/* Successor chains for chunk codec prsd-sequitur-v3: the C twin of src/main/compress/chain.ts
 * (same rules, same markers, same order). Between loop folding and SEQUITUR, a run of symbols
 * that each follow their predecessor's first successor in the chunk becomes one chain marker,
 * so SEQUITUR sees the branches of straight-line code instead of every access. */
#ifndef STRIDE_CODEC_CHAIN_H
#define STRIDE_CODEC_CHAIN_H
#include "fold.h"

/* The marker level of a chain (fold's levels are 0 .. FOLD_LEVELS - 1), and the shape its
 * markers are written with: the first past fold's (level, k) shapes. */
#define CHAIN_LEVEL FOLD_LEVELS
#define CHAIN_SHAPE (FOLD_LEVELS * FOLD_MAX_BODY)
#define CHAIN_NONE UINT32_MAX
/* Shorter runs go on as their symbols (chain.ts says why). */
#define CHAIN_MIN_RUN 6

struct SuccessorChains {
  /* Per symbol: epoch << 32 | its first successor, valid when the epoch is the chunk's (a
   * chunk starts afresh without clearing a table as large as the point table). */
  uint64_t *first;
  size_t first_cap;
  uint32_t epoch, prev, run;
  uint32_t from; /* the symbol before the run */
  Folder *folder; /* makes the chain markers, numbered with its own */
  Sequitur *sink;
  bool failed; /* out of memory */
};
typedef struct SuccessorChains SuccessorChains;

void chains_init(SuccessorChains *c, Folder *folder, Sequitur *sink);
void chains_free(SuccessorChains *c);
/* Starts a chunk. */
void chains_reset(SuccessorChains *c);
/* Ends the run in progress (the end of a chunk). */
void chains_flush(SuccessorChains *c);
/* The rarer half of chains_add: the symbol was not its predecessor's first successor. */
void chains_break(SuccessorChains *c, uint32_t x);

static inline void chains_add(SuccessorChains *c, uint32_t x) {
  if (c->prev != CHAIN_NONE) {
    uint64_t f = c->first[c->prev];
    if (f == ((uint64_t)c->epoch << 32 | x)) {
      c->run++;
      c->prev = x;
      return;
    }
  }
  chains_break(c, x);
}

#endif
