/* The simulator's exports. A hierarchy lives in C memory owned by a JavaScript external
 * (freed when collected); batches cross as typed arrays, results come back as copies.
 *   simCreate(specs f64[9 per level], nCaches, nTlb, compatible, fastPath, interval, maxIntervals, nVars, missLevel, split) -> sim
 *     maxIntervals > 0: adaptive intervals (hierarchy.h), from `interval` on
 *     split 1: the TLB levels run beside the caches on a thread of their own (pair.h)
 *     spec: size, assoc, lineSize, policy (0 lru 1 fifo 2 plru 3 random), seed,
 *           writeThrough, writeAllocate, inclusive, prefetch (0 none 1 next-line 2 stride)
 *   simSetPoints(sim, kinds u8, variables i32 | null, parents u32 | null): parents, per point,
 *     the point whose stride-prefetcher state it uses (null: its own)
 *   simRun(sim, count, points u32, addresses f64, sizes u16) -> misses at missLevel in the batch
 *   simRunAsync(...the same) -> a promise of it: the batch runs on Node's thread pool (the
 *     arrays must not change meanwhile; the simulator refuses every other call until it settles)
 *   simMisses(sim) -> u32 batch indices of those misses (a modify may appear twice)
 *   simFinish(sim); simStats(sim) -> f64; simExtras(sim) -> f64
 *   simTimeline(sim) -> f64 (level, variable, interval, misses) rows since the last call (adaptive:
 *     every row so far, at the interval of now: earlier rows may merge later)
 *   simInfo(sim) -> f64 [the interval now, timeline cells held, bytes of C memory]
 *   simEvictors(sim, level) -> f64 (evictee, evictor, count) rows */
#include "../addon.h"
#include "pair.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_FIELDS 9

static const napi_type_tag SIM_TAG = {0x5374726964655369ull, 0x6d48696572617231ull};

typedef struct {
  SimPair sim;
  int64_t reported;
  /* A batch is running on the thread pool (simRunAsync): nothing else may touch the Sim. */
  bool busy;
} SimBox;

/* Keeps the JavaScript heap told how much C memory the hierarchy holds, so a dropped one
 * is collected before memory runs short. */
static void report(napi_env env, SimBox *b) {
  int64_t now = (int64_t)pair_bytes(&b->sim), ignored;
  if (now != b->reported) napi_adjust_external_memory(env, now - b->reported, &ignored);
  b->reported = now;
}

static void sim_finalize(napi_env env, void *data, void *hint) {
  SimBox *b = data;
  int64_t ignored;
  if (b->reported) napi_adjust_external_memory(env, -b->reported, &ignored);
  pair_free(&b->sim);
  free(b);
}

static SimBox *box_of(napi_env env, napi_value v) {
  SimBox *b = stride_unwrap(env, v, &SIM_TAG, "a simulator");
  if (b && b->busy) {
    stride_throw(env, "simulator: a batch is still running (await simRunAsync first)");
    return NULL;
  }
  return b;
}

/* The simulator of an export whose one argument is it; NULL after throwing. */
static SimBox *only_sim(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  return stride_args(env, info, 1, argv) ? box_of(env, argv[0]) : NULL;
}

static bool get_i32(napi_env env, napi_value v, int32_t *out, const char *what) {
  if (napi_get_value_int32(env, v, out) == napi_ok) return true;
  char message[100];
  snprintf(message, sizeof message, "%s must be a number", what);
  napi_throw_type_error(env, NULL, message);
  return false;
}

static napi_value create(napi_env env, napi_callback_info info) {
  napi_value argv[10];
  if (!stride_args(env, info, 10, argv)) return NULL;
  size_t n;
  const double *spec = stride_typed_array(env, argv[0], napi_float64_array, &n, "specs");
  uint32_t n_caches, n_tlb, compatible, fast_path, n_vars, max_intervals, split;
  double interval;
  int32_t miss_level;
  if (!spec || !stride_u32(env, argv[1], &n_caches, "nCaches") || !stride_u32(env, argv[2], &n_tlb, "nTlb") ||
      !stride_u32(env, argv[3], &compatible, "compatible") || !stride_u32(env, argv[4], &fast_path, "fastPath") ||
      napi_get_value_double(env, argv[5], &interval) != napi_ok || !stride_u32(env, argv[6], &max_intervals, "maxIntervals") ||
      !stride_u32(env, argv[7], &n_vars, "nVars") || !get_i32(env, argv[8], &miss_level, "missLevel") ||
      !stride_u32(env, argv[9], &split, "split"))
    return NULL;
  if (!(interval >= 0 && interval <= 9007199254740992.0) || interval != (double)(uint64_t)interval) return stride_throw(env, "simulator: interval must be a whole number >= 0");
  if (n_caches + n_tlb > SIM_MAX_LEVELS || n != (size_t)(n_caches + n_tlb) * SPEC_FIELDS) return stride_throw(env, "simulator: specs do not match the level counts");
  SimLevelSpec specs[SIM_MAX_LEVELS];
  for (uint32_t l = 0; l < n_caches + n_tlb; l++) {
    const double *f = spec + l * SPEC_FIELDS;
    for (int k = 1; k < SPEC_FIELDS; k++)
      if (!(f[k] >= 0 && f[k] <= 4294967295.0)) return stride_throw(env, "simulator: a level spec field is out of range");
    specs[l] = (SimLevelSpec){f[0], (uint32_t)f[1], (uint32_t)f[2], (uint32_t)f[3], (uint32_t)f[4], (uint8_t)f[5], (uint8_t)f[6], (uint8_t)f[7], (uint8_t)f[8]};
  }
  SimBox *b = calloc(1, sizeof *b);
  if (!b) return stride_throw(env, "out of memory creating a simulator");
  const char *why = pair_init(&b->sim, specs, n_caches, n_tlb, compatible != 0, fast_path != 0, (uint64_t)interval, max_intervals, n_vars, miss_level, split != 0);
  if (why) {
    free(b);
    return stride_throw(env, why);
  }
  report(env, b);
  return stride_external(env, b, sim_finalize, &SIM_TAG);
}

static napi_value set_points(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!stride_args(env, info, 4, argv)) return NULL;
  SimBox *b = box_of(env, argv[0]);
  size_t nk, nv = 0, np = 0;
  const uint8_t *kinds = b ? stride_typed_array(env, argv[1], napi_uint8_array, &nk, "kinds") : NULL;
  if (!kinds) return NULL;
  napi_valuetype t;
  STRIDE_CALL(env, napi_typeof(env, argv[2], &t));
  const int32_t *vars = NULL;
  if (t != napi_null && t != napi_undefined && !(vars = stride_typed_array(env, argv[2], napi_int32_array, &nv, "variables"))) return NULL;
  STRIDE_CALL(env, napi_typeof(env, argv[3], &t));
  const uint32_t *parents = NULL;
  if (t != napi_null && t != napi_undefined && !(parents = stride_typed_array(env, argv[3], napi_uint32_array, &np, "parents"))) return NULL;
  if (parents && np != nk) return stride_throw(env, "simulator: parents must have one entry per point");
  if (nk > UINT32_MAX || nv > UINT32_MAX) return stride_throw(env, "simulator: the point table is too large");
  const char *why = pair_set_points(&b->sim, kinds, (uint32_t)nk, vars, (uint32_t)nv, parents);
  if (why) return stride_throw(env, why);
  report(env, b);
  return NULL;
}

/* A batch's arguments: the simulator and its arrays, checked. */
typedef struct {
  SimBox *b;
  SimAccesses a;
} SimBatch;

static bool get_batch(napi_env env, const napi_value *argv, SimBatch *out) {
  size_t np, na, ns;
  SimAccesses *a = &out->a;
  if (!(out->b = box_of(env, argv[0])) || !stride_u32(env, argv[1], &a->count, "count")) return false;
  a->points = stride_typed_array(env, argv[2], napi_uint32_array, &np, "points");
  a->addresses = a->points ? stride_typed_array(env, argv[3], napi_float64_array, &na, "addresses") : NULL;
  a->sizes = a->addresses ? stride_typed_array(env, argv[4], napi_uint16_array, &ns, "sizes") : NULL;
  if (!a->sizes) return false;
  if (np < a->count || na < a->count || ns < a->count) {
    stride_throw(env, "simulator: the arrays hold fewer accesses than count");
    return false;
  }
  return true;
}

static napi_value run(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  SimBatch a;
  if (!stride_args(env, info, 5, argv) || !get_batch(env, argv, &a)) return NULL;
  const char *why = pair_run(&a.b->sim, &a.a);
  report(env, a.b);
  if (why) return stride_throw(env, why);
  size_t n;
  pair_misses(&a.b->sim, &n);
  return stride_number(env, (double)n);
}

/* A batch in flight: the simulator and the arrays are held until it completes. */
typedef struct {
  StrideWork w; /* holds the simulator, points, addresses, sizes */
  SimBatch batch;
} AsyncRun;

static void run_execute(napi_env env, void *data) {
  AsyncRun *r = data;
  const char *why = pair_run(&r->batch.b->sim, &r->batch.a);
  if (why) stride_work_fail(&r->w, "", why);
}

static void run_complete(napi_env env, napi_status status, void *data) {
  AsyncRun *r = data;
  SimBox *b = r->batch.b;
  b->busy = false;
  report(env, b);
  size_t n;
  pair_misses(&b->sim, &n);
  napi_value result = status == napi_ok && !r->w.failed ? stride_number(env, (double)n) : NULL;
  stride_settle_work(env, &r->w, result, "the simulation batch was cancelled");
  free(r);
}

/* simRunAsync: run's work on Node's thread pool, so the caller's thread goes on meanwhile
 * (a trace's worker names its points while its first simulation runs). */
static napi_value run_async(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  if (!stride_args(env, info, 5, argv)) return NULL;
  AsyncRun *r = calloc(1, sizeof *r);
  if (!r) return stride_throw(env, "out of memory simulating a batch");
  napi_value hold[4] = {argv[0], argv[2], argv[3], argv[4]};
  napi_value promise = get_batch(env, argv, &r->batch) ? stride_queue_work(env, &r->w, "stride:simulate", hold, 4, run_execute, run_complete) : NULL;
  if (!promise) {
    free(r);
    return NULL;
  }
  r->batch.b->busy = true;
  return promise;
}

static napi_value misses(napi_env env, napi_callback_info info) {
  SimBox *b = only_sim(env, info);
  if (!b) return NULL;
  size_t n;
  const uint32_t *from = pair_misses(&b->sim, &n);
  void *data;
  napi_value out = stride_new_typed(env, napi_uint32_array, 4, n, &data);
  if (!out) return stride_throw(env, "out of memory");
  if (n) memcpy(data, from, n * 4);
  return out;
}

static napi_value finish(napi_env env, napi_callback_info info) {
  SimBox *b = only_sim(env, info);
  if (b) pair_finish(&b->sim);
  return NULL;
}

/* A Float64Array of n numbers the pair writes with fill(p, out). */
static napi_value doubles(napi_env env, SimPair *p, size_t n, void (*fill)(SimPair *, double *)) {
  double *data;
  napi_value out = stride_new_typed(env, napi_float64_array, 8, n, (void **)&data);
  if (!out) return stride_throw(env, "out of memory");
  fill(p, data);
  return out;
}

static void fill_stats(SimPair *p, double *out) { pair_stats(p, out); }
static void fill_extras(SimPair *p, double *out) { pair_extras(p, out); }

static napi_value stats(napi_env env, napi_callback_info info) {
  SimBox *b = only_sim(env, info);
  return b ? doubles(env, &b->sim, (size_t)pair_point_count(&b->sim) * b->sim.n_levels * ST_FIELDS, fill_stats) : NULL;
}

static napi_value extras(napi_env env, napi_callback_info info) {
  SimBox *b = only_sim(env, info);
  return b ? doubles(env, &b->sim, (size_t)b->sim.n_levels * EX_FIELDS, fill_extras) : NULL;
}

static napi_value timeline(napi_env env, napi_callback_info info) {
  SimBox *b = only_sim(env, info);
  return b ? doubles(env, &b->sim, pair_cells(&b->sim) * 4, pair_timeline) : NULL;
}

static napi_value sim_info(napi_env env, napi_callback_info info) {
  SimBox *b = only_sim(env, info);
  if (!b) return NULL;
  double now[3] = {(double)pair_interval(&b->sim), (double)pair_cells(&b->sim), (double)pair_bytes(&b->sim)};
  return stride_float64_array(env, now, 3);
}

static napi_value evictor_rows(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint32_t level;
  if (!stride_args(env, info, 2, argv)) return NULL;
  SimBox *b = box_of(env, argv[0]);
  if (!b || !stride_u32(env, argv[1], &level, "level")) return NULL;
  if (level >= b->sim.n_levels) return stride_throw(env, "simulator: no such level");
  size_t n;
  double *rows = evictors_entries(pair_evictors(&b->sim, level), &n);
  if (!rows) return stride_throw(env, "out of memory");
  napi_value out = stride_float64_array(env, rows, n * 3);
  free(rows);
  return out ? out : stride_throw(env, "out of memory");
}

/* An unsplit hierarchy (a first level shared by followers is never split): its one Sim is main. */
static SimBox *whole_box(napi_env env, napi_value v) {
  SimBox *b = box_of(env, v);
  if (b && b->sim.split) {
    stride_throw(env, "simulator: a hierarchy whose TLB levels run on a thread of their own cannot share its first level");
    return NULL;
  }
  return b;
}

/* simCapture(first) / simCaptureClear(first) / simFollow(follower, first) / simAdopt(follower, first): hierarchy.h */
static napi_value capture(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  SimBox *b = stride_args(env, info, 1, argv) ? whole_box(env, argv[0]) : NULL;
  if (!b) return NULL;
  const char *why = sim_capture(&b->sim.main);
  return why ? stride_throw(env, why) : NULL;
}

static napi_value capture_clear(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  SimBox *b = stride_args(env, info, 1, argv) ? whole_box(env, argv[0]) : NULL;
  if (b) sim_capture_clear(&b->sim.main);
  return NULL;
}

static napi_value follow_or_adopt(napi_env env, napi_callback_info info, const char *(*step)(Sim *, const Sim *)) {
  napi_value argv[2];
  if (!stride_args(env, info, 2, argv)) return NULL;
  SimBox *b = whole_box(env, argv[0]);
  SimBox *first = b ? whole_box(env, argv[1]) : NULL;
  if (!first) return NULL;
  if (b == first) return stride_throw(env, "simulator: a hierarchy cannot follow itself");
  const char *why = step(&b->sim.main, &first->sim.main);
  if (why) return stride_throw(env, why);
  report(env, b);
  return NULL;
}

/* simCapturedTake(first) -> Uint8Array: the stream captured since the last take, encoded
 * (outbound.h), and emptied. */
static napi_value captured_take(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  SimBox *b = stride_args(env, info, 1, argv) ? whole_box(env, argv[0]) : NULL;
  if (!b) return NULL;
  Sim *s = &b->sim.main;
  if (!s->capture) return stride_throw(env, "simulator: the first level is not captured");
  if (s->out.failed) return stride_throw(env, "the first level's stream is incomplete (out of memory, or accesses of the rest of the program)");
  uint8_t *bytes;
  size_t n;
  if (!outbound_encode(&s->out, &bytes, &n)) return stride_throw(env, "out of memory");
  void *data;
  napi_value out = stride_new_typed(env, napi_uint8_array, 1, n, &data);
  if (out) memcpy(data, bytes, n);
  free(bytes);
  sim_capture_clear(s);
  return out ? out : stride_throw(env, "out of memory");
}

/* simFollowEncoded(follower, bytes): a stored block of the first level's stream (simCapturedTake's). */
static napi_value follow_encoded(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t n;
  SimBox *b = stride_args(env, info, 2, argv) ? whole_box(env, argv[0]) : NULL;
  const uint8_t *bytes = b ? stride_typed_array(env, argv[1], napi_uint8_array, &n, "bytes") : NULL;
  if (!bytes) return NULL;
  const char *why = sim_follow_encoded(&b->sim.main, bytes, n);
  if (why) return stride_throw(env, why);
  report(env, b);
  return NULL;
}

/* simAdvance(follower, accesses): the run's end, after the last stored block. */
static napi_value advance(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  double accesses;
  SimBox *b = stride_args(env, info, 2, argv) ? whole_box(env, argv[0]) : NULL;
  if (!b) return NULL;
  if (napi_get_value_double(env, argv[1], &accesses) != napi_ok || !(accesses >= 0 && accesses <= 9007199254740992.0) || accesses != (double)(uint64_t)accesses)
    return stride_throw(env, "simulator: accesses must be a whole number >= 0");
  const char *why = sim_advance(&b->sim.main, (uint64_t)accesses);
  return why ? stride_throw(env, why) : NULL;
}

/* simRawStats(sim) / simRefs(sim): sim_raw_stats, sim_refs. */
static napi_value raw_stats(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  SimBox *b = stride_args(env, info, 1, argv) ? whole_box(env, argv[0]) : NULL;
  if (!b) return NULL;
  void *data;
  napi_value out = stride_new_typed(env, napi_float64_array, 8, (size_t)b->sim.main.point_count * b->sim.main.n_levels * ST_FIELDS, &data);
  if (out) sim_raw_stats(&b->sim.main, data);
  return out;
}

static napi_value refs(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  SimBox *b = stride_args(env, info, 1, argv) ? whole_box(env, argv[0]) : NULL;
  if (!b) return NULL;
  void *data;
  napi_value out = stride_new_typed(env, napi_float64_array, 8, (size_t)b->sim.main.point_count * 3, &data);
  if (out) sim_refs(&b->sim.main, data);
  return out;
}

/* simLoadFirst(follower, raw f64, refs f64, extras f64, evictors [f64 triples per first level]): sim_load_first. */
static napi_value load_first(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  size_t n_raw, n_refs, n_extras;
  SimBox *b = stride_args(env, info, 5, argv) ? whole_box(env, argv[0]) : NULL;
  const double *raw = b ? stride_typed_array(env, argv[1], napi_float64_array, &n_raw, "raw") : NULL;
  const double *ref = raw ? stride_typed_array(env, argv[2], napi_float64_array, &n_refs, "refs") : NULL;
  const double *extra = ref ? stride_typed_array(env, argv[3], napi_float64_array, &n_extras, "extras") : NULL;
  if (!extra) return NULL;
  uint32_t n_first;
  STRIDE_CALL(env, napi_get_array_length(env, argv[4], &n_first));
  Sim *s = &b->sim.main;
  if (n_first < 1 || n_first > 3 || n_raw != (size_t)s->point_count * n_first * ST_FIELDS || n_refs != (size_t)s->point_count * 3 || n_extras != (size_t)n_first * EX_FIELDS)
    return stride_throw(env, "simulator: the stored first level does not fit this hierarchy's point table");
  const double *evictors[3];
  size_t n_evictors[3];
  for (uint32_t l = 0; l < n_first; l++) {
    napi_value e;
    STRIDE_CALL(env, napi_get_element(env, argv[4], l, &e));
    if (!(evictors[l] = stride_typed_array(env, e, napi_float64_array, &n_evictors[l], "evictors"))) return NULL;
    if (n_evictors[l] % 3) return stride_throw(env, "simulator: evictors come as (evictee, evictor, count) triples");
    n_evictors[l] /= 3;
  }
  const char *why = sim_load_first(s, n_first, raw, ref, extra, evictors, n_evictors);
  if (why) return stride_throw(env, why);
  report(env, b);
  return NULL;
}

static napi_value follow(napi_env env, napi_callback_info info) { return follow_or_adopt(env, info, sim_follow); }
static napi_value adopt(napi_env env, napi_callback_info info) { return follow_or_adopt(env, info, sim_adopt); }

napi_status stride_register_sim(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"simCreate", NULL, create, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simSetPoints", NULL, set_points, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simRun", NULL, run, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simRunAsync", NULL, run_async, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simMisses", NULL, misses, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simFinish", NULL, finish, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simStats", NULL, stats, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simExtras", NULL, extras, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simTimeline", NULL, timeline, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simEvictors", NULL, evictor_rows, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simInfo", NULL, sim_info, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simCapture", NULL, capture, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simCaptureClear", NULL, capture_clear, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simFollow", NULL, follow, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simAdopt", NULL, adopt, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simCapturedTake", NULL, captured_take, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simFollowEncoded", NULL, follow_encoded, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simAdvance", NULL, advance, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simRawStats", NULL, raw_stats, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simRefs", NULL, refs, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simLoadFirst", NULL, load_first, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof d / sizeof d[0], d);
}
