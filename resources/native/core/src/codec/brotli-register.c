/* The second stage's exports (brotli.h), so the encoder's chunks never pass through zlib's
 * JavaScript streams and brotli's memory is kept between chunks (scratch.h):
 *   codecBrotli(data: Uint8Array, quality, lgwin, lgblock) -> Buffer (lgblock 0: brotli's choice)
 *   codecBrotliAsync(same) -> a promise of the same, compressed on the thread pool
 *   codecScratchKept() -> [blocks, bytes] of brotli memory kept now */
#include "../addon.h"
#include "brotli.h"
#include "scratch.h"
#include <stdlib.h>

typedef struct {
  StrideWork w; /* holds the input */
  const uint8_t *in;
  size_t n;
  BrotliSetting s;
  uint8_t *out;
  size_t out_length;
} Compress;

/* argv = [data, quality, lgwin, lgblock]; false after throwing. */
static bool compress_args(napi_env env, napi_value *argv, Compress *c) {
  uint32_t q, w, b;
  c->in = stride_typed_array(env, argv[0], napi_uint8_array, &c->n, "data");
  if (!c->in || !stride_u32(env, argv[1], &q, "quality") || !stride_u32(env, argv[2], &w, "lgwin") || !stride_u32(env, argv[3], &b, "lgblock")) return false;
  c->s = (BrotliSetting){(int)(q > 99 ? 99 : q), (int)(w > 99 ? 99 : w), (int)(b > 99 ? 99 : b)};
  const char *problem = brotli_setting_problem(&c->s);
  if (problem) napi_throw_range_error(env, NULL, problem);
  return !problem;
}

static napi_value compressed(napi_env env, Compress *c) {
  napi_value out;
  napi_status status = napi_create_buffer_copy(env, c->out_length, c->out, NULL, &out);
  free(c->out);
  c->out = NULL;
  return status == napi_ok ? out : stride_throw(env, "out of memory compressing a trace chunk");
}

static napi_value compress(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  Compress c = {0};
  if (!stride_args(env, info, 4, argv) || !compress_args(env, argv, &c)) return NULL;
  const char *problem = brotli_compress(c.in, c.n, &c.s, &c.out, &c.out_length);
  return problem ? stride_throw(env, problem) : compressed(env, &c);
}

static void compress_execute(napi_env env, void *data) {
  Compress *c = data;
  const char *problem = brotli_compress(c->in, c->n, &c->s, &c->out, &c->out_length);
  if (problem) stride_work_fail(&c->w, "", problem);
}

static void compress_complete(napi_env env, napi_status status, void *data) {
  Compress *c = data;
  napi_value result = status == napi_ok && !c->w.failed ? compressed(env, c) : NULL;
  stride_settle_work(env, &c->w, result, "the trace chunk's brotli stage was cancelled");
  free(c->out);
  free(c);
}

static napi_value compress_async(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  Compress *c = calloc(1, sizeof *c);
  if (!c) return stride_throw(env, "out of memory compressing a trace chunk");
  napi_value promise = stride_args(env, info, 4, argv) && compress_args(env, argv, c)
                           ? stride_queue_work(env, &c->w, "stride:brotli", argv, 1, compress_execute, compress_complete)
                           : NULL;
  if (!promise) free(c);
  return promise;
}

static napi_value scratch_kept_js(napi_env env, napi_callback_info info) {
  size_t blocks, bytes;
  scratch_kept(&blocks, &bytes);
  napi_value out;
  if (napi_create_array_with_length(env, 2, &out) != napi_ok || napi_set_element(env, out, 0, stride_number(env, (double)blocks)) != napi_ok ||
      napi_set_element(env, out, 1, stride_number(env, (double)bytes)) != napi_ok)
    return NULL;
  return out;
}

napi_status stride_register_brotli(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"codecBrotli", NULL, compress, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecBrotliAsync", NULL, compress_async, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecScratchKept", NULL, scratch_kept_js, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof d / sizeof d[0], d);
}
