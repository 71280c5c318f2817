/* The data-structure attribution's hot loop (src/main/correlate/correlator.ts attributeBatch):
 * each access of a tracer's batch whose point's remembered span answers it (the address map's
 * span test) and whose point's current run goes on (same variable, same kind) is counted here;
 * the first that is not, stops the loop, and the JavaScript side handles it (a search of the
 * map, a run closed into a histogram) and calls again. Whole-program traces pass every access
 * through this: in JavaScript it cost 17 ns an access.
 * A span from an earlier epoch is still good when none of the changes logged since (the map's
 * last CHANGE_LOG, each with the addresses it touched) touched it: then it is brought up to
 * the current epoch here, as AddressMap.untouched does (a heap-heavy program changes the map
 * every few dozen accesses, mostly far from the spans its loops walk).
 * An access its point's span does not answer is looked up here as AddressMap.resolve would,
 * as far as resolve's first steps go: the map's last answer, then (when no local of the
 * thread's frames can hold the address) its heap blocks. Found, the point's span becomes that
 * range as resolveAt stores it; anything else (a local, a global, another thread's frame, a
 * gap) stops the loop for the JavaScript side. A C++ program's points walk map nodes and
 * strings: a new block at almost every step, 5.5 M of 6.6 M stops of a 24 M-access trace. */
#pragma GCC optimize("strict-aliasing")
#include "../addon.h"
#include <stdlib.h>

/* The loop's arrays are bound once: a call with thirteen arguments cost ~370 ns of
 * Node-API work (each typed array looked up), and on a heap-heavy program (a C++ program's map
 * nodes and strings) the loop stops at most accesses, so that was most of the attribution's
 * time: 14 M calls, 5 s, for 24 M accesses.
 *   traceAttributeBind(binding|null, points, addresses, spanEpoch, spanLow, spanHigh,
 *                      spanVariable, kindOf, runVar, runKind, runCount, changeLow, changeHigh,
 *                      threads, heapStart, heapEnd, heapVariable, state, accessVariable) -> binding
 *   traceAttributeRun(binding, from, to, epoch) -> the index it stopped at
 * The binding holds references to the arrays (they stay alive, and an ArrayBuffer's memory
 * does not move; none of them is ever transferred to another thread, which would detach it);
 * the caller binds again whenever one of them is replaced (grown, or another batch). */
#define ARRAYS 18

/* The slots of the map's state array (MapState in src/main/correlate/address-map.ts). */
enum { HEAP_COUNT, LAST_START, LAST_END, LAST_VARIABLE, FRAMES_LOW, FRAMES_HIGH, THREAD, GLOBALS_LOW, GLOBALS_HIGH, OTHER_FRAMES, STATE_SLOTS = 10 };

/* search(): the loop stops here (JavaScript takes the access). */
#define STOP (-2)

typedef struct {
  StrideHold hold; /* first: stride_binding's */
  const uint32_t *points;
  const double *addresses;
  size_t batch;
  double *span_epoch;
  double *low, *high;
  int32_t *variable;
  size_t spans;
  const uint8_t *kind_of;
  int32_t *run_var;
  uint8_t *run_kind;
  double *run_count;
  size_t runs;
  const double *change_low, *change_high;
  uint64_t log_mask;
  const uint16_t *threads;
  const double *heap_start, *heap_end;
  const int32_t *heap_variable;
  size_t heap;
  double *state;
  /* Each access's variable, by batch index: the column the simulator counts per data
   * structure (src/main/store/chunk-variables.ts). One store per access. */
  int32_t *access_variable;
} AttributeBinding;

static const napi_type_tag BINDING_TAG = {0x5374726964654174ull, 0x7472696275746542ull};

static napi_value bind(napi_env env, napi_callback_info info) {
  napi_value argv[ARRAYS + 1];
  if (!stride_args(env, info, ARRAYS + 1, argv)) return NULL;
  size_t n_points, n_addresses, n_epoch, n_low, n_high, n_variable, n_kind, n_run_var, n_run_kind, n_run_count, n_change_low, n_change_high;
  size_t n_threads, n_heap_start, n_heap_end, n_heap_variable, n_state, n_access_variable;
  const uint32_t *points = stride_typed_array(env, argv[1], napi_uint32_array, &n_points, "points");
  const double *addresses = points ? stride_typed_array(env, argv[2], napi_float64_array, &n_addresses, "addresses") : NULL;
  double *span_epoch = addresses ? stride_typed_array(env, argv[3], napi_float64_array, &n_epoch, "spanEpoch") : NULL;
  double *low = span_epoch ? stride_typed_array(env, argv[4], napi_float64_array, &n_low, "spanLow") : NULL;
  double *high = low ? stride_typed_array(env, argv[5], napi_float64_array, &n_high, "spanHigh") : NULL;
  int32_t *variable = high ? stride_typed_array(env, argv[6], napi_int32_array, &n_variable, "spanVariable") : NULL;
  const uint8_t *kind_of = variable ? stride_typed_array(env, argv[7], napi_uint8_array, &n_kind, "kindOf") : NULL;
  int32_t *run_var = kind_of ? stride_typed_array(env, argv[8], napi_int32_array, &n_run_var, "runVar") : NULL;
  uint8_t *run_kind = run_var ? stride_typed_array(env, argv[9], napi_uint8_array, &n_run_kind, "runKind") : NULL;
  double *run_count = run_kind ? stride_typed_array(env, argv[10], napi_float64_array, &n_run_count, "runCount") : NULL;
  const double *change_low = run_count ? stride_typed_array(env, argv[11], napi_float64_array, &n_change_low, "changeLow") : NULL;
  const double *change_high = change_low ? stride_typed_array(env, argv[12], napi_float64_array, &n_change_high, "changeHigh") : NULL;
  const uint16_t *threads = change_high ? stride_typed_array(env, argv[13], napi_uint16_array, &n_threads, "threads") : NULL;
  const double *heap_start = threads ? stride_typed_array(env, argv[14], napi_float64_array, &n_heap_start, "heapStart") : NULL;
  const double *heap_end = heap_start ? stride_typed_array(env, argv[15], napi_float64_array, &n_heap_end, "heapEnd") : NULL;
  const int32_t *heap_variable = heap_end ? stride_typed_array(env, argv[16], napi_int32_array, &n_heap_variable, "heapVariable") : NULL;
  double *state = heap_variable ? stride_typed_array(env, argv[17], napi_float64_array, &n_state, "state") : NULL;
  int32_t *access_variable = state ? stride_typed_array(env, argv[18], napi_int32_array, &n_access_variable, "accessVariable") : NULL;
  if (!access_variable) return NULL;
  if (n_state < STATE_SLOTS) return stride_throw(env, "traceAttributeBind: the map's state must have 10 slots");
  if (n_change_low != n_change_high || n_change_low == 0 || (n_change_low & (n_change_low - 1)) != 0)
    return stride_throw(env, "traceAttributeBind: changeLow and changeHigh must be of one power-of-two length");
  napi_value out;
  AttributeBinding *b = stride_binding(env, argv[0], sizeof *b, &BINDING_TAG, "an attribution binding", &out);
  if (!b || !stride_hold(env, &b->hold, argv + 1, ARRAYS, "the attribution's arrays")) return NULL;
  b->points = points;
  b->addresses = addresses;
  b->batch = n_points < n_addresses ? n_points : n_addresses;
  if (n_threads < b->batch) b->batch = n_threads;
  if (n_access_variable < b->batch) b->batch = n_access_variable;
  b->access_variable = access_variable;
  b->span_epoch = span_epoch;
  b->low = low;
  b->high = high;
  b->variable = variable;
  /* A point beyond any array is new: the JavaScript side grows them (and binds again). */
  size_t spans = n_epoch < n_low ? n_epoch : n_low;
  if (n_high < spans) spans = n_high;
  if (n_variable < spans) spans = n_variable;
  b->spans = spans;
  b->kind_of = kind_of;
  b->run_var = run_var;
  b->run_kind = run_kind;
  b->run_count = run_count;
  size_t runs = n_run_var < n_run_kind ? n_run_var : n_run_kind;
  if (n_run_count < runs) runs = n_run_count;
  if (n_kind < runs) runs = n_kind;
  b->runs = runs;
  b->change_low = change_low;
  b->change_high = change_high;
  b->log_mask = n_change_low - 1;
  b->threads = threads;
  b->heap_start = heap_start;
  b->heap_end = heap_end;
  b->heap_variable = heap_variable;
  size_t heap = n_heap_start < n_heap_end ? n_heap_start : n_heap_end;
  b->heap = n_heap_variable < heap ? n_heap_variable : heap;
  b->state = state;
  return out;
}

/* AddressMap.untouched: the point's span, from an earlier epoch, against the changes since. */
static bool untouched(AttributeBinding *b, uint32_t p, double epoch) {
  double from = b->span_epoch[p];
  if (from == 0 || !(epoch - from <= (double)b->log_mask)) return false;
  double low = b->low[p], high = b->high[p];
  for (uint64_t e = (uint64_t)from + 1; e <= (uint64_t)epoch; e++) {
    uint64_t k = e & b->log_mask;
    if (low < b->change_high[k] && b->change_low[k] < high) return false;
  }
  b->span_epoch[p] = epoch;
  return true;
}

/* AddressMap.resolve for point p's access at `a` in `thread`, as far as it goes here, and
 * resolveAt's span: the answer's variable, or STOP where a later step would be needed
 * (JavaScript takes it from there). The map's last answer, then (when no local of the thread's
 * frames can hold the address) its heap blocks; found, the point's span becomes that range as
 * resolveAt stores it. Else, when no global can hold the address either (outside their hull)
 * and no other thread has frames, it is in no range: unknown, as resolve() would answer, with
 * the point's span left as it was (resolveAt would store the gap around it, a cache only). A
 * C++ program's whole-program trace met such addresses (its untracked stack slots: spills,
 * return addresses, library frames) at 42 M of its 57 M stops. */
static int32_t search(AttributeBinding *b, uint32_t p, double a, uint16_t thread, double epoch) {
  double *st = b->state;
  if (a != a || (double)thread != st[THREAD]) return STOP;
  double low, high;
  int32_t v;
  if (a >= st[LAST_START] && a < st[LAST_END]) {
    low = st[LAST_START], high = st[LAST_END];
    v = (int32_t)st[LAST_VARIABLE];
  } else {
    /* resolve() looks in the thread's frames before the heap. */
    if (a >= st[FRAMES_LOW] && a < st[FRAMES_HIGH]) return STOP;
    double count = st[HEAP_COUNT];
    if (!(count >= 0 && count <= (double)b->heap)) return STOP;
    const double *start = b->heap_start, *end = b->heap_end;
    size_t lo = 0, hi = (size_t)count;
    while (lo < hi) { /* the first block whose end is above a */
      size_t mid = (lo + hi) >> 1;
      if (end[mid] <= a) lo = mid + 1;
      else hi = mid;
    }
    if (lo == (size_t)count || !(start[lo] <= a)) {
      /* In no block: then the globals, then other threads' frames, else unknown. */
      if ((a >= st[GLOBALS_LOW] && a < st[GLOBALS_HIGH]) || st[OTHER_FRAMES] != 0) return STOP;
      return 0;
    }
    low = start[lo], high = end[lo];
    v = b->heap_variable[lo];
    st[LAST_START] = low, st[LAST_END] = high, st[LAST_VARIABLE] = v;
  }
  /* UNKNOWN_VARIABLE: resolveAt would look for a gap instead. */
  if (v == 0) return STOP;
  b->span_epoch[p] = epoch;
  b->low[p] = low;
  b->high[p] = high;
  b->variable[p] = v;
  return v;
}

static napi_value run(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  uint32_t from, to;
  double epoch;
  if (!stride_args(env, info, 4, argv)) return NULL;
  AttributeBinding *b = stride_unwrap(env, argv[0], &BINDING_TAG, "an attribution binding");
  if (!b || !stride_u32(env, argv[1], &from, "from") || !stride_u32(env, argv[2], &to, "to")) return NULL;
  if (napi_get_value_double(env, argv[3], &epoch) != napi_ok) return stride_throw(env, "traceAttributeRun: epoch must be a number");
  if (!b->hold.held) return stride_throw(env, "traceAttributeRun: nothing is bound");
  if (from > to || to > b->batch) return stride_throw(env, "traceAttributeRun: from..to must lie within the batch");
  uint32_t i = from;
  const size_t spans = b->spans, runs = b->runs;
  for (; i < to; i++) {
    uint32_t p = b->points[i];
    double a = b->addresses[i];
    if (p >= spans || p >= runs) break;
    int32_t v;
    if (a >= b->low[p] && a < b->high[p] && (b->span_epoch[p] == epoch || untouched(b, p, epoch)))
      v = b->variable[p];
    else if ((v = search(b, p, a, b->threads[i], epoch)) == STOP)
      break;
    if (b->run_var[p] != v || b->run_kind[p] != b->kind_of[p]) break;
    b->run_count[p] += 1;
    b->access_variable[i] = v;
  }
  return stride_number(env, i);
}

napi_status stride_register_attribute(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"traceAttributeBind", NULL, bind, NULL, NULL, NULL, napi_enumerable, NULL},
      {"traceAttributeRun", NULL, run, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, 2, d);
}
