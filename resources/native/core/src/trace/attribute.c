/* The data-structure attribution's hot loop (src/main/correlate/correlator.ts attributeBatch):
 * each access of a tracer's batch whose point's remembered span answers it (the address map's
 * span test) is counted here into its point's current run; a run that ends (another variable
 * or kind) is closed into the point's counts (PointCounts) and the next begun, as
 * Correlator.count does. The first access the loop cannot answer stops it, and the JavaScript
 * side handles it (a search of the map, a point's first access) and calls again. Whole-program
 * traces pass every access through this: in JavaScript it cost 17 ns an access.
 * A span from an earlier epoch is still good when none of the changes logged since (the map's
 * last CHANGE_LOG, each with the addresses it touched) touched it: then it is brought up to
 * the current epoch here, as AddressMap.untouched does (a heap-heavy program changes the map
 * every few dozen accesses, mostly far from the spans its loops walk).
 * An access its point's span does not answer is looked up here as AddressMap.resolve would,
 * as far as resolve's first steps go: the map's last answer, the locals of the thread's
 * frames, its heap blocks, then, in none of them and where no global and no other thread's
 * frame can hold it, unknown with the gap around it. Found, the point's span becomes that
 * range or gap as resolveAt stores it; anything else (a global, another thread's frame) stops
 * the loop for the JavaScript side. A C++ program's points walk map nodes and strings (a new
 * block at almost every step, and a run that ends at almost every one) and the stack slots of
 * untraced functions between its traced frames' locals: jsoncpp's 16.7 M stops were 7 M runs
 * that ended and 8 M addresses inside the frames' hull. */
#pragma GCC optimize("strict-aliasing")
#include "../addon.h"
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* The loop's arrays are bound once: a call with thirteen arguments cost ~370 ns of
 * Node-API work (each typed array looked up), and on a heap-heavy program (a C++ program's map
 * nodes and strings) the loop stops at most accesses, so that was most of the attribution's
 * time: 14 M calls, 5 s, for 24 M accesses.
 *   traceAttributeBind(binding|null, points, addresses, spanEpoch, spanLow, spanHigh,
 *                      spanVariable, kindOf, runVar, runKind, runCount, changeLow, changeHigh,
 *                      threads, heapStart, heapEnd, heapVariable, state, accessVariable,
 *                      countSlots, countPoint, countVariable, countKind, countCount, countUsed,
 *                      frames, locals) -> binding
 *   traceAttributeRun(binding, from, to, epoch) -> the index it stopped at
 * The binding holds references to the arrays (they stay alive, and an ArrayBuffer's memory
 * does not move; none of them is ever transferred to another thread, which would detach it);
 * the caller binds again whenever one of them is replaced (grown, or another batch). */
#define ARRAYS 26

/* The slots of the map's state array (MapState in src/main/correlate/address-map.ts). */
enum { HEAP_COUNT, LAST_START, LAST_END, LAST_VARIABLE, FRAMES_LOW, FRAMES_HIGH, THREAD, GLOBALS_LOW, GLOBALS_HIGH, OTHER_FRAMES, FRAMES_DEPTH, STATE_SLOTS = 11 };
/* A row of the thread's frames and of their locals (FrameTable and LocalTable there). */
enum { FRAME_LOW, FRAME_HIGH, FRAME_OWN_LOW, FRAME_OWN_HIGH, FRAME_FIRST, FRAME_COUNT, FRAME_FIELDS };
enum { LOCAL_START, LOCAL_END, LOCAL_VARIABLE, LOCAL_FIELDS };

/* search(): the loop stops here (JavaScript takes the access). */
#define STOP (-2)
/* HeapBlocks.TOMB: a freed block's slot. */
#define TOMB (-1)

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
  /* The closed runs' counts (src/main/correlate/point-counts.ts PointCounts): slot -> cell + 1,
   * the cells, and how many are in use. */
  int32_t *count_slots;
  uint32_t count_mask, count_shift;
  uint32_t *count_point;
  int32_t *count_variable;
  uint8_t *count_kind;
  double *count_count;
  double *count_used;
  size_t count_cells;
  /* The current thread's frames, outermost first (state[FRAMES_DEPTH] of them), and their locals. */
  const double *frames, *locals;
  size_t frame_rows, local_rows;
} AttributeBinding;

static const napi_type_tag BINDING_TAG = {0x5374726964654174ull, 0x7472696275746542ull};

static napi_value bind(napi_env env, napi_callback_info info) {
  napi_value argv[ARRAYS + 1];
  if (!stride_args(env, info, ARRAYS + 1, argv)) return NULL;
  size_t n_points, n_addresses, n_epoch, n_low, n_high, n_variable, n_kind, n_run_var, n_run_kind, n_run_count, n_change_low, n_change_high;
  size_t n_threads, n_heap_start, n_heap_end, n_heap_variable, n_state, n_access_variable;
  size_t n_slots, n_count_point, n_count_variable, n_count_kind, n_count_count, n_count_used, n_frames, n_locals;
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
  int32_t *count_slots = access_variable ? stride_typed_array(env, argv[19], napi_int32_array, &n_slots, "countSlots") : NULL;
  uint32_t *count_point = count_slots ? stride_typed_array(env, argv[20], napi_uint32_array, &n_count_point, "countPoint") : NULL;
  int32_t *count_variable = count_point ? stride_typed_array(env, argv[21], napi_int32_array, &n_count_variable, "countVariable") : NULL;
  uint8_t *count_kind = count_variable ? stride_typed_array(env, argv[22], napi_uint8_array, &n_count_kind, "countKind") : NULL;
  double *count_count = count_kind ? stride_typed_array(env, argv[23], napi_float64_array, &n_count_count, "countCount") : NULL;
  double *count_used = count_count ? stride_typed_array(env, argv[24], napi_float64_array, &n_count_used, "countUsed") : NULL;
  const double *frames = count_used ? stride_typed_array(env, argv[25], napi_float64_array, &n_frames, "frames") : NULL;
  const double *locals = frames ? stride_typed_array(env, argv[26], napi_float64_array, &n_locals, "locals") : NULL;
  if (!locals) return NULL;
  if (n_state < STATE_SLOTS) return stride_throw(env, "traceAttributeBind: the map's state must have 11 slots");
  if (n_change_low != n_change_high || n_change_low == 0 || (n_change_low & (n_change_low - 1)) != 0)
    return stride_throw(env, "traceAttributeBind: changeLow and changeHigh must be of one power-of-two length");
  if (n_slots < 2 || n_slots > ((size_t)1 << 31) || (n_slots & (n_slots - 1)) != 0 || n_count_used < 1)
    return stride_throw(env, "traceAttributeBind: countSlots must be of a power-of-two length, countUsed of one");
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
  b->count_slots = count_slots;
  b->count_mask = (uint32_t)(n_slots - 1);
  b->count_shift = 32 - (uint32_t)__builtin_ctzll(n_slots);
  b->count_point = count_point;
  b->count_variable = count_variable;
  b->count_kind = count_kind;
  b->count_count = count_count;
  b->count_used = count_used;
  /* At most half the slots hold a cell: a probe always meets an empty one. */
  size_t cells = n_slots / 2;
  if (n_count_point < cells) cells = n_count_point;
  if (n_count_variable < cells) cells = n_count_variable;
  if (n_count_kind < cells) cells = n_count_kind;
  if (n_count_count < cells) cells = n_count_count;
  b->count_cells = cells;
  b->frames = frames;
  b->locals = locals;
  b->frame_rows = n_frames / FRAME_FIELDS;
  b->local_rows = n_locals / LOCAL_FIELDS;
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

/* Frame f's locals (LocalTable rows), or NULL when the table does not hold them. */
static const double *frame_locals(AttributeBinding *b, const double *f) {
  double first = f[FRAME_FIRST], count = f[FRAME_COUNT];
  if (!(first >= 0 && count >= 0 && first + count <= (double)b->local_rows)) return NULL;
  return b->locals + (size_t)first * LOCAL_FIELDS;
}

/* resolve()'s walk of the thread's frames, innermost first (outside a frame's hull, over the
 * frames below it too, none holds `a`), each one's locals searched as findIn does: 1 with the
 * local's range and variable, 0 when none holds `a`, -1 when the table cannot say. */
static int find_local(AttributeBinding *b, double a, double *low, double *high, int32_t *v) {
  double depth = b->state[FRAMES_DEPTH];
  if (!(depth >= 0 && depth <= (double)b->frame_rows)) return -1;
  for (size_t d = (size_t)depth; d-- > 0;) {
    const double *f = b->frames + d * FRAME_FIELDS;
    if (a < f[FRAME_LOW] || a >= f[FRAME_HIGH]) break;
    const double *l = frame_locals(b, f);
    if (!l) return -1;
    ptrdiff_t lo = 0, hi = (ptrdiff_t)f[FRAME_COUNT] - 1;
    while (lo <= hi) {
      ptrdiff_t mid = (lo + hi) >> 1;
      const double *r = l + mid * LOCAL_FIELDS;
      if (a < r[LOCAL_START]) hi = mid - 1;
      else if (a >= r[LOCAL_END]) lo = mid + 1;
      else {
        *low = r[LOCAL_START], *high = r[LOCAL_END], *v = (int32_t)r[LOCAL_VARIABLE];
        return 1;
      }
    }
  }
  return 0;
}

/* AddressMap.gapAround for an unknown address `a` that lies in no heap block, in no local of
 * the current thread's frames and outside the globals' hull, with no other thread's frames;
 * `lo` is the first slot whose end is above it. Stored as point p's span when it holds `a`, as
 * resolveAt stores it: the point's next accesses to untracked memory (a C++ program's stack
 * slots of untraced functions) are then answered by the span, until a change touches it (the
 * next traced frame, mostly: jsoncpp's 83 M searches for such addresses became 44 M). The
 * same bounds as gapAround, step by step. */
static void gap(AttributeBinding *b, uint32_t p, double a, size_t lo, size_t count, double epoch) {
  const double *st = b->state, *start = b->heap_start, *end = b->heap_end;
  const int32_t *variable = b->heap_variable;
  double low = -INFINITY, high = INFINITY;
  /* HeapBlocks.insertionPoint(a + 1): every slot before lo ends (so starts) at or below a. */
  size_t h = lo;
  while (h < count && start[h] < a + 1) h++;
  /* nextLive(h) and previousLive(h - 1): past 8 tombstones, the last one's place bounds the gap. */
  size_t next = h;
  for (int n = 0; next + 1 < count && variable[next] == TOMB && n < 8; n++) next++;
  if (next < count && !(variable[next] == TOMB && next == count - 1)) high = start[next];
  ptrdiff_t previous = (ptrdiff_t)h - 1;
  for (int n = 0; previous > 0 && variable[previous] == TOMB && n < 8; n++) previous--;
  if (previous > 0 || (previous == 0 && variable[0] != TOMB)) low = end[previous];
  /* Outside the globals' hull: below it the first global's start bounds the gap (when it is at
   * or above a + 1, as insertionPoint finds it), above it the furthest end. */
  if (a < st[GLOBALS_LOW]) {
    if (!(st[GLOBALS_LOW] >= a + 1)) return;
    if (st[GLOBALS_LOW] < high) high = st[GLOBALS_LOW];
  } else if (st[GLOBALS_HIGH] > low)
    low = st[GLOBALS_HIGH];
  /* The thread's frames, innermost first: outside a frame's hull (over the frames below it too)
   * that hull bounds the gap and ends the walk; inside it, the frame's own hull, or inside that
   * each of its locals (scopes may share a slot: all of them). */
  double depth = st[FRAMES_DEPTH];
  if (!(depth >= 0 && depth <= (double)b->frame_rows)) return;
  for (size_t d = (size_t)depth; d-- > 0;) {
    const double *f = b->frames + d * FRAME_FIELDS;
    if (a < f[FRAME_LOW]) {
      if (f[FRAME_LOW] < high) high = f[FRAME_LOW];
      break;
    }
    if (a >= f[FRAME_HIGH]) {
      if (f[FRAME_HIGH] > low) low = f[FRAME_HIGH];
      break;
    }
    if (a < f[FRAME_OWN_LOW]) {
      if (f[FRAME_OWN_LOW] < high) high = f[FRAME_OWN_LOW];
    } else if (a >= f[FRAME_OWN_HIGH]) {
      if (f[FRAME_OWN_HIGH] > low) low = f[FRAME_OWN_HIGH];
    } else {
      const double *l = frame_locals(b, f);
      if (!l) return;
      for (size_t k = 0; k < (size_t)f[FRAME_COUNT]; k++, l += LOCAL_FIELDS)
        if (l[LOCAL_START] > a) {
          if (l[LOCAL_START] < high) high = l[LOCAL_START];
        } else if (l[LOCAL_END] > low)
          low = l[LOCAL_END];
    }
  }
  if (!(low <= a && a < high)) return;
  b->span_epoch[p] = epoch;
  b->low[p] = low;
  b->high[p] = high;
  b->variable[p] = 0;
}

/* AddressMap.resolve for point p's access at `a` in `thread`, as far as it goes here, and
 * resolveAt's span: the answer's variable, or STOP where a later step would be needed
 * (JavaScript takes it from there). The map's last answer, then the locals of the thread's
 * frames, then its heap blocks; found, the point's span becomes that range as resolveAt
 * stores it. Else, when no global can hold the address either (outside their hull)
 * and no other thread has frames, it is in no range: unknown, as resolve() would answer, and
 * the gap around it the point's span (gap()). A C++ program's whole-program trace met such
 * addresses (its untracked stack slots: spills, return addresses, library frames) at 42 M of
 * its 57 M stops. */
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
    int in_frame = a >= st[FRAMES_LOW] && a < st[FRAMES_HIGH] ? find_local(b, a, &low, &high, &v) : 0;
    if (in_frame < 0) return STOP;
    if (!in_frame) {
      double count = st[HEAP_COUNT];
      if (!(count >= 0 && count <= (double)b->heap)) return STOP;
      const double *start = b->heap_start, *end = b->heap_end;
      size_t lo = 0, hi = (size_t)count;
      /* Above the last block (the ends are sorted): a stack address, mostly; no search. */
      if (hi > 0 && a >= end[hi - 1]) lo = hi;
      while (lo < hi) { /* the first block whose end is above a */
        size_t mid = (lo + hi) >> 1;
        if (end[mid] <= a) lo = mid + 1;
        else hi = mid;
      }
      if (lo == (size_t)count || !(start[lo] <= a)) {
        /* In no block: then the globals, then other threads' frames, else unknown. */
        if ((a >= st[GLOBALS_LOW] && a < st[GLOBALS_HIGH]) || st[OTHER_FRAMES] != 0) return STOP;
        gap(b, p, a, lo, (size_t)count, epoch);
        return 0;
      }
      low = start[lo], high = end[lo];
      v = b->heap_variable[lo];
    }
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

/* PointCounts.add: a run's n accesses into its (point, variable, kind) cell, made when new (the
 * same hash and probe); false when no cell is left (the JavaScript side grows the table). */
static bool add_closed(AttributeBinding *b, uint32_t p, int32_t v, uint8_t kind, double n) {
  uint32_t s = (p * 0x9e3779b1u ^ ((uint32_t)v * 4u + kind) * 0x85ebca77u) >> b->count_shift;
  for (uint32_t probes = 0; probes <= b->count_mask; probes++, s = (s + 1) & b->count_mask) {
    int32_t c = b->count_slots[s] - 1;
    if (c < 0) {
      double used = b->count_used[0];
      if (!(used >= 0 && used < (double)b->count_cells)) return false;
      size_t fresh = (size_t)used;
      b->count_point[fresh] = p;
      b->count_variable[fresh] = v;
      b->count_kind[fresh] = kind;
      b->count_count[fresh] = n;
      b->count_slots[s] = (int32_t)fresh + 1;
      b->count_used[0] = used + 1;
      return true;
    }
    if ((size_t)c < b->count_cells && b->count_point[c] == p && b->count_variable[c] == v && b->count_kind[c] == kind) {
      b->count_count[c] += n;
      return true;
    }
  }
  return false;
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
    if (b->run_var[p] == v && b->run_kind[p] == b->kind_of[p])
      b->run_count[p] += 1;
    else {
      /* The point's run ends: closed into its count, a new one begun (Correlator.count). A
       * point's first access (its histogram's place among the points) is the correlator's. */
      if (b->run_var[p] < 0 || !add_closed(b, p, b->run_var[p], b->run_kind[p], b->run_count[p])) break;
      b->run_var[p] = v;
      b->run_kind[p] = b->kind_of[p];
      b->run_count[p] = 1;
    }
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
