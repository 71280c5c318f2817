/* The data-structure attribution's hot loop (src/main/correlate/correlator.ts attributeBatch):
 * each access of a tracer's batch whose point's remembered span answers it (the address map's
 * span test) and whose point's current run goes on (same variable, same kind) is counted here;
 * the first that is not, stops the loop, and the JavaScript side handles it (a search of the
 * map, a run closed into a histogram) and calls again. Whole-program traces pass every access
 * through this: in JavaScript it cost 17 ns an access.
 *   traceAttribute(points u32, addresses f64, from, to, epoch, spanEpoch f64, spanLow f64,
 *                  spanHigh f64, spanVariable i32, kindOf u8, runVar i32, runKind u8,
 *                  runCount f64) -> the index it stopped at (to: all counted) */
#pragma GCC optimize("strict-aliasing")
#include "../addon.h"

static napi_value attribute(napi_env env, napi_callback_info info) {
  napi_value argv[13];
  uint32_t from, to;
  double epoch;
  size_t n_points, n_addresses, n_epoch, n_low, n_high, n_variable, n_kind, n_run_var, n_run_kind, n_run_count;
  if (!stride_args(env, info, 13, argv)) return NULL;
  const uint32_t *points = stride_typed_array(env, argv[0], napi_uint32_array, &n_points, "points");
  const double *addresses = points ? stride_typed_array(env, argv[1], napi_float64_array, &n_addresses, "addresses") : NULL;
  if (!addresses || !stride_u32(env, argv[2], &from, "from") || !stride_u32(env, argv[3], &to, "to")) return NULL;
  if (napi_get_value_double(env, argv[4], &epoch) != napi_ok) return stride_throw(env, "traceAttribute: epoch must be a number");
  const double *span_epoch = stride_typed_array(env, argv[5], napi_float64_array, &n_epoch, "spanEpoch");
  const double *low = span_epoch ? stride_typed_array(env, argv[6], napi_float64_array, &n_low, "spanLow") : NULL;
  const double *high = low ? stride_typed_array(env, argv[7], napi_float64_array, &n_high, "spanHigh") : NULL;
  const int32_t *variable = high ? stride_typed_array(env, argv[8], napi_int32_array, &n_variable, "spanVariable") : NULL;
  const uint8_t *kind_of = variable ? stride_typed_array(env, argv[9], napi_uint8_array, &n_kind, "kindOf") : NULL;
  const int32_t *run_var = kind_of ? stride_typed_array(env, argv[10], napi_int32_array, &n_run_var, "runVar") : NULL;
  const uint8_t *run_kind = run_var ? stride_typed_array(env, argv[11], napi_uint8_array, &n_run_kind, "runKind") : NULL;
  double *run_count = run_kind ? stride_typed_array(env, argv[12], napi_float64_array, &n_run_count, "runCount") : NULL;
  if (!run_count) return NULL;
  if (from > to || to > n_points || to > n_addresses) return stride_throw(env, "traceAttribute: from..to must lie within the batch");
  /* A point beyond any array is new: the JavaScript side grows them. */
  size_t spans = n_epoch < n_low ? n_epoch : n_low;
  if (n_high < spans) spans = n_high;
  if (n_variable < spans) spans = n_variable;
  size_t runs = n_run_var < n_run_kind ? n_run_var : n_run_kind;
  if (n_run_count < runs) runs = n_run_count;
  if (n_kind < runs) runs = n_kind;
  uint32_t i = from;
  for (; i < to; i++) {
    uint32_t p = points[i];
    double a = addresses[i];
    if (p >= spans || p >= runs || span_epoch[p] != epoch || !(a >= low[p]) || !(a < high[p])) break;
    if (run_var[p] != variable[p] || run_kind[p] != kind_of[p]) break;
    run_count[p] += 1;
  }
  return stride_number(env, i);
}

napi_status stride_register_attribute(napi_env env, napi_value exports) {
  napi_property_descriptor d = {"traceAttribute", NULL, attribute, NULL, NULL, NULL, napi_enumerable, NULL};
  return napi_define_properties(env, exports, 1, &d);
}
