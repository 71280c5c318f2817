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
/* outbound_encode's bytes read one event at a time (a follower runs each as it is read). */
typedef struct {
  const uint8_t *data;
  size_t length, at;
  uint64_t left, index, address;
} OutboundReader;

/* The reader at the first event; NULL, or what is wrong with the count. */
const char *outbound_reader_open(OutboundReader *r, const uint8_t *data, size_t length);

/* A varint of at most 10 bytes within [*at, end); false when cut short or too long. */
static inline bool outbound_varint(const uint8_t *data, size_t end, size_t *at, uint64_t *v) {
  uint64_t x = 0;
  for (int shift = 0; shift < 70 && *at < end; shift += 7) {
    uint8_t b = data[(*at)++];
    x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

/* The next event into the out-parameters (kind OUT_*; point -1 for a write-back): NULL, or what
 * is wrong with the bytes. Past the last event, *more is false (and the bytes must end there). */
static inline const char *outbound_next(OutboundReader *r, bool *more, uint64_t *index, int32_t *point, uint64_t *address, uint32_t *bytes, uint32_t *kind) {
  if (r->left == 0) {
    *more = false;
    return r->at == r->length ? NULL : "a first-level block has bytes after its events";
  }
  uint64_t di, p, da, size_kind;
  if (!outbound_varint(r->data, r->length, &r->at, &di) || !outbound_varint(r->data, r->length, &r->at, &p) ||
      !outbound_varint(r->data, r->length, &r->at, &da) || !outbound_varint(r->data, r->length, &r->at, &size_kind))
    return "a first-level block is cut short";
  if (p > (uint64_t)INT32_MAX + 1 || size_kind > UINT32_MAX || (size_kind & 3) == 3) return "a first-level block holds an event no first level makes";
  r->index += (uint64_t)((int64_t)(di >> 1) ^ -(int64_t)(di & 1));
  r->address += (uint64_t)((int64_t)(da >> 1) ^ -(int64_t)(da & 1));
  r->left--;
  *more = true;
  *index = r->index;
  *point = (int32_t)((int64_t)p - 1);
  *address = r->address;
  *bytes = (uint32_t)size_kind >> 2;
  *kind = (uint32_t)size_kind & 3;
  return NULL;
}
#endif
