/* The trace's hot loop: the access records of Stride's Valgrind tool (format 2, 16 bytes
 * {u64 address; u32 point; u16 size; u16 thread}, see resources/native/valgrind-tool/README.md)
 * go from the reader's staging buffer into the tracer's batch arrays, tool point ids mapped to
 * session points and each point's accesses counted, so no JavaScript runs per access.
 * A scan stops before a control record, before an access whose tool point is undefined or has no
 * session point yet (the tracer's own path handles those, in order), at `end`, or when the
 * batch holds outCap accesses; every record it passed is in the batch at outAt, outAt + 1, ...
 * With a simulator batch bound (a function-scoped trace with whole-program context), every
 * access also goes there, and so does every context record (format 3, kinds 16..31: an access
 * of the rest of the program), as the point SIM_CONTEXT | its flags (sim/context.h), in stream
 * order; the scan also stops when that batch is full. Without one, context records are skipped.
 * With a frame filter bound, a function's entry or return that changes no frame the naming keeps
 * is passed over here too: an entry of a function without kept locals, a return that pops no
 * kept frame of its thread. The rest stop the scan as before. A whole-program-context trace of
 * lua met 8 M of those, each a stop, a JavaScript call and back. */
#pragma GCC optimize("strict-aliasing")
#include "../addon.h"
#include "../sim/context.h"
#include <stdlib.h>
#include <string.h>

#define RECORD 16
#define CONTROL 0xffff0000u
/* A context record's tag: CONTROL | (16 + flags) << 8, no slots. */
#define CONTEXT_MASK 0xfffff0ffu
#define CONTEXT_TAG (CONTROL | 16u << 8)

/* The simulator's batch (NULL points: none): its used count and capacity live in state[0..1];
 * state[2] gets the batch index after the last access copied (context records passed over
 * make the byte offset no measure of it). */
typedef struct {
  uint32_t *points;
  double *addresses;
  uint16_t *sizes;
  uint32_t *state;
  size_t len; /* the shortest of the three arrays */
} SimOut;

/* The frames the naming keeps (NULL top: no filter, every entry and return stops the scan):
 * the entries of functions with kept locals, ascending, and per thread id the CFA of its
 * innermost kept frame (+Infinity: none). Correlator.frameFilter keeps both current. */
typedef struct {
  const double *entries;
  size_t n_entries;
  const double *top;
  size_t n_top;
} FrameFilter;

#define KIND_ENTER 3 /* st_protocol.h ST_ENTER: a = entry, one slot {sp at entry, 0} */
#define KIND_LEAVE 4 /* ST_LEAVE: a = sp after the return, no slot */

static inline double record_address(const uint8_t *r) {
  uint32_t lo, hi;
  memcpy(&lo, r, 4);
  memcpy(&hi, r + 4, 4);
  return (double)hi * 4294967296.0 + (double)lo;
}

static bool kept_entry(const FrameFilter *f, double entry) {
  size_t lo = 0, hi = f->n_entries;
  while (lo < hi) {
    size_t mid = (lo + hi) >> 1;
    if (f->entries[mid] < entry) lo = mid + 1;
    else hi = mid;
  }
  return lo < f->n_entries && f->entries[lo] == entry;
}

/* The bytes of the frame record at `r` the scan may pass over, or 0 (it stops there): an entry
 * the naming keeps no frame for, or a return below its thread's innermost kept frame (leaveTo
 * pops frames whose CFA is at or below the sp). */
static uint32_t passable_frame_record(const FrameFilter *f, const uint8_t *r, uint32_t tag, uint32_t left) {
  uint32_t kind = (tag >> 8) & 0xff, extra = tag & 0xff;
  if (kind == KIND_ENTER && extra == 1 && left >= 2 * RECORD) return kept_entry(f, record_address(r)) ? 0 : 2 * RECORD;
  if (kind == KIND_LEAVE && extra == 0) {
    uint16_t thread;
    memcpy(&thread, r + 14, 2);
    return thread < f->n_top && f->top[thread] > record_address(r) ? RECORD : 0;
  }
  return 0;
}

/* The copy itself, over checked arrays. */
static uint32_t scan_records(const uint8_t *stage, uint32_t at, uint32_t end, const int32_t *tool_points, size_t n_tool, uint32_t defined, uint32_t *points,
                             double *addresses, uint16_t *sizes, uint16_t *threads, uint32_t o, uint32_t out_cap, double *counts, size_t n_counts, SimOut sim,
                             const FrameFilter *frames) {
  uint32_t so = sim.points ? sim.state[0] : 0, s_cap = sim.points ? sim.state[1] : 0;
  while (end - at >= RECORD && o < out_cap) {
    const uint8_t *r = stage + at;
    uint32_t lo, hi, tag;
    uint16_t size, thread;
    memcpy(&tag, r + 8, 4);
    if ((tag & CONTEXT_MASK) == CONTEXT_TAG) {
      if (sim.points) {
        if (so == s_cap) break;
        memcpy(&lo, r, 4);
        memcpy(&hi, r + 4, 4);
        memcpy(&size, r + 12, 2);
        sim.points[so] = SIM_CONTEXT | ((tag >> 8) & 15);
        sim.addresses[so] = (double)hi * 4294967296.0 + (double)lo;
        sim.sizes[so] = size;
        so++;
      }
      at += RECORD;
      continue;
    }
    if (tag >= CONTROL) {
      uint32_t pass = frames->top ? passable_frame_record(frames, r, tag, end - at) : 0;
      if (pass == 0) break;
      at += pass;
      continue;
    }
    if (tag >= defined || tag >= n_tool) break;
    if (sim.points && so == s_cap) break;
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
    if (sim.points) {
      sim.points[so] = (uint32_t)p;
      sim.addresses[so] = addresses[o];
      sim.sizes[so] = size;
      so++;
    }
    o++;
    at += RECORD;
  }
  if (sim.points) sim.state[0] = so;
  sim.state[2] = o;
  return at;
}

/* The scan with its seven arrays bound once: a C++ program's trace calls it once per run
 * of accesses between two control records (a call, a return, a malloc), millions of times, and
 * looking up twelve arguments cost most of each call (jsoncpp: 2.8 s of its trace worker).
 *   traceScanBind(binding|null, stage, toolPoints, points, addresses, sizes, threads, counts,
 *     (the simulator's batch: empty arrays for none; simState = [used, capacity, outEnd], used
 *     and outEnd updated by each run)
 *                 simPoints, simAddresses, simSizes, simState, args,
 *     (the frame filter: Float64Arrays, both empty for none)
 *                 frameEntries, frameTop) -> binding
 *   traceScanRun(binding): reads args = Uint32Array [from, end, defined, outAt, outCap, stop]
 *     and writes the byte offset it stopped at into stop. The numbers go through a bound array:
 *     with whole-program context a trace scans once per run between two calls or returns
 *     (lua: 8 M runs), and converting five arguments and a result was most of a short run's call.
 * The binding holds references to the arrays (their memory does not move while held); the
 * caller binds again whenever one of them is replaced (grown, or another batch). */
#define SCAN_ARRAYS 14
enum { ARG_FROM, ARG_END, ARG_DEFINED, ARG_OUT_AT, ARG_OUT_CAP, ARG_STOP, SCAN_ARGS };

typedef struct {
  StrideHold hold; /* first: stride_binding's */
  const uint8_t *stage;
  size_t n_stage;
  const int32_t *tool_points;
  size_t n_tool;
  uint32_t *points;
  double *addresses;
  uint16_t *sizes, *threads;
  size_t batch;
  double *counts;
  size_t n_counts;
  SimOut sim;
  uint32_t *args;
  FrameFilter frames;
} ScanBinding;

static const napi_type_tag SCAN_TAG = {0x5374726964655363ull, 0x616e42696e643031ull};

static napi_value scan_bind(napi_env env, napi_callback_info info) {
  napi_value argv[SCAN_ARRAYS + 1];
  if (!stride_args(env, info, SCAN_ARRAYS + 1, argv)) return NULL;
  size_t n_stage, n_tool, n_points, n_addresses, n_sizes, n_threads, n_counts;
  const uint8_t *stage = stride_typed_array(env, argv[1], napi_uint8_array, &n_stage, "stage");
  const int32_t *tool_points = stage ? stride_typed_array(env, argv[2], napi_int32_array, &n_tool, "toolPoints") : NULL;
  uint32_t *points = tool_points ? stride_typed_array(env, argv[3], napi_uint32_array, &n_points, "points") : NULL;
  double *addresses = points ? stride_typed_array(env, argv[4], napi_float64_array, &n_addresses, "addresses") : NULL;
  uint16_t *sizes = addresses ? stride_typed_array(env, argv[5], napi_uint16_array, &n_sizes, "sizes") : NULL;
  uint16_t *threads = sizes ? stride_typed_array(env, argv[6], napi_uint16_array, &n_threads, "threads") : NULL;
  double *counts = threads ? stride_typed_array(env, argv[7], napi_float64_array, &n_counts, "counts") : NULL;
  size_t ns_points, ns_addresses, ns_sizes, ns_state;
  uint32_t *s_points = counts ? stride_typed_array(env, argv[8], napi_uint32_array, &ns_points, "simPoints") : NULL;
  double *s_addresses = s_points ? stride_typed_array(env, argv[9], napi_float64_array, &ns_addresses, "simAddresses") : NULL;
  uint16_t *s_sizes = s_addresses ? stride_typed_array(env, argv[10], napi_uint16_array, &ns_sizes, "simSizes") : NULL;
  uint32_t *s_state = s_sizes ? stride_typed_array(env, argv[11], napi_uint32_array, &ns_state, "simState") : NULL;
  size_t n_args;
  uint32_t *args = s_state ? stride_typed_array(env, argv[12], napi_uint32_array, &n_args, "args") : NULL;
  size_t n_entries, n_top;
  const double *entries = args ? stride_typed_array(env, argv[13], napi_float64_array, &n_entries, "frameEntries") : NULL;
  const double *top = entries ? stride_typed_array(env, argv[14], napi_float64_array, &n_top, "frameTop") : NULL;
  if (!top) return NULL;
  for (size_t k = 1; k < n_entries; k++)
    if (!(entries[k - 1] < entries[k])) return stride_throw(env, "traceScanBind: frameEntries must be ascending");
  if (n_args < SCAN_ARGS) return stride_throw(env, "traceScanBind: args needs six slots");
  if (ns_state < 3) return stride_throw(env, "traceScanBind: simState needs three slots");
  SimOut sim = {NULL, NULL, NULL, s_state, 0};
  if (ns_points > 0) {
    if ( s_state[1] > ns_points || s_state[1] > ns_addresses || s_state[1] > ns_sizes || s_state[0] > s_state[1])
      return stride_throw(env, "traceScanBind: the simulator batch is shorter than its capacity");
    size_t len = ns_points < ns_addresses ? ns_points : ns_addresses;
    sim = (SimOut){s_points, s_addresses, s_sizes, s_state, len < ns_sizes ? len : ns_sizes};
  }
  napi_value out;
  ScanBinding *b = stride_binding(env, argv[0], sizeof *b, &SCAN_TAG, "a scan binding", &out);
  if (!b || !stride_hold(env, &b->hold, argv + 1, SCAN_ARRAYS, "the scan's arrays")) return NULL;
  b->stage = stage, b->n_stage = n_stage;
  b->tool_points = tool_points, b->n_tool = n_tool;
  b->points = points, b->addresses = addresses, b->sizes = sizes, b->threads = threads;
  size_t batch = n_points < n_addresses ? n_points : n_addresses;
  if (n_sizes < batch) batch = n_sizes;
  if (n_threads < batch) batch = n_threads;
  b->batch = batch;
  b->counts = counts, b->n_counts = n_counts;
  b->sim = sim;
  b->args = args;
  b->frames = n_top > 0 ? (FrameFilter){entries, n_entries, top, n_top} : (FrameFilter){NULL, 0, NULL, 0};
  return out;
}

static napi_value scan_run(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 1) return stride_throw(env, "traceScanRun: give the binding");
  ScanBinding *b = stride_unwrap(env, argv[0], &SCAN_TAG, "a scan binding");
  if (!b) return NULL;
  if (!b->hold.held) return stride_throw(env, "traceScanRun: nothing is bound");
  uint32_t *a = b->args;
  uint32_t from = a[ARG_FROM], end = a[ARG_END], out_at = a[ARG_OUT_AT], out_cap = a[ARG_OUT_CAP];
  if (from % RECORD || from > end || end > b->n_stage) return stride_throw(env, "traceScan: from and end must be record offsets within the stage");
  if (out_at > out_cap || out_cap > b->batch) return stride_throw(env, "traceScan: the batch arrays are shorter than outCap");
  if (b->sim.points && (b->sim.state[0] > b->sim.state[1] || b->sim.state[1] > b->sim.len)) return stride_throw(env, "traceScan: the simulator batch's count is past its capacity");
  a[ARG_STOP] = scan_records(b->stage, from, end, b->tool_points, b->n_tool, a[ARG_DEFINED], b->points, b->addresses, b->sizes, b->threads, out_at, out_cap, b->counts, b->n_counts, b->sim, &b->frames);
  return NULL;
}

napi_status stride_register_trace(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"traceScanBind", NULL, scan_bind, NULL, NULL, NULL, napi_enumerable, NULL},
      {"traceScanRun", NULL, scan_run, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof d / sizeof d[0], d);
}
