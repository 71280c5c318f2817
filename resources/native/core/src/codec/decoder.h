/* Decoder of chunk codecs prsd-sequitur-v1, -v2 and -v3's first stage (the second stage, brotli, is undone
 * before it: brotli.h, register.c). Every loop and every output is bounded by the chunk's declared event count
 * or by the bytes it holds; damage is reported, never followed. */
#ifndef STRIDE_CODEC_DECODER_H
#define STRIDE_CODEC_DECODER_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t count;
  uint32_t *points;
  double *addresses;
  uint16_t *sizes;
} DecodedChunk;

/* Reads the declared event count (the first number of the structure); -1 if unreadable. */
int64_t decoder_count(const uint8_t *structure, size_t length);

/* Decodes a chunk of `format` (1, 2 or 3) into `out`, whose arrays hold out->count events (the
 * declared count, checked by decoder_count). Returns NULL, or what is damaged. */
const char *decoder_decode(int format, const uint8_t *structure, size_t structure_length, const uint8_t *planes,
                           size_t planes_length, uint32_t point_count, DecodedChunk *out);

#endif
