/* See brotli.h. */
#include "brotli.h"
#include "scratch.h"
#include <brotli/decode.h>
#include <brotli/encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per thread: streams are undone on Node's thread pool, several at once. */
static _Thread_local char problem_text[160];

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

const char *brotli_decompress(const uint8_t *in, size_t n, size_t most, uint8_t **out, size_t *out_length) {
  const char *problem = "out of memory decoding a trace chunk";
  BrotliDecoderState *b = BrotliDecoderCreateInstance(scratch_alloc, scratch_free, NULL);
  /* Streams are mostly 4-10x smaller than what they hold; the buffer doubles from there, and
   * one byte past `most` shows a stream that would write more. */
  size_t cap = n < (SIZE_MAX >> 4) ? 8 * n + 4096 : SIZE_MAX >> 1;
  if (cap > most + 1) cap = most + 1;
  uint8_t *buf = b ? scratch_alloc(NULL, cap) : NULL;
  if (!buf) goto fail;
  size_t total = 0, avail_in = n;
  const uint8_t *next_in = in;
  for (;;) {
    size_t avail_out = cap - total;
    uint8_t *next_out = buf + total;
    BrotliDecoderResult r = BrotliDecoderDecompressStream(b, &avail_in, &next_in, &avail_out, &next_out, NULL);
    total = (size_t)(next_out - buf);
    if (total > most) {
      snprintf(problem_text, sizeof problem_text, "a brotli stream holds more than the %zu bytes it may", most);
      problem = problem_text;
      goto fail;
    }
    if (r == BROTLI_DECODER_RESULT_SUCCESS) {
      if (avail_in) {
        problem = "other bytes follow a brotli stream";
        goto fail;
      }
      break;
    }
    if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
      problem = "a brotli stream is cut short";
      goto fail;
    }
    if (r == BROTLI_DECODER_RESULT_ERROR) {
      snprintf(problem_text, sizeof problem_text, "a brotli stream is damaged (%s)", BrotliDecoderErrorString(BrotliDecoderGetErrorCode(b)));
      problem = problem_text;
      goto fail;
    }
    /* Needs more output: grow, past `most` by one byte at most. */
    size_t next = cap > (SIZE_MAX >> 2) ? SIZE_MAX >> 1 : 2 * cap;
    if (next > most + 1) next = most + 1;
    uint8_t *bigger = next > cap ? scratch_alloc(NULL, next) : NULL;
    if (!bigger) goto fail;
    memcpy(bigger, buf, total);
    scratch_free(NULL, buf);
    buf = bigger;
    cap = next;
  }
  BrotliDecoderDestroyInstance(b);
  *out = buf;
  *out_length = total;
  return NULL;
fail:
  scratch_free(NULL, buf);
  if (b) BrotliDecoderDestroyInstance(b);
  return problem;
}
