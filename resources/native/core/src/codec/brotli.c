/* See brotli.h. */
#include "brotli.h"
#include "scratch.h"
#include <brotli/encode.h>
#include <stdlib.h>

const char *brotli_setting_problem(const BrotliSetting *s) {
  if (s->quality < BROTLI_MIN_QUALITY || s->quality > BROTLI_MAX_QUALITY) return "brotli quality must be in [0, 11]";
  if (s->lgwin < BROTLI_MIN_WINDOW_BITS || s->lgwin > BROTLI_MAX_WINDOW_BITS) return "brotli lgwin must be in [10, 24]";
  if (s->lgblock != 0 && (s->lgblock < BROTLI_MIN_INPUT_BLOCK_BITS || s->lgblock > BROTLI_MAX_INPUT_BLOCK_BITS))
    return "brotli lgblock must be 0 or in [16, 24]";
  return NULL;
}

/* Zlib sets these (and only these) from the options brotli-params.ts builds. */
static BrotliEncoderState *encoder_for(size_t n, const BrotliSetting *s) {
  BrotliEncoderState *b = BrotliEncoderCreateInstance(scratch_alloc, scratch_free, NULL);
  if (!b) return NULL;
  BrotliEncoderSetParameter(b, BROTLI_PARAM_QUALITY, (uint32_t)s->quality);
  BrotliEncoderSetParameter(b, BROTLI_PARAM_SIZE_HINT, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n);
  BrotliEncoderSetParameter(b, BROTLI_PARAM_LGWIN, (uint32_t)s->lgwin);
  if (s->lgblock) BrotliEncoderSetParameter(b, BROTLI_PARAM_LGBLOCK, (uint32_t)s->lgblock);
  return b;
}

const char *brotli_compress(const uint8_t *in, size_t n, const BrotliSetting *s, uint8_t **out, size_t *out_length) {
  const char *problem = "out of memory compressing a trace chunk";
  BrotliEncoderState *b = encoder_for(n, s);
  /* Room for anything brotli writes for n bytes, so one call finishes (growing is a fallback). */
  size_t cap = BrotliEncoderMaxCompressedSize(n);
  if (!cap) cap = n + (n >> 2) + 1024;
  uint8_t *buf = b ? malloc(cap) : NULL;
  if (!buf) goto fail;
  size_t total = 0, avail_in = n;
  const uint8_t *next_in = in;
  for (;;) {
    size_t avail_out = cap - total;
    uint8_t *next_out = buf + total;
    if (!BrotliEncoderCompressStream(b, BROTLI_OPERATION_FINISH, &avail_in, &next_in, &avail_out, &next_out, NULL)) {
      problem = "brotli could not compress a trace chunk's stream";
      goto fail;
    }
    total = (size_t)(next_out - buf);
    if (BrotliEncoderIsFinished(b)) break;
    if (avail_out == 0) {
      uint8_t *bigger = realloc(buf, cap * 2);
      if (!bigger) goto fail;
      buf = bigger;
      cap *= 2;
    }
  }
  BrotliEncoderDestroyInstance(b);
  *out = buf;
  *out_length = total;
  return NULL;
fail:
  free(buf);
  if (b) BrotliEncoderDestroyInstance(b);
  return problem;
}
