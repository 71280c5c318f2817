/* Each access's data structure (its variable id), as the trace stores it beside its chunk and
 * as the simulator counts it: per-access loops that cost 20-35 ns an access in JavaScript on a
 * loaded machine (a quarter of a second or more of a 27 M-access trace), a few here.
 *   columnEncode(points u32, variables i32, count, pointCount) -> u8: varint pairs (accesses
 *     skipped, variable id) for each access whose variable differs from its point's previous
 *     access in the chunk (src/main/store/chunk-variables.ts has the format; brotli is its caller's)
 *   columnDecode(body u8, points u32, count, pointCount, variableBound, out i32) -> undefined,
 *     or throws naming the damage
 *   touchRemap(points u32, variables i32, count, lastVariable i32, lastTouch i32, firstTouch i32,
 *     nextTouch i32, touchVariable i32, touchPoint u32, state f64, out u32) -> the index it stopped
 *     at: each access's touch (one per (point, variable) pair, numbered in order of first access;
 *     src/main/simulate/touch-hierarchy.ts). state[0] is the touches made so far; state[1], when
 *     given, gets the data structures consumed (the recorded accesses passed: the caller's next
 *     `variables` offset, which it counted in a pass of its own before, 0.5 s of a 129 M-access
 *     trace in JavaScript); the loop stops
 *     when the touch table is full (the caller grows it and calls again) or at a point outside
 *     the point table. A point's touches are a list (firstTouch, nextTouch): most have one.
 *     `variables` holds the recorded accesses' data structures only, in order: a context access
 *     (SIM_CONTEXT) has none, so a batch of a function's trace warmed by the rest of the program
 *     needs no pass to align them. */
#include "../addon.h"
#include "../sim/context.h"
#include <stdlib.h>
#include <string.h>

static napi_value encode(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!stride_args(env, info, 4, argv)) return NULL;
  size_t np, nv;
  uint32_t count, point_count;
  const uint32_t *points = stride_typed_array(env, argv[0], napi_uint32_array, &np, "points");
  const int32_t *variables = points ? stride_typed_array(env, argv[1], napi_int32_array, &nv, "variables") : NULL;
  if (!variables || !stride_u32(env, argv[2], &count, "count") || !stride_u32(env, argv[3], &point_count, "pointCount")) return NULL;
  if (count > np || count > nv) return stride_throw(env, "columnEncode: count exceeds the arrays");
  int32_t *last = malloc((point_count ? point_count : 1) * sizeof *last);
  size_t cap = 4096, at = 0;
  uint8_t *out = malloc(cap);
  if (!last || !out) {
    free(last);
    free(out);
    return stride_throw(env, "columnEncode: out of memory");
  }
  for (uint32_t p = 0; p < point_count; p++) last[p] = -1;
  int64_t kept = -1;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t p = points[i];
    int32_t v = variables[i];
    if (p < point_count && last[p] == v) continue;
    if (p >= point_count || v < 0) {
      free(last);
      free(out);
      return stride_throw(env, p >= point_count ? "columnEncode: an access names a point outside the table" : "columnEncode: an access has no data structure");
    }
    last[p] = v;
    if (at + 20 > cap) {
      uint8_t *bigger = realloc(out, cap *= 2);
      if (!bigger) {
        free(last);
        free(out);
        return stride_throw(env, "columnEncode: out of memory");
      }
      out = bigger;
    }
    uint64_t values[2] = {(uint64_t)((int64_t)i - kept - 1), (uint64_t)v};
    for (int k = 0; k < 2; k++) {
      uint64_t n = values[k];
      while (n >= 0x80) {
        out[at++] = (uint8_t)(n | 0x80);
        n >>= 7;
      }
      out[at++] = (uint8_t)n;
    }
    kept = i;
  }
  free(last);
  void *data;
  napi_value result = stride_new_typed(env, napi_uint8_array, 1, at, &data);
  if (result && at) memcpy(data, out, at);
  free(out);
  return result;
}

static bool varint(const uint8_t *body, size_t n, size_t *at, uint64_t *value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 63; shift += 7) {
    if (*at >= n) return false;
    uint8_t b = body[(*at)++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80) {
      *value = v;
      return true;
    }
  }
  return false;
}

static napi_value decode(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!stride_args(env, info, 6, argv)) return NULL;
  size_t nb, np, no;
  uint32_t count, point_count;
  double bound;
  const uint8_t *body = stride_typed_array(env, argv[0], napi_uint8_array, &nb, "body");
  const uint32_t *points = body ? stride_typed_array(env, argv[1], napi_uint32_array, &np, "points") : NULL;
  if (!points || !stride_u32(env, argv[2], &count, "count") || !stride_u32(env, argv[3], &point_count, "pointCount")) return NULL;
  if (napi_get_value_double(env, argv[4], &bound) != napi_ok) return stride_throw(env, "columnDecode: variableBound must be a number");
  int32_t *out = stride_typed_array(env, argv[5], napi_int32_array, &no, "out");
  if (!out) return NULL;
  if (count > np || count > no) return stride_throw(env, "columnDecode: count exceeds the arrays");
  int32_t *last = malloc((point_count ? point_count : 1) * sizeof *last);
  if (!last) return stride_throw(env, "columnDecode: out of memory");
  for (uint32_t p = 0; p < point_count; p++) last[p] = -1;
  const char *why = NULL;
  size_t at = 0;
  uint64_t i = 0;
  while (!why && at < nb) {
    uint64_t skip, v;
    if (!varint(body, nb, &at, &skip) || !varint(body, nb, &at, &v)) {
      why = "it ends early";
      break;
    }
    if (skip >= count || i + skip >= count) {
      why = "it names more accesses than the chunk has";
      break;
    }
    if ((double)v >= bound) {
      why = "it names a data structure the session does not have";
      break;
    }
    for (uint64_t end = i + skip; i < end; i++) {
      uint32_t p = points[i];
      if (p >= point_count || last[p] < 0) {
        why = "an access has none";
        break;
      }
      out[i] = last[p];
    }
    if (why) break;
    uint32_t p = points[i];
    if (p >= point_count) {
      why = "an access names an unknown point";
      break;
    }
    last[p] = (int32_t)v;
    out[i++] = (int32_t)v;
  }
  for (; !why && i < count; i++) {
    uint32_t p = points[i];
    if (p >= point_count || last[p] < 0) why = "an access has none";
    else out[i] = last[p];
  }
  free(last);
  if (why) return stride_throw(env, why);
  return NULL;
}

static napi_value remap(napi_env env, napi_callback_info info) {
  napi_value argv[11];
  if (!stride_args(env, info, 11, argv)) return NULL;
  size_t np, nv, nlv, nlt, nft, nnt, ntv, ntp, ns, no;
  uint32_t count;
  const uint32_t *points = stride_typed_array(env, argv[0], napi_uint32_array, &np, "points");
  const int32_t *variables = points ? stride_typed_array(env, argv[1], napi_int32_array, &nv, "variables") : NULL;
  if (!variables || !stride_u32(env, argv[2], &count, "count")) return NULL;
  int32_t *last_variable = stride_typed_array(env, argv[3], napi_int32_array, &nlv, "lastVariable");
  int32_t *last_touch = last_variable ? stride_typed_array(env, argv[4], napi_int32_array, &nlt, "lastTouch") : NULL;
  int32_t *first_touch = last_touch ? stride_typed_array(env, argv[5], napi_int32_array, &nft, "firstTouch") : NULL;
  int32_t *next_touch = first_touch ? stride_typed_array(env, argv[6], napi_int32_array, &nnt, "nextTouch") : NULL;
  int32_t *touch_variable = next_touch ? stride_typed_array(env, argv[7], napi_int32_array, &ntv, "touchVariable") : NULL;
  uint32_t *touch_point = touch_variable ? stride_typed_array(env, argv[8], napi_uint32_array, &ntp, "touchPoint") : NULL;
  double *state = touch_point ? stride_typed_array(env, argv[9], napi_float64_array, &ns, "state") : NULL;
  uint32_t *out = state ? stride_typed_array(env, argv[10], napi_uint32_array, &no, "out") : NULL;
  if (!out) return NULL;
  if (count > np || count > no || ns < 1) return stride_throw(env, "touchRemap: count exceeds the arrays");
  size_t points_known = nlv < nlt ? nlv : nlt;
  if (nft < points_known) points_known = nft;
  size_t capacity = nnt < ntv ? nnt : ntv;
  if (ntp < capacity) capacity = ntp;
  double made = state[0];
  if (!(made >= 0 && made <= (double)capacity)) return stride_throw(env, "touchRemap: the touch count is outside the table");
  size_t touches = (size_t)made;
  uint32_t i = 0;
  size_t k = 0; /* the recorded accesses so far: variables[k] is the next one's */
  for (; i < count; i++) {
    uint32_t p = points[i];
    /* A context access (whole-program context, the rest of the program): no touch, its code kept. */
    if (p >= SIM_CONTEXT) {
      out[i] = p;
      continue;
    }
    if (p >= points_known) break;
    if (k == nv) return stride_throw(env, "touchRemap: fewer data structures than recorded accesses");
    int32_t v = variables[k];
    if (last_variable[p] == v) {
      out[i] = (uint32_t)last_touch[p];
      k++;
      continue;
    }
    int32_t t = first_touch[p];
    while (t >= 0 && touch_variable[t] != v) t = next_touch[t];
    if (t < 0) {
      if (touches == capacity) break;
      t = (int32_t)touches++;
      touch_variable[t] = v;
      touch_point[t] = p;
      next_touch[t] = -1;
      /* Appended at the list's end: the first touch stays first (the prefetcher's owner). */
      if (first_touch[p] < 0) first_touch[p] = t;
      else {
        int32_t k = first_touch[p];
        while (next_touch[k] >= 0) k = next_touch[k];
        next_touch[k] = t;
      }
    }
    last_variable[p] = v;
    last_touch[p] = t;
    out[i] = (uint32_t)t;
    k++;
  }
  state[0] = (double)touches;
  if (ns >= 2) state[1] = (double)k;
  return stride_number(env, i);
}

napi_status stride_register_column(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"columnEncode", NULL, encode, NULL, NULL, NULL, napi_enumerable, NULL},
      {"columnDecode", NULL, decode, NULL, NULL, NULL, napi_enumerable, NULL},
      {"touchRemap", NULL, remap, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, 3, d);
}
