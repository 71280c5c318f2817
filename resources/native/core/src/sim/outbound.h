/* What leaves a hierarchy's first cache level for the level below, in order: the demand
 * accesses it missed (each with its point, its bytes and whether it writes) and the dirty lines
 * it wrote back, with the index of the access each belongs to. A first level simulated once
 * (its Sim captures the stream) and followed by several lower hierarchies (sim_follow) gives
 * each of them the run a whole replay would: nothing below the first level reaches back into
 * it (fused rules: no inclusion, no prefetcher). */
#ifndef STRIDE_SIM_OUTBOUND_H
#define STRIDE_SIM_OUTBOUND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { OUT_READ = 0, OUT_WRITE = 1, OUT_WRITE_BACK = 2 };

typedef struct {
  uint64_t *index;   /* the access's index in the whole run */
  uint64_t *address; /* the access's first byte, or the written-back line's */
  int32_t *point;    /* the access's point (a write-back's: none, -1) */
  uint32_t *size_kind; /* bytes << 2 | OUT_* */
  size_t n, cap;
  bool failed; /* out of memory: the stream is incomplete */
} SimOutbound;

/* Appends one event (false, and `failed` set, when memory runs out). */
bool outbound_push(SimOutbound *o, uint64_t index, int32_t point, uint64_t address, uint32_t bytes, uint32_t kind);
void outbound_free(SimOutbound *o);
/* The events as bytes (stored with a trace's first run): a count, then per event varints of the
 * index's and the address's changes (zigzag), the point + 1 (0: a write-back) and bytes << 2 | kind. */
bool outbound_encode(const SimOutbound *o, uint8_t **out, size_t *length);
/* `o` (empty) from outbound_encode's bytes; NULL, or what is wrong with them. */
const char *outbound_decode(const uint8_t *data, size_t length, SimOutbound *o);
#endif
