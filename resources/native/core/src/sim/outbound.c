/* See outbound.h. */
#include "outbound.h"
#include <stdlib.h>
#include <string.h>

static bool grow(void **p, size_t cap, size_t width) {
  void *next = realloc(*p, cap * width);
  if (!next) return false;
  *p = next;
  return true;
}

bool outbound_push(SimOutbound *o, uint64_t index, int32_t point, uint64_t address, uint32_t bytes, uint32_t kind) {
  if (o->failed) return false;
  if (o->n == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 4096;
    if (!grow((void **)&o->index, cap, 8) || !grow((void **)&o->address, cap, 8) || !grow((void **)&o->point, cap, 4) || !grow((void **)&o->size_kind, cap, 4)) {
      o->failed = true;
      return false;
    }
    o->cap = cap;
  }
  o->index[o->n] = index;
  o->address[o->n] = address;
  o->point[o->n] = point;
  o->size_kind[o->n] = bytes << 2 | kind;
  o->n++;
  return true;
}

void outbound_free(SimOutbound *o) {
  free(o->index);
  free(o->address);
  free(o->point);
  free(o->size_kind);
  memset(o, 0, sizeof *o);
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

static size_t put(uint8_t *out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = (uint8_t)(v & 0x7f) | 0x80;
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  return n;
}

bool outbound_encode(const SimOutbound *o, uint8_t **out, size_t *length) {
  /* At most 10 bytes a varint: the count and four per event. */
  uint8_t *buf = malloc(10 + o->n * 40);
  if (!buf) return false;
  size_t n = put(buf, o->n);
  uint64_t index = 0, address = 0;
  for (size_t k = 0; k < o->n; k++) {
    n += put(buf + n, zigzag((int64_t)(o->index[k] - index)));
    n += put(buf + n, (uint64_t)((int64_t)o->point[k] + 1));
    n += put(buf + n, zigzag((int64_t)(o->address[k] - address)));
    n += put(buf + n, o->size_kind[k]);
    index = o->index[k];
    address = o->address[k];
  }
  *out = buf;
  *length = n;
  return true;
}

const char *outbound_reader_open(OutboundReader *r, const uint8_t *data, size_t length) {
  *r = (OutboundReader){.data = data, .length = length};
  if (!outbound_varint(data, length, &r->at, &r->left)) return "a first-level block is cut short";
  /* Each event takes at least four bytes: a larger count is damage. */
  if (r->left > (length - r->at) / 4) return "a first-level block counts more events than it holds";
  return NULL;
}
