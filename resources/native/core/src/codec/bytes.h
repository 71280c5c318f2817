/* Growable byte buffer with LEB128 varints, written exactly as src/main/compress/bytes.ts
 * writes them (so encoded chunks are byte-identical), and a bounded reader that reports
 * damage instead of reading past its end. */
#ifndef STRIDE_CODEC_BYTES_H
#define STRIDE_CODEC_BYTES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint8_t *data;
  size_t length;
  size_t capacity;
  bool failed; /* out of memory: the caller throws */
} ByteBuf;

void bytes_init(ByteBuf *b, size_t capacity);
void bytes_free(ByteBuf *b);
bool bytes_reserve(ByteBuf *b, size_t extra);
void bytes_uint(ByteBuf *b, uint64_t v);
/* Zigzag of a JavaScript number, computed in doubles as bytes.ts does. */
void bytes_int(ByteBuf *b, double v);

typedef struct {
  const uint8_t *data;
  size_t pos, end;
  const char *error; /* first damage found; reads return 0 after it */
} ByteIn;

uint64_t in_uint(ByteIn *r);
/* Signed (zigzag) varint; its magnitude stays below 2^62. */
int64_t in_int(ByteIn *r);

#endif
