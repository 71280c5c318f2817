/* The miss classifier's shadow (shadow.h) as exports, registered with the simulator's:
 *   shadowCreate(size, assoc, lineSize, maxRemembered, maxSetBitmap) -> shadow
 *   shadowRun(shadow, count, points u32, addresses f64, sizes u16, kinds u8 | null)
 *   shadowRunAsync(...the same) -> a promise: the batch runs on Node's thread pool (beside the
 *     first simulation's own batch; the arrays must not change meanwhile)
 *   shadowResult(shadow, points) -> { shadow f64, cold f64, sets f64 | null, forgetful, setCount }
 *     for a point table of `points` (at least every point fed) */
#include "../addon.h"
#include "shadow.h"
#include <stdlib.h>
#include <string.h>

static const napi_type_tag SHADOW_TAG = {0x5374726964655368ull, 0x61646f7743337331ull};

typedef struct {
  Shadow s;
  int64_t reported;
  bool busy;
} ShadowBox;

static void report(napi_env env, ShadowBox *b) {
  int64_t now = (int64_t)shadow_bytes(&b->s), ignored;
  if (now != b->reported) napi_adjust_external_memory(env, now - b->reported, &ignored);
  b->reported = now;
}

static void shadow_finalize(napi_env env, void *data, void *hint) {
  ShadowBox *b = data;
  int64_t ignored;
  if (b->reported) napi_adjust_external_memory(env, -b->reported, &ignored);
  shadow_free(&b->s);
  free(b);
}

static ShadowBox *box_of(napi_env env, napi_value v) {
  ShadowBox *b = stride_unwrap(env, v, &SHADOW_TAG, "a miss classifier");
  if (b && b->busy) {
    stride_throw(env, "miss classifier: a batch is still running (await shadowRunAsync first)");
    return NULL;
  }
  return b;
}

static napi_value create(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  double v[5];
  if (!stride_args(env, info, 5, argv)) return NULL;
  for (int i = 0; i < 5; i++)
    if (napi_get_value_double(env, argv[i], &v[i]) != napi_ok) return stride_throw(env, "miss classifier: its arguments are numbers");
  if (!(v[3] >= 0 && v[3] <= UINT32_MAX) || !(v[4] >= 0)) return stride_throw(env, "miss classifier: bad limits");
  ShadowBox *b = calloc(1, sizeof *b);
  if (!b) return stride_throw(env, "out of memory");
  const char *why = shadow_init(&b->s, v[0], v[1], v[2], (uint32_t)v[3], (size_t)v[4]);
  if (why) {
    free(b);
    return stride_throw(env, why);
  }
  report(env, b);
  return stride_external(env, b, shadow_finalize, &SHADOW_TAG);
}

typedef struct {
  StrideWork w; /* holds the shadow, points, addresses, sizes, kinds */
  ShadowBox *b;
  uint32_t count;
  const uint32_t *points;
  const double *addresses;
  const uint16_t *sizes;
  const uint8_t *kinds;
  size_t n_kinds;
} ShadowBatch;

static bool get_batch(napi_env env, const napi_value *argv, ShadowBatch *out) {
  size_t np, na, ns;
  if (!(out->b = box_of(env, argv[0])) || !stride_u32(env, argv[1], &out->count, "count")) return false;
  out->points = stride_typed_array(env, argv[2], napi_uint32_array, &np, "points");
  out->addresses = out->points ? stride_typed_array(env, argv[3], napi_float64_array, &na, "addresses") : NULL;
  out->sizes = out->addresses ? stride_typed_array(env, argv[4], napi_uint16_array, &ns, "sizes") : NULL;
  if (!out->sizes) return false;
  napi_valuetype t;
  if (napi_typeof(env, argv[5], &t) != napi_ok) return false;
  out->kinds = NULL;
  out->n_kinds = 0;
  if (t != napi_null && t != napi_undefined && !(out->kinds = stride_typed_array(env, argv[5], napi_uint8_array, &out->n_kinds, "kinds"))) return false;
  if (np < out->count || na < out->count || ns < out->count) {
    stride_throw(env, "miss classifier: the arrays hold fewer accesses than count");
    return false;
  }
  return true;
}

static napi_value run(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  ShadowBatch a;
  if (!stride_args(env, info, 6, argv) || !get_batch(env, argv, &a)) return NULL;
  const char *why = shadow_run(&a.b->s, a.count, a.points, a.addresses, a.sizes, a.kinds, a.n_kinds);
  report(env, a.b);
  return why ? stride_throw(env, why) : NULL;
}

static void run_execute(napi_env env, void *data) {
  ShadowBatch *r = data;
  const char *why = shadow_run(&r->b->s, r->count, r->points, r->addresses, r->sizes, r->kinds, r->n_kinds);
  if (why) stride_work_fail(&r->w, "", why);
}

static void run_complete(napi_env env, napi_status status, void *data) {
  ShadowBatch *r = data;
  r->b->busy = false;
  report(env, r->b);
  napi_value undefined = NULL;
  if (status == napi_ok && !r->w.failed) napi_get_undefined(env, &undefined);
  stride_settle_work(env, &r->w, undefined, "the miss classifier's batch was cancelled");
  free(r);
}

static napi_value run_async(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!stride_args(env, info, 6, argv)) return NULL;
  ShadowBatch *r = calloc(1, sizeof *r);
  if (!r) return stride_throw(env, "out of memory");
  napi_value hold[5] = {argv[0], argv[2], argv[3], argv[4], argv[5]};
  /* A null kinds is not held (only objects can be). */
  napi_value promise = get_batch(env, argv, r) ? stride_queue_work(env, &r->w, "stride:shadow", hold, r->kinds ? 5 : 4, run_execute, run_complete) : NULL;
  if (!promise) {
    free(r);
    return NULL;
  }
  r->b->busy = true;
  return promise;
}

static napi_value result(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint32_t points;
  if (!stride_args(env, info, 2, argv)) return NULL;
  ShadowBox *b = box_of(env, argv[0]);
  if (!b || !stride_u32(env, argv[1], &points, "points")) return NULL;
  if (points < b->s.points) return stride_throw(env, "miss classifier: fewer points than were fed");
  const char *why = shadow_grow(&b->s, points);
  if (why) return stride_throw(env, why);
  napi_value out, flag;
  if (napi_create_object(env, &out) != napi_ok) return NULL;
  double *shadow, *cold, *sets = NULL;
  napi_value vs = stride_new_typed(env, napi_float64_array, 8, points, (void **)&shadow);
  napi_value vc = vs ? stride_new_typed(env, napi_float64_array, 8, points, (void **)&cold) : NULL;
  if (!vc) return stride_throw(env, "out of memory");
  if (points) {
    memcpy(shadow, b->s.shadow_misses, (size_t)points * sizeof *shadow);
    memcpy(cold, b->s.cold_misses, (size_t)points * sizeof *cold);
  }
  napi_value vsets;
  if (b->s.set_bits) {
    if (!(vsets = stride_new_typed(env, napi_float64_array, 8, points, (void **)&sets))) return stride_throw(env, "out of memory");
    for (uint32_t p = 0; p < points; p++) sets[p] = shadow_sets_of(&b->s, p);
  } else if (napi_get_null(env, &vsets) != napi_ok)
    return NULL;
  if (napi_get_boolean(env, b->s.forgetful, &flag) != napi_ok) return NULL;
  report(env, b);
  if (!stride_set(env, out, "shadow", vs) || !stride_set(env, out, "cold", vc) || !stride_set(env, out, "sets", vsets) || !stride_set(env, out, "forgetful", flag) ||
      !stride_set(env, out, "setCount", stride_number(env, b->s.sets)))
    return NULL;
  return out;
}

napi_status stride_register_shadow(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"shadowCreate", NULL, create, NULL, NULL, NULL, napi_enumerable, NULL},
      {"shadowRun", NULL, run, NULL, NULL, NULL, napi_enumerable, NULL},
      {"shadowRunAsync", NULL, run_async, NULL, NULL, NULL, napi_enumerable, NULL},
      {"shadowResult", NULL, result, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof d / sizeof d[0], d);
}
