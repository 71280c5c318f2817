/* The trace's hot loop: the access records of Stride's Valgrind tool (format 2, 16 bytes
 * {u64 address; u32 point; u16 size; u16 thread}, see resources/native/valgrind-tool/README.md)
 * go from the reader's staging buffer into the tracer's batch arrays, tool point ids mapped to
 * session points and each point's accesses counted, so no JavaScript runs per access.
 *   traceScan(stage u8, from, end, toolPoints i32, defined, points u32, addresses f64,
 *             sizes u16, threads u16, outAt, outCap, counts f64) -> the byte offset it stopped at
 * It stops before a control record, before an access whose tool point is undefined or has no
 * session point yet (the tracer's own path handles those, in order), at `end`, or when the
 * batch holds outCap accesses; every record it passed is in the batch at outAt, outAt + 1, ... */
#pragma GCC optimize("strict-aliasing")
#include "../addon.h"
#include <string.h>

#define RECORD 16
#define CONTROL 0xffff0000u

static napi_value scan(napi_env env, napi_callback_info info) {
  napi_value argv[12];
  uint32_t from, end, defined, out_at, out_cap;
  size_t n_stage, n_tool, n_points, n_addresses, n_sizes, n_threads, n_counts;
  if (!stride_args(env, info, 12, argv)) return NULL;
  const uint8_t *stage = stride_typed_array(env, argv[0], napi_uint8_array, &n_stage, "stage");
  if (!stage || !stride_u32(env, argv[1], &from, "from") || !stride_u32(env, argv[2], &end, "end")) return NULL;
  const int32_t *tool_points = stride_typed_array(env, argv[3], napi_int32_array, &n_tool, "toolPoints");
  if (!tool_points || !stride_u32(env, argv[4], &defined, "defined")) return NULL;
  uint32_t *points = stride_typed_array(env, argv[5], napi_uint32_array, &n_points, "points");
  double *addresses = points ? stride_typed_array(env, argv[6], napi_float64_array, &n_addresses, "addresses") : NULL;
  uint16_t *sizes = addresses ? stride_typed_array(env, argv[7], napi_uint16_array, &n_sizes, "sizes") : NULL;
  uint16_t *threads = sizes ? stride_typed_array(env, argv[8], napi_uint16_array, &n_threads, "threads") : NULL;
  if (!threads || !stride_u32(env, argv[9], &out_at, "outAt") || !stride_u32(env, argv[10], &out_cap, "outCap")) return NULL;
  double *counts = stride_typed_array(env, argv[11], napi_float64_array, &n_counts, "counts");
  if (!counts) return NULL;
  if (from % RECORD || from > end || end > n_stage) return stride_throw(env, "traceScan: from and end must be record offsets within the stage");
  if (out_at > out_cap || out_cap > n_points || out_cap > n_addresses || out_cap > n_sizes || out_cap > n_threads)
    return stride_throw(env, "traceScan: the batch arrays are shorter than outCap");
  uint32_t at = from, o = out_at;
  while (end - at >= RECORD && o < out_cap) {
    const uint8_t *r = stage + at;
    uint32_t lo, hi, tag;
    uint16_t size, thread;
    memcpy(&tag, r + 8, 4);
    if (tag >= CONTROL || tag >= defined || tag >= n_tool) break;
    int32_t p = tool_points[tag];
    if (p < 0 || (size_t)p >= n_counts) break;
    memcpy(&lo, r, 4);
    memcpy(&hi, r + 4, 4);
    memcpy(&size, r + 12, 2);
    memcpy(&thread, r + 14, 2);
    points[o] = (uint32_t)p;
    /* As the JavaScript reader computes it (hi * 2^32 + lo in doubles): the same number. */
    addresses[o] = (double)hi * 4294967296.0 + (double)lo;
    sizes[o] = size;
    threads[o] = thread;
    counts[p] += 1;
    o++;
    at += RECORD;
  }
  return stride_number(env, at);
}

napi_status stride_register_trace(napi_env env, napi_value exports) {
  napi_property_descriptor d = {"traceScan", NULL, scan, NULL, NULL, NULL, napi_enumerable, NULL};
  return napi_define_properties(env, exports, 1, &d);
}
