/* The stream detector's exports: one detector per group (a function, for Stride), fed whole
 * batches with each point's group, so no JavaScript runs per access.
 *   streamsCreate(window, groups) -> detectors
 *   streamsAdd(detectors, count, points u32, addresses f64, sizes u16, groupOfPoint i32)
 *   streamsFinish(detectors) -> f64, STREAMS_ROW numbers per group: references, streams,
 *     scalar, inStreams, lengthSq, strideSum, strideElemSum, 4 length buckets, 3 long-stream
 *     stride classes (see src/main/compress/native-streams.ts) */
#include "../addon.h"
#include "detector.h"
#include <stdlib.h>

#define STREAMS_ROW 14

static const napi_type_tag DETECTORS_TAG = {0x5374726964655374ull, 0x7265616d73446574ull};

typedef struct {
  uint32_t n;
  bool finished;
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
  for (; g->n < groups; g->n++)
    if (!detector_init(&g->d[g->n], window)) {
      detectors_free(g);
      return stride_throw(env, "out of memory creating stream detectors");
    }
  return stride_external(env, g, finalize, &DETECTORS_TAG);
}

static napi_value add(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  uint32_t count;
  size_t np, na, ns, ng;
  if (!stride_args(env, info, 6, argv)) return NULL;
  Detectors *g = stride_unwrap(env, argv[0], &DETECTORS_TAG, "stream detectors");
  if (!g || !stride_u32(env, argv[1], &count, "count")) return NULL;
  const uint32_t *points = stride_typed_array(env, argv[2], napi_uint32_array, &np, "points");
  const double *addresses = points ? stride_typed_array(env, argv[3], napi_float64_array, &na, "addresses") : NULL;
  const uint16_t *sizes = addresses ? stride_typed_array(env, argv[4], napi_uint16_array, &ns, "sizes") : NULL;
  const int32_t *group_of = sizes ? stride_typed_array(env, argv[5], napi_int32_array, &ng, "groupOfPoint") : NULL;
  if (!group_of) return NULL;
  if (g->finished) return stride_throw(env, "stream detectors: already finished");
  if (np < count || na < count || ns < count) return stride_throw(env, "stream detectors: the arrays hold fewer accesses than count");
  for (uint32_t i = 0; i < count; i++) {
    uint32_t p = points[i];
    int32_t k = p < ng ? group_of[p] : -1;
    if (k < 0 || (uint32_t)k >= g->n) return stride_throw(env, "stream detectors: an access point has no group");
    detector_add(&g->d[k], (int64_t)addresses[i], sizes[i]);
  }
  for (uint32_t k = 0; k < g->n; k++)
    if (g->d[k].failed) return stride_throw(env, "out of memory in the stream detectors");
  return NULL;
}

static napi_value finish(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!stride_args(env, info, 1, argv)) return NULL;
  Detectors *g = stride_unwrap(env, argv[0], &DETECTORS_TAG, "stream detectors");
  if (!g) return NULL;
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
      {"streamsAdd", NULL, add, NULL, NULL, NULL, napi_enumerable, NULL},
      {"streamsFinish", NULL, finish, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof d / sizeof d[0], d);
}
