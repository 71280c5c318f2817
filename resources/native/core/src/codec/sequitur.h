/* SEQUITUR over the order of access points: the C twin of src/main/compress/sequitur.ts
 * (same node pool, same rule numbering, same grammar bytes). */
#ifndef STRIDE_CODEC_SEQUITUR_H
#define STRIDE_CODEC_SEQUITUR_H
#include "bytes.h"

/* The longest order a grammar is built for. A loop kernel's chunk, folded, is an order of tens
 * of symbols (its start-up's, thousands); an irregular program's is 8,000-100,000 (the corpus,
 * 256 K-access chunks). Past this, the order is written as it is, one rule: brotli, whose window
 * holds the whole chunk, finds the repeats SEQUITUR would (the corpus's stored structures came
 * out within -4% and +10%), where building the grammar was 15-35% of the first stage. */
#define SEQUITUR_LONGEST_ORDER 4096

typedef struct {
  int32_t capacity; /* most symbols one grammar is fed */
  int32_t length;   /* symbols appended since the reset */
  int32_t *appended; /* them, in order (as many as nodes: folding and chains only shorten an order) */
  struct SequiturNode {
    /* indexed: how many index slots hold this node (0 lets delete_digram skip the lookup). */
    int32_t next, prev, value, indexed;
  } *nodes;
  int32_t *free_nodes;
  int32_t free_node_count, node_top;
  int32_t *rule_guard, *rule_refs, *free_rules, *new_id, *order;
  int32_t free_rule_count, rule_top;
  int32_t new_id_ready; /* new_id[0, new_id_ready) is NIL between writes */
  /* The digram index: (a, b) packed in `key`, `node` NIL when the slot is empty. It grows
   * with the grammar (load <= 1/2), so a small grammar's index stays in cache. */
  struct DigramSlot {
    uint64_t key;
    int32_t node, pad;
  } *slots;
  size_t mask, shift; /* not int32: stores to nodes cannot change them */
  uint32_t digrams;
} Sequitur;

/* False when memory runs out (nothing is left allocated). */
bool sequitur_init(Sequitur *s, int32_t capacity);
void sequitur_free(Sequitur *s);
void sequitur_reset(Sequitur *s);
void sequitur_append(Sequitur *s, int32_t terminal);
/* Rule count, then each rule (S first, others by first use): length, symbols 2t / 2k+1. The
 * grammar of the symbols appended since the reset, built here; past SEQUITUR_LONGEST_ORDER,
 * one rule, S, the symbols as appended. */
void sequitur_write(Sequitur *s, ByteBuf *out);
/* Rules of the grammar the last write wrote. */
int32_t sequitur_rules(const Sequitur *s);

#endif
