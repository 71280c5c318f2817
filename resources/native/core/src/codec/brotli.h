/* The codec's second stage: brotli over one stream (a chunk's structure or residue planes),
 * with the parameters the TypeScript side chose (src/main/compress/brotli-params.ts). Called
 * as Node's zlib calls it (one BrotliEncoderCompressStream with FINISH, the same parameters
 * set), so in Node, whose brotli this resolves to, the bytes are zlib's; and undone, bounded
 * by what the chunk may hold. Working memory is kept between calls (scratch.h). */
#ifndef STRIDE_CODEC_BROTLI_H
#define STRIDE_CODEC_BROTLI_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int quality; /* 0-11 */
  int lgwin;   /* 10-24 */
  int lgblock; /* 16-24, or 0: brotli's choice for the quality */
} BrotliSetting;

/* NULL when the setting is valid, else what is wrong with it. */
const char *brotli_setting_problem(const BrotliSetting *s);

/* Compresses in[0..n) into a malloc'd *out of *out_length bytes (the caller frees it); NULL,
 * or the problem (out of memory). */
const char *brotli_compress(const uint8_t *in, size_t n, const BrotliSetting *s, uint8_t **out, size_t *out_length);

/* Decompresses one whole brotli stream in[0..n) into *out of *out_length bytes, refusing to
 * write more than `most`. *out is kept memory (the caller returns it with scratch_free): a
 * chunk's residue is megabytes, which malloc would map afresh on every chunk. NULL, or what is wrong with the stream
 * (damaged, truncated, followed by other bytes, larger than `most`) or out of memory. */
const char *brotli_decompress(const uint8_t *in, size_t n, size_t most, uint8_t **out, size_t *out_length);

#endif
