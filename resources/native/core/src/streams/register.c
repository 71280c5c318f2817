/* The stream detector's exports: one detector per group (a function, for Stride), fed whole
 * batches with each point's group, so no JavaScript runs per access. Groups may be added
 * between batches (a trace's functions become known while it runs).
 *   streamsCreate(window, groups) -> detectors
 *   streamsAddGroups(detectors, groups): grows to `groups` detectors (never shrinks)
 *   streamsAdd(detectors, count, points u32, addresses f64, sizes u16, groupOfPoint i32)
 *   streamsAddAsync(same) -> a promise, the same work on Node's thread pool (one at a time:
 *     the detectors refuse every other call until it settles)
 *   streamsFinish(detectors) -> f64, STREAMS_ROW numbers per group: references, streams,
 *     scalar, inStreams, lengthSq, strideSum, strideElemSum, 4 length buckets, 3 long-stream
 *     stride classes (see src/main/compress/native-streams.ts) */
#include "../addon.h"
#include "detector.h"
#include <stdlib.h>

#define STREAMS_ROW 14

static const napi_type_tag DETECTORS_TAG = {0x5374726964655374ull, 0x7265616d73446574ull};

typedef struct {
  uint32_t n, cap, window;
  bool finished;
  /* An async add is running on the thread pool: nothing else may touch the detectors. */
  bool busy;
  StreamDetector *d;
} Detectors;

static void detectors_free(Detectors *g) {
  for (uint32_t i = 0; g->d && i < g->n; i++) detector_free(&g->d[i]);
  free(g->d);
  free(g);
}

static void finalize(napi_env env, void *data, void *hint) { detectors_free(data); }

static napi_value create(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint32_t window, groups;
  if (!stride_args(env, info, 2, argv) || !stride_u32(env, argv[0], &window, "window") || !stride_u32(env, argv[1], &groups, "groups")) return NULL;
  if (window < 3 || window > (1u << 20)) return stride_throw(env, "the stream window must be in [3, 2^20]");
  if (groups > (1u << 20)) return stride_throw(env, "too many stream detector groups");
  Detectors *g = calloc(1, sizeof *g);
  if (g) g->d = calloc(groups ? groups : 1, sizeof *g->d);
  if (!g || !g->d) {
    free(g);
    return stride_throw(env, "out of memory creating stream detectors");
  }
  g->cap = groups ? groups : 1;
  g->window = window;
  for (; g->n < groups; g->n++)
    if (!detector_init(&g->d[g->n], window)) {
      detectors_free(g);
      return stride_throw(env, "out of memory creating stream detectors");
    }
  return stride_external(env, g, finalize, &DETECTORS_TAG);
}

/* What every call but an add refuses while an async add holds the detectors. */
static const char BUSY[] = "stream detectors: a batch is still being added on the thread pool";

/* The detectors, when no async add holds them and they are not finished; else NULL after throwing. */
static Detectors *idle_detectors(napi_env env, napi_value v) {
  Detectors *g = stride_unwrap(env, v, &DETECTORS_TAG, "stream detectors");
  if (!g) return NULL;
  const char *problem = g->busy ? BUSY : g->finished ? "stream detectors: already finished" : NULL;
  if (problem) {
    stride_throw(env, problem);
    return NULL;
  }
  return g;
}

static napi_value add_groups(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint32_t groups;
  if (!stride_args(env, info, 2, argv)) return NULL;
  Detectors *g = idle_detectors(env, argv[0]);
  if (!g || !stride_u32(env, argv[1], &groups, "groups")) return NULL;
  if (groups > (1u << 20)) return stride_throw(env, "too many stream detector groups");
  if (groups > g->cap) {
    uint32_t cap = g->cap * 2 > groups ? g->cap * 2 : groups;
    StreamDetector *d = realloc(g->d, (size_t)cap * sizeof *d);
    if (!d) return stride_throw(env, "out of memory adding stream detectors");
    g->d = d;
    g->cap = cap;
  }
  for (; g->n < groups; g->n++)
    if (!detector_init(&g->d[g->n], g->window)) return stride_throw(env, "out of memory adding stream detectors");
  return NULL;
}

/* One batch's arguments, checked on the main thread. */
typedef struct {
  uint32_t count;
  size_t groups_known;
  const uint32_t *points;
  const double *addresses;
  const uint16_t *sizes;
  const int32_t *group_of;
} Batch;

static bool get_batch(napi_env env, const napi_value *argv, Batch *b) {
  size_t np, na, ns;
  if (!stride_u32(env, argv[1], &b->count, "count")) return false;
  b->points = stride_typed_array(env, argv[2], napi_uint32_array, &np, "points");
  b->addresses = b->points ? stride_typed_array(env, argv[3], napi_float64_array, &na, "addresses") : NULL;
  b->sizes = b->addresses ? stride_typed_array(env, argv[4], napi_uint16_array, &ns, "sizes") : NULL;
  b->group_of = b->sizes ? stride_typed_array(env, argv[5], napi_int32_array, &b->groups_known, "groupOfPoint") : NULL;
  if (!b->group_of) return false;
  if (np < b->count || na < b->count || ns < b->count) {
    stride_throw(env, "stream detectors: the arrays hold fewer accesses than count");
    return false;
  }
  return true;
}

/* Feeds the batch; a problem's text, or NULL. Stops at a point without a group. */
static const char *add_batch(Detectors *g, const Batch *b) {
  if (detector_add_batch(g->d, g->n, b->count, b->points, b->addresses, b->sizes, b->group_of, b->groups_known) < b->count)
    return "stream detectors: an access point has no group";
  for (uint32_t k = 0; k < g->n; k++)
    if (g->d[k].failed) return "out of memory in the stream detectors";
  return NULL;
}

static napi_value add(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  Batch b;
  if (!stride_args(env, info, 6, argv)) return NULL;
  Detectors *g = idle_detectors(env, argv[0]);
  if (!g || !get_batch(env, argv, &b)) return NULL;
  const char *problem = add_batch(g, &b);
  return problem ? stride_throw(env, problem) : NULL;
}

/* An add in flight: the detectors and the batch's arrays are held until it completes. */
typedef struct {
  StrideWork w; /* holds the detectors, points, addresses, sizes, groupOfPoint */
  Detectors *g;
  Batch b;
} AsyncAdd;

static void add_execute(napi_env env, void *data) {
  AsyncAdd *a = data;
  const char *problem = add_batch(a->g, &a->b);
  if (problem) stride_work_fail(&a->w, "", problem);
}

static void add_complete(napi_env env, napi_status status, void *data) {
  AsyncAdd *a = data;
  a->g->busy = false;
  napi_value result = NULL;
  if (status == napi_ok && !a->w.failed) napi_get_undefined(env, &result);
  stride_settle_work(env, &a->w, result, "the stream detectors' add was cancelled");
  free(a);
}

/* streamsAddAsync: add's work on Node's thread pool (the tracer reads on meanwhile). */
static napi_value add_async(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!stride_args(env, info, 6, argv)) return NULL;
  AsyncAdd *a = calloc(1, sizeof *a);
  if (!a) return stride_throw(env, "out of memory adding to the stream detectors");
  napi_value hold[5] = {argv[0], argv[2], argv[3], argv[4], argv[5]};
  napi_value promise = (a->g = idle_detectors(env, argv[0])) && get_batch(env, argv, &a->b)
                           ? stride_queue_work(env, &a->w, "stride:streams", hold, 5, add_execute, add_complete)
                           : NULL;
  if (!promise) {
    free(a);
    return NULL;
  }
  a->g->busy = true;
  return promise;
}

static napi_value finish(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!stride_args(env, info, 1, argv)) return NULL;
  Detectors *g = stride_unwrap(env, argv[0], &DETECTORS_TAG, "stream detectors");
  if (!g) return NULL;
  if (g->busy) return stride_throw(env, BUSY);
  double *rows;
  napi_value out = stride_new_typed(env, napi_float64_array, 8, (size_t)g->n * STREAMS_ROW, (void **)&rows);
  if (!out) return stride_throw(env, "out of memory");
  for (uint32_t k = 0; k < g->n; k++) {
    StreamDetector *d = &g->d[k];
    if (!g->finished) detector_finish(d);
    const StreamTally *t = &d->tally;
    double row[STREAMS_ROW] = {(double)d->t, t->streams, t->scalar, t->in_streams, t->length_sq, t->stride_sum, t->stride_elem_sum,
                               t->buckets[0], t->buckets[1], t->buckets[2], t->buckets[3], t->long_streams[0], t->long_streams[1], t->long_streams[2]};
    for (int f = 0; f < STREAMS_ROW; f++) rows[(size_t)k * STREAMS_ROW + f] = row[f];
  }
  g->finished = true;
  return out;
}

napi_status stride_register_streams(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"streamsCreate", NULL, create, NULL, NULL, NULL, napi_enumerable, NULL},
      {"streamsAddGroups", NULL, add_groups, NULL, NULL, NULL, napi_enumerable, NULL},
      {"streamsAdd", NULL, add, NULL, NULL, NULL, napi_enumerable, NULL},
      {"streamsAddAsync", NULL, add_async, NULL, NULL, NULL, napi_enumerable, NULL},
      {"streamsFinish", NULL, finish, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof d / sizeof d[0], d);
}
