/* The trace codec's exports. Batches cross as typed arrays; the encoder and the metrics
 * live in C memory owned by a JavaScript external (freed when it is collected).
 *   codecEncoderCreate(maxChunkEvents, version) -> encoder (version 1 to 4: the format it writes)
 *   codecEncode(encoder, count, points u32, addresses f64, sizes u16, pointCount)
 *     -> { structure: Buffer, residue: Buffer | null, descriptors, irregular, rules }
 *   codecEncodeAsync(same) -> a promise of the same, encoded on the thread pool (one at a time)
 *   codecEncoderMetrics(encoder) -> metrics rows (see metrics_to_js)
 *   codecMetricsCreate() -> metrics;  codecMetricsAdd(metrics, count, points, addresses)
 *   codecMetricsFinish(metrics) -> metrics rows
 *   codecChunkCount(structure) -> the event count a chunk's compressed structure declares, or -1
 *   codecDecodeChunk(structure, residue, pointCount, count, format) -> { points, addresses, sizes }
 *     (the chunk's two brotli streams as stored; count: the events it must declare)
 *   codecDecodeChunkAsync(same) -> a promise of the same, both stages undone on the thread pool */
#include "../addon.h"
#include "brotli.h"
#include "decoder.h"
#include "scratch.h"
#include "encoder.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const napi_type_tag ENCODER_TAG = {0x5374726964654563ull, 0x6f646572456e6331ull};
static const napi_type_tag METRICS_TAG = {0x5374726964654d65ull, 0x7472696373526d31ull};

static napi_value throw_damaged(napi_env env, const char *what) {
  char message[260];
  snprintf(message, sizeof message, "trace chunk is damaged: %s", what);
  return stride_throw(env, message);
}

/* A batch of accesses: argv = [handle, count, points, addresses, (sizes,) pointCount]. */
typedef struct {
  uint32_t count, point_count;
  uint32_t *points;
  double *addresses;
  uint16_t *sizes;
} Batch;

static bool get_batch(napi_env env, napi_value *argv, bool with_sizes, Batch *b) {
  size_t np, na, ns = SIZE_MAX;
  int last = with_sizes ? 5 : 4;
  if (!stride_u32(env, argv[1], &b->count, "count") || !stride_u32(env, argv[last], &b->point_count, "pointCount")) return false;
  b->points = stride_typed_array(env, argv[2], napi_uint32_array, &np, "points");
  b->addresses = b->points ? stride_typed_array(env, argv[3], napi_float64_array, &na, "addresses") : NULL;
  if (!b->addresses) return false;
  if (with_sizes && !(b->sizes = stride_typed_array(env, argv[4], napi_uint16_array, &ns, "sizes"))) return false;
  if (np < b->count || na < b->count || ns < b->count) {
    stride_throw(env, "codec: the arrays hold fewer events than count");
    return false;
  }
  return true;
}

/* ---- encoder ---- */

/* The encoder's fixed arrays (about 40 bytes per event of its chunk size), reported to the
 * JavaScript heap so a dropped encoder is collected before memory runs short. */
static int64_t encoder_bytes(uint32_t max_events) { return (int64_t)max_events * 40; }

static void encoder_finalize(napi_env env, void *data, void *hint) {
  int64_t ignored;
  napi_adjust_external_memory(env, -encoder_bytes(((ChunkEncoder *)data)->max_events), &ignored);
  encoder_free(data);
  free(data);
}

static napi_value encoder_create(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint32_t max_events, version;
  if (!stride_args(env, info, 2, argv) || !stride_u32(env, argv[0], &max_events, "maxChunkEvents") || !stride_u32(env, argv[1], &version, "version"))
    return NULL;
  if (max_events == 0 || max_events > (1u << 26)) return stride_throw(env, "maxChunkEvents must be in [1, 2^26]");
  if (version < 1 || version > 4) return stride_throw(env, "the codec version must be 1 to 4");
  ChunkEncoder *e = malloc(sizeof *e);
  if (!e || !encoder_init(e, max_events, (int)version)) {
    free(e);
    return stride_throw(env, "out of memory creating a trace chunk encoder");
  }
  int64_t ignored;
  napi_adjust_external_memory(env, encoder_bytes(max_events), &ignored);
  return stride_external(env, e, encoder_finalize, &ENCODER_TAG);
}

/* The encoder's result for the chunk just encoded: copies of its bytes and its counts. */
static napi_value encoded(napi_env env, ChunkEncoder *e) {
  napi_value out, structure, residue;
  if (napi_create_object(env, &out) != napi_ok || napi_create_buffer_copy(env, e->structure.length, e->structure.data, NULL, &structure) != napi_ok)
    return NULL;
  if (e->residue.length > 0 ? napi_create_buffer_copy(env, e->residue.length, e->residue.data, NULL, &residue) != napi_ok
                            : napi_get_null(env, &residue) != napi_ok)
    return NULL;
  if (!stride_set(env, out, "structure", structure) || !stride_set(env, out, "residue", residue) ||
      !stride_set(env, out, "descriptors", stride_number(env, (double)e->descriptors)) ||
      !stride_set(env, out, "irregular", stride_number(env, (double)e->irregular)) || !stride_set(env, out, "rules", stride_number(env, e->rules)))
    return NULL;
  return out;
}

static ChunkEncoder *idle_encoder(napi_env env, napi_value v) {
  ChunkEncoder *e = stride_unwrap(env, v, &ENCODER_TAG, "a chunk encoder");
  if (e && e->busy) {
    stride_throw(env, "codec: the encoder is still encoding the previous chunk");
    return NULL;
  }
  return e;
}

static napi_value encode(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!stride_args(env, info, 6, argv)) return NULL;
  ChunkEncoder *e = idle_encoder(env, argv[0]);
  Batch b;
  if (!e || !get_batch(env, argv, true, &b)) return NULL;
  const char *problem = encoder_encode(e, b.count, b.points, b.addresses, b.sizes, b.point_count);
  if (problem) return stride_throw(env, problem);
  return encoded(env, e);
}

/* An encode in flight: the encoder and the batch's arrays are held until it completes. */
typedef struct {
  StrideWork w; /* holds the encoder, points, addresses, sizes */
  ChunkEncoder *e;
  Batch b;
} AsyncEncode;

static void encode_execute(napi_env env, void *data) {
  AsyncEncode *a = data;
  const char *problem = encoder_encode(a->e, a->b.count, a->b.points, a->b.addresses, a->b.sizes, a->b.point_count);
  if (problem) stride_work_fail(&a->w, "", problem);
}

static void encode_complete(napi_env env, napi_status status, void *data) {
  AsyncEncode *a = data;
  a->e->busy = false;
  napi_value result = status == napi_ok && !a->w.failed ? encoded(env, a->e) : NULL;
  stride_settle_work(env, &a->w, result, "the trace chunk encode was cancelled");
  free(a);
}

/* codecEncodeAsync: encode's work on Node's thread pool (the tracer reads on meanwhile). One
 * at a time per encoder (its stream metrics run across chunks): the caller waits for each. */
static napi_value encode_async(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!stride_args(env, info, 6, argv)) return NULL;
  AsyncEncode *a = calloc(1, sizeof *a);
  if (!a) return stride_throw(env, "out of memory encoding a trace chunk");
  napi_value hold[4] = {argv[0], argv[2], argv[3], argv[4]};
  napi_value promise = (a->e = idle_encoder(env, argv[0])) && get_batch(env, argv, true, &a->b)
                           ? stride_queue_work(env, &a->w, "stride:encode", hold, 4, encode_execute, encode_complete)
                           : NULL;
  if (!promise) {
    free(a);
    return NULL;
  }
  a->e->busy = true;
  return promise;
}

/* ---- metrics ---- */

/* Rows of METRICS_ROW numbers per point with accesses, and [value, count] pairs they index. */
#define METRICS_ROW 9

typedef struct {
  double *rows, *pairs;
  size_t n_rows, cap_rows, n_pairs, cap_pairs;
  bool failed;
} MetricsOut;

static bool push(double **a, size_t *n, size_t *cap, const double *v, size_t k) {
  if (*n + k > *cap) {
    size_t c = *cap ? *cap : 256;
    while (c < *n + k) c *= 2;
    double *next = realloc(*a, c * 8);
    if (!next) return false;
    *a = next;
    *cap = c;
  }
  memcpy(*a + *n, v, k * 8);
  *n += k;
  return true;
}

/* Row: point, accesses, predictable, streams, lengthSum, distinctLengths, distinctStrides,
 * top lengths, top strides; the pairs follow in order, lengths first. */
static void collect(void *ctx, const PointMetrics *pm) {
  MetricsOut *o = ctx;
  double row[METRICS_ROW] = {pm->point,           pm->accesses,         pm->predictable,  pm->streams,    pm->length_sum,
                             pm->distinct_lengths, pm->distinct_strides, pm->top_lengths, pm->top_strides};
  if (!push(&o->rows, &o->n_rows, &o->cap_rows, row, METRICS_ROW) ||
      !push(&o->pairs, &o->n_pairs, &o->cap_pairs, pm->lengths, 2 * (size_t)pm->top_lengths) ||
      !push(&o->pairs, &o->n_pairs, &o->cap_pairs, pm->strides, 2 * (size_t)pm->top_strides))
    o->failed = true;
}

static napi_value metrics_to_js(napi_env env, RsdMetrics *m) {
  MetricsOut o = {0};
  bool ok = metrics_finish(m, collect, &o) && !o.failed;
  napi_value out = NULL, rows = NULL, pairs = NULL;
  if (ok) {
    rows = stride_float64_array(env, o.rows, o.n_rows);
    pairs = rows ? stride_float64_array(env, o.pairs, o.n_pairs) : NULL;
    if (pairs && napi_create_object(env, &out) == napi_ok) out = stride_set(env, out, "rows", rows) ? stride_set(env, out, "pairs", pairs) : NULL;
  }
  free(o.rows);
  free(o.pairs);
  if (!ok) return stride_throw(env, "out of memory finishing the stream metrics");
  return out;
}

static napi_value encoder_metrics(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!stride_args(env, info, 1, argv)) return NULL;
  ChunkEncoder *e = idle_encoder(env, argv[0]);
  return e ? metrics_to_js(env, &e->metrics) : NULL;
}

static void metrics_finalize(napi_env env, void *data, void *hint) {
  metrics_free(data);
  free(data);
}

static napi_value metrics_create(napi_env env, napi_callback_info info) {
  RsdMetrics *m = malloc(sizeof *m);
  if (m) metrics_init(m);
  if (!m || m->failed) {
    if (m) metrics_free(m);
    free(m);
    return stride_throw(env, "out of memory creating stream metrics");
  }
  return stride_external(env, m, metrics_finalize, &METRICS_TAG);
}

static napi_value metrics_add_batch(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  if (!stride_args(env, info, 5, argv)) return NULL;
  RsdMetrics *m = stride_unwrap(env, argv[0], &METRICS_TAG, "stream metrics");
  Batch b;
  if (!m || !get_batch(env, argv, false, &b)) return NULL;
  if (!metrics_grow(m, b.point_count)) return stride_throw(env, "out of memory in the stream metrics");
  for (uint32_t i = 0; i < b.count; i++) {
    if (b.points[i] >= b.point_count) return stride_throw(env, "codec: an access point is outside the point table");
    metrics_add(m, b.points[i], b.addresses[i]);
  }
  if (m->failed) return stride_throw(env, "out of memory in the stream metrics");
  return NULL;
}

static napi_value metrics_finish_js(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!stride_args(env, info, 1, argv)) return NULL;
  RsdMetrics *m = stride_unwrap(env, argv[0], &METRICS_TAG, "stream metrics");
  return m ? metrics_to_js(env, m) : NULL;
}

/* ---- decoder ---- */

/* What a valid structure may expand to: well under this per event (about 45 worst case). */
#define STRUCTURE_BYTES_PER_EVENT 64
/* Most events a chunk may declare (src/main/compress/native-codec.ts, MAX_DECODED_CHUNK_EVENTS). */
#define MAX_CHUNK_EVENTS (1u << 20)

static napi_value chunk_count(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  size_t n, plain_length;
  uint8_t *plain = NULL;
  if (!stride_args(env, info, 1, argv)) return NULL;
  uint8_t *structure = stride_typed_array(env, argv[0], napi_uint8_array, &n, "structure");
  if (!structure) return NULL;
  const char *why = brotli_decompress(structure, n, (size_t)MAX_CHUNK_EVENTS * STRUCTURE_BYTES_PER_EVENT + 1024, &plain, &plain_length);
  if (why) return throw_damaged(env, why);
  int64_t count = decoder_count(plain, plain_length);
  scratch_free(NULL, plain);
  return stride_number(env, (double)count);
}

/* A decode in flight: the inputs and the three output arrays are held by references until it
 * completes, so the collector cannot free what the thread pool writes into. */
typedef struct {
  StrideWork w; /* holds the structure, residue, points, addresses, sizes */
  const uint8_t *structure, *residue; /* brotli streams, as stored */
  size_t ns, nr;
  uint32_t point_count, format;
  DecodedChunk out;
} AsyncDecode;

/* An output array the caller lends (at least `count` long), or a new one. */
static napi_value output_array(napi_env env, napi_value lent, napi_typedarray_type type, size_t elem, uint32_t count, void **data, const char *what) {
  if (!lent) return stride_new_typed(env, type, elem, count, data);
  size_t length;
  *data = stride_typed_array(env, lent, type, &length, what);
  if (!*data) return NULL;
  if (length < count) {
    napi_throw_range_error(env, NULL, "decode: a lent output array is shorter than the chunk");
    return NULL;
  }
  return lent;
}

/* Reads decode's arguments and makes its output arrays: out[0..2] = points, addresses, sizes.
 * Three more arguments, when given, are arrays to decode into instead (reused by a caller that
 * streams chunks: new arrays cost a zero-filled allocation per chunk). */
static bool decode_args(napi_env env, napi_callback_info info, napi_value *argv, AsyncDecode *d, napi_value *out) {
  size_t argc = 8;
  napi_value all[8] = {NULL};
  if (napi_get_cb_info(env, info, &argc, all, NULL, NULL) != napi_ok || argc < 5) {
    napi_throw_type_error(env, NULL, "stride core: too few arguments");
    return false;
  }
  memcpy(argv, all, 5 * sizeof *argv);
  bool lent = argc >= 8;
  uint32_t count;
  d->structure = stride_typed_array(env, argv[0], napi_uint8_array, &d->ns, "structure");
  d->residue = d->structure ? stride_typed_array(env, argv[1], napi_uint8_array, &d->nr, "residue") : NULL;
  if (!d->residue || !stride_u32(env, argv[2], &d->point_count, "pointCount") || !stride_u32(env, argv[3], &count, "count") ||
      !stride_u32(env, argv[4], &d->format, "format"))
    return false;
  d->out.count = count;
  out[0] = output_array(env, lent ? all[5] : NULL, napi_uint32_array, 4, count, (void **)&d->out.points, "points");
  out[1] = out[0] ? output_array(env, lent ? all[6] : NULL, napi_float64_array, 8, count, (void **)&d->out.addresses, "addresses") : NULL;
  out[2] = out[1] ? output_array(env, lent ? all[7] : NULL, napi_uint16_array, 2, count, (void **)&d->out.sizes, "sizes") : NULL;
  if (lent) return out[2] != NULL;
  if (!out[2]) stride_throw(env, "out of memory decoding a trace chunk");
  return out[2] != NULL;
}

static napi_value decoded(napi_env env, uint32_t count, napi_value *arrays) {
  napi_value result;
  if (napi_create_object(env, &result) != napi_ok || !stride_set(env, result, "count", stride_number(env, count)) ||
      !stride_set(env, result, "points", arrays[0]) || !stride_set(env, result, "addresses", arrays[1]) || !stride_set(env, result, "sizes", arrays[2]))
    return NULL;
  return result;
}

/* Both stages of a stored chunk that must declare d->out.count events: brotli undone (each
 * stream bounded by what that many events may need), the count checked, then the first stage. */
static const char *decode_stored(AsyncDecode *d) {
  static _Thread_local char why_count[120];
  static const uint8_t none[1];
  uint8_t *structure = NULL, *residue = NULL;
  size_t ns = 0, nr = 0;
  uint32_t count = d->out.count;
  const char *why = brotli_decompress(d->structure, d->ns, (size_t)count * STRUCTURE_BYTES_PER_EVENT + 1024, &structure, &ns);
  if (!why) {
    int64_t declared = decoder_count(structure, ns);
    if (declared < 0) why = "it declares an unreadable number of events";
    else if (declared != count) {
      snprintf(why_count, sizeof why_count, "it declares %lld events, the session %u", (long long)declared, count);
      why = why_count;
    }
  }
  if (!why && d->nr > 0) why = brotli_decompress(d->residue, d->nr, 8 * (size_t)count + 1, &residue, &nr); /* v4: a form byte first */
  if (!why) why = decoder_decode((int)d->format, structure, ns, residue ? residue : none, nr, d->point_count, &d->out);
  scratch_free(NULL, structure);
  scratch_free(NULL, residue);
  return why;
}

static napi_value decode(napi_env env, napi_callback_info info) {
  napi_value argv[5], arrays[3];
  AsyncDecode d = {0};
  if (!decode_args(env, info, argv, &d, arrays)) return NULL;
  const char *damage = decode_stored(&d);
  if (damage) return throw_damaged(env, damage);
  return decoded(env, d.out.count, arrays);
}

static void decode_execute(napi_env env, void *data) {
  AsyncDecode *d = data;
  const char *damage = decode_stored(d);
  if (damage) stride_work_fail(&d->w, "trace chunk is damaged: ", damage);
}

static void decode_complete(napi_env env, napi_status status, void *data) {
  AsyncDecode *d = data;
  napi_value arrays[3], result = NULL;
  for (int k = 0; k < 3; k++) napi_get_reference_value(env, d->w.refs[k + 2], &arrays[k]);
  if (status == napi_ok && !d->w.failed) result = decoded(env, d->out.count, arrays);
  stride_settle_work(env, &d->w, result, "the trace chunk decode was cancelled");
  free(d);
}

/* codecDecodeChunkAsync: decode's work on Node's thread pool, so the next chunk decodes while
 * the caller simulates this one. Resolves to decode's result; rejects when the chunk is damaged. */
static napi_value decode_async(napi_env env, napi_callback_info info) {
  napi_value argv[5], arrays[3];
  AsyncDecode *d = calloc(1, sizeof *d);
  if (!d) return stride_throw(env, "out of memory decoding a trace chunk");
  napi_value promise = NULL;
  if (decode_args(env, info, argv, d, arrays)) {
    napi_value hold[5] = {argv[0], argv[1], arrays[0], arrays[1], arrays[2]};
    promise = stride_queue_work(env, &d->w, "stride:decode", hold, 5, decode_execute, decode_complete);
  }
  if (!promise) free(d);
  return promise;
}

napi_status stride_register_codec(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"codecEncoderCreate", NULL, encoder_create, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecEncode", NULL, encode, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecEncodeAsync", NULL, encode_async, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecEncoderMetrics", NULL, encoder_metrics, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecMetricsCreate", NULL, metrics_create, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecMetricsAdd", NULL, metrics_add_batch, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecMetricsFinish", NULL, metrics_finish_js, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecChunkCount", NULL, chunk_count, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecDecodeChunk", NULL, decode, NULL, NULL, NULL, napi_enumerable, NULL},
      {"codecDecodeChunkAsync", NULL, decode_async, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof d / sizeof d[0], d);
}
