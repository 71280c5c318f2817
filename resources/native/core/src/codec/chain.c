/* See chain.h; the rules are written out in src/main/compress/chain.ts. */
#include "chain.h"
#include "grow.h"

void chains_init(SuccessorChains *c, Folder *folder, Sequitur *sink) {
  memset(c, 0, sizeof *c);
  c->folder = folder;
  c->sink = sink;
  c->prev = CHAIN_NONE;
}

void chains_free(SuccessorChains *c) {
  pages_free(c->first);
  c->first = NULL;
  c->first_cap = 0;
}

void chains_reset(SuccessorChains *c) {
  /* Epoch 0 is what zero-filled entries hold: never a chunk's. */
  if (++c->epoch == 0) {
    memset(c->first, 0, c->first_cap * 8);
    c->epoch = 1;
  }
  c->prev = CHAIN_NONE;
  c->run = 0;
  c->failed = false;
}

void chains_flush(SuccessorChains *c) {
  if (c->run >= CHAIN_MIN_RUN)
    sequitur_append(c->sink, (int32_t)fold_marker_symbol(c->folder, CHAIN_LEVEL, 1, c->run));
  else
    for (uint32_t j = 0, x = c->from; j < c->run; j++) {
      x = (uint32_t)c->first[x];
      sequitur_append(c->sink, (int32_t)x);
    }
  c->run = 0;
}

void chains_break(SuccessorChains *c, uint32_t x) {
  uint64_t stamp = (uint64_t)c->epoch << 32;
  if (c->prev != CHAIN_NONE && c->first[c->prev] >> 32 != c->epoch) c->first[c->prev] = stamp | x;
  chains_flush(c);
  sequitur_append(c->sink, (int32_t)x);
  c->from = x;
  if (x >= c->first_cap) {
    size_t cap = c->first_cap * 2 > (size_t)x + 1 ? c->first_cap * 2 : (size_t)x + 256;
    if (!grow_zeroed((void **)&c->first, cap * 8)) {
      /* Without room for x's successor, x cannot predict: the chunk fails (out of memory). */
      c->failed = true;
      c->prev = CHAIN_NONE;
      return;
    }
    c->first_cap = cap;
  }
  c->prev = x;
}
