/* See bytes.h. */
#include "bytes.h"
#include "pages.h"

void bytes_init(ByteBuf *b, size_t capacity) {
  b->data = pages_alloc(capacity);
  b->capacity = b->data ? capacity : 0;
  b->length = 0;
  b->failed = b->data == NULL;
}

void bytes_free(ByteBuf *b) {
  pages_free(b->data);
  b->data = NULL;
  b->capacity = b->length = 0;
}

bool bytes_reserve(ByteBuf *b, size_t extra) {
  if (b->failed) return false;
  if (b->length + extra <= b->capacity) return true;
  size_t cap = b->capacity ? b->capacity * 2 : 1024;
  while (cap < b->length + extra) cap *= 2;
  uint8_t *next = pages_realloc(b->data, cap);
  if (!next) {
    b->failed = true;
    return false;
  }
  b->data = next;
  b->capacity = cap;
  return true;
}

void bytes_uint(ByteBuf *b, uint64_t v) {
  if (!bytes_reserve(b, 10)) return;
  uint8_t *out = b->data;
  size_t n = b->length;
  while (v >= 0x80) {
    out[n++] = (uint8_t)(v & 0x7f) | 0x80;
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  b->length = n;
}

void bytes_int(ByteBuf *b, double v) {
  double z = v < 0 ? -2 * v - 1 : 2 * v;
  bytes_uint(b, (uint64_t)z);
}

uint64_t in_uint(ByteIn *r) {
  uint64_t v = 0;
  /* Nine bytes at most (63 bits), as bytes.ts's reader allows. */
  for (int shift = 0; shift <= 56; shift += 7) {
    if (r->pos >= r->end) {
      if (!r->error) r->error = "the data ends inside a number";
      return 0;
    }
    uint8_t b = r->data[r->pos++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
  if (!r->error) r->error = "a number is too long";
  return 0;
}

int64_t in_int(ByteIn *r) {
  uint64_t z = in_uint(r);
  return (z & 1) ? -(int64_t)((z >> 1) + 1) : (int64_t)(z >> 1);
}
