/* The memory hierarchy; see hierarchy.h. Two paths, as in the reference model: a fused
 * loop for the common configuration (every level LRU, write-back, write-allocate, not
 * inclusive, no prefetcher) after cg_sim.c, and the general path for everything else. */
/* Strict aliasing here (binding.gyp turns it off for the core): nothing in this file puns
 * types, and without it every counter store makes the compiler reload the level's fields. */
#pragma GCC optimize("strict-aliasing")
#include "hierarchy.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per thread: batches of different simulators may run at once on Node's thread pool. */
static _Thread_local char problem[200];

static const char *fail(const char *fmt, double a, double b) {
  snprintf(problem, sizeof problem, fmt, a, b);
  return problem;
}

const char *sim_init(Sim *s, const SimLevelSpec *specs, uint32_t n_caches, uint32_t n_tlb, bool compatible, bool fast_path, uint64_t interval,
                     uint64_t max_intervals, uint32_t n_vars, int32_t miss_level) {
  memset(s, 0, sizeof *s);
  /* No caches: the TLB part of a split hierarchy (pair.h). */
  if (n_caches + n_tlb == 0) return "a hierarchy needs at least one cache level";
  if (n_tlb > 2) return "at most two TLB levels";
  if (n_caches + n_tlb > SIM_MAX_LEVELS) return "too many levels";
  s->n_caches = n_caches;
  s->n_levels = n_caches + n_tlb;
  s->compatible = compatible;
  s->interval = interval;
  s->until_boundary = interval;
  s->max_intervals = interval ? max_intervals : 0;
  s->n_vars = n_vars;
  s->miss_level = miss_level;
  uint32_t min_line = UINT32_MAX;
  bool fused = fast_path;
  for (uint32_t l = 0; l < s->n_levels; l++) {
    const SimLevelSpec *p = &specs[l];
    bool cache = l < n_caches;
    const char *why = level_init(&s->levels[l], p->size, p->assoc, p->line_size, p->policy, p->seed, cache);
    if (why) {
      s->n_levels = l;
      sim_free(s);
      return why;
    }
    if (!evictors_init(&s->evictors[l], 0)) {
      s->n_levels = l + 1;
      sim_free(s);
      return "out of memory";
    }
    if (p->policy != SIM_LRU) fused = false;
    if (!cache) continue;
    s->write_through[l] = p->write_through;
    s->write_allocate[l] = p->write_allocate;
    s->inclusive[l] = p->inclusive;
    s->prefetch[l] = p->prefetch;
    if (p->inclusive) s->any_inclusive = true;
    if (p->write_through || !p->write_allocate || p->inclusive || p->prefetch != PF_NONE) fused = false;
    if (compatible && (p->policy != SIM_LRU || !p->write_allocate || p->prefetch != PF_NONE)) {
      s->n_levels = l + 1;
      sim_free(s);
      return "Cachegrind-compatible mode simulates LRU, write-allocate caches without a prefetcher, as Cachegrind does";
    }
    if (p->line_size < min_line) min_line = p->line_size;
  }
  s->fused = fused;
  s->max_size = compatible && min_line > 64 ? 64 : min_line;
  size_t entries = (size_t)s->n_levels * (n_vars ? n_vars : 1);
  s->current = calloc(entries, sizeof *s->current);
  s->counted = calloc((entries + 63) / 64, sizeof *s->counted);
  if (!s->current || !s->counted) {
    sim_free(s);
    return "out of memory";
  }
  return NULL;
}

void sim_free(Sim *s) {
  for (uint32_t l = 0; l < s->n_levels; l++) {
    level_free(&s->levels[l]);
    evictors_free(&s->evictors[l]);
  }
  free(s->stats);
  free(s->refs);
  free(s->kinds);
  free(s->last_address);
  free(s->last_stride);
  free(s->parents);
  free(s->point_vars);
  free(s->current);
  free(s->counted);
  free(s->cells);
  free(s->misses);
  outbound_free(&s->out);
  memset(s, 0, sizeof *s);
}

size_t sim_bytes(const Sim *s) {
  size_t n = (size_t)s->point_count * (s->n_levels * ST_FIELDS * 8 + 3 * 8 + 1 + 16 + 4) + s->cap_cells * sizeof *s->cells + s->cap_misses * 4;
  for (uint32_t l = 0; l < s->n_levels; l++) n += level_bytes(&s->levels[l]) + evictors_bytes(&s->evictors[l]);
  return n;
}

static void *grow_copy(void *old, size_t old_bytes, size_t new_bytes) {
  void *p = realloc(old, new_bytes ? new_bytes : 1);
  if (p && new_bytes > old_bytes) memset((char *)p + old_bytes, 0, new_bytes - old_bytes);
  return p;
}

/* current[] laid out for `width` variables per level (the counts of the open interval kept). */
static bool widen_timeline(Sim *s, uint32_t width) {
  uint32_t old = s->n_vars ? s->n_vars : 1;
  size_t entries = (size_t)s->n_levels * width;
  uint64_t *next = calloc(entries, sizeof *next), *counted = calloc((entries + 63) / 64, sizeof *counted);
  if (!next || !counted) {
    free(next);
    free(counted);
    return false;
  }
  for (uint32_t l = 0; l < s->n_levels; l++)
    for (uint32_t v = 0; v < old && v < width; v++) {
      size_t i = (size_t)l * width + v;
      next[i] = s->current[(size_t)l * old + v];
      if (next[i]) counted[i >> 6] |= 1ull << (i & 63);
    }
  free(s->current);
  free(s->counted);
  s->current = next;
  s->counted = counted;
  s->n_vars = width;
  return true;
}

const char *sim_set_points(Sim *s, const uint8_t *kinds, uint32_t count, const int32_t *vars, uint32_t n_vars, const uint32_t *parents) {
  if (count < s->point_count) return "the point table cannot shrink";
  for (uint32_t p = 0; p < count; p++)
    if (kinds[p] > KIND_MODIFY) return fail("access point %.0f has an unknown kind (%.0f)", p, kinds[p]);
  if (parents)
    for (uint32_t p = 0; p < count; p++)
      if (parents[p] >= count) return fail("access point %.0f's parent %.0f is outside the point table", p, parents[p]);
  uint32_t old = s->point_count;
  if (count > old) {
    size_t row = (size_t)s->n_levels * ST_FIELDS * sizeof *s->stats;
    uint64_t *stats = grow_copy(s->stats, old * row, count * row);
    if (stats) s->stats = stats;
    uint64_t *refs = stats ? grow_copy(s->refs, old * 3 * sizeof *refs, count * 3 * sizeof *refs) : NULL;
    if (refs) s->refs = refs;
    double *last = refs ? realloc(s->last_address, count * sizeof *last) : NULL;
    if (last) s->last_address = last;
    double *stride = last ? grow_copy(s->last_stride, old * sizeof *stride, count * sizeof *stride) : NULL;
    if (stride) s->last_stride = stride;
    uint8_t *k = stride ? realloc(s->kinds, count) : NULL;
    if (k) s->kinds = k;
    if (!k) return "out of memory";
    for (uint32_t p = old; p < count; p++) last[p] = NAN;
    for (uint32_t l = 0; l < s->n_levels; l++)
      if (!evictors_grow(&s->evictors[l], count)) return "out of memory";
    s->point_count = count;
  }
  memcpy(s->kinds, kinds, count);
  if (parents) {
    uint32_t *copy = realloc(s->parents, (count ? count : 1) * sizeof *copy);
    if (!copy) return "out of memory";
    memcpy(copy, parents, count * sizeof *copy);
    s->parents = copy;
  } else {
    free(s->parents);
    s->parents = NULL;
  }
  if (vars) {
    uint32_t needed = s->n_vars;
    for (uint32_t p = 0; p < n_vars; p++)
      if (vars[p] >= 0 && (uint32_t)vars[p] >= needed) needed = (uint32_t)vars[p] + 1;
    if (needed > s->n_vars && !widen_timeline(s, needed)) return "out of memory";
    int32_t *v = realloc(s->point_vars, (n_vars ? n_vars : 1) * sizeof *v);
    if (!v) return "out of memory";
    memcpy(v, vars, n_vars * sizeof *v);
    s->point_vars = v;
    s->n_point_vars = n_vars;
  }
  return NULL;
}

/* ---- timeline and miss stream ---- */

static bool push_cell(Sim *s, SimTimelineCell c) {
  if (s->n_cells == s->cap_cells) {
    size_t cap = s->cap_cells ? s->cap_cells * 2 : 256;
    SimTimelineCell *next = realloc(s->cells, cap * sizeof *next);
    if (!next) return false;
    s->cells = next;
    s->cap_cells = cap;
  }
  s->cells[s->n_cells++] = c;
  return true;
}

static int cell_order(const SimTimelineCell *a, const SimTimelineCell *b) {
  if (a->level != b->level) return a->level < b->level ? -1 : 1;
  return a->variable < b->variable ? -1 : a->variable > b->variable;
}

/* Adaptive intervals: every two closed intervals become one of twice the width. Each interval's
 * cells are in (level, variable) order, so a pair merges as two sorted runs; the result is the
 * timeline a run at the doubled interval would have closed. */
static bool halve_timeline(Sim *s) {
  SimTimelineCell *out = malloc((s->cap_cells ? s->cap_cells : 1) * sizeof *out);
  if (!out) return false;
  size_t n = 0, at = 0;
  while (at < s->n_cells) {
    uint64_t pair = s->cells[at].interval >> 1;
    size_t a = at, a_end = at;
    while (a_end < s->n_cells && s->cells[a_end].interval == s->cells[a].interval) a_end++;
    size_t b = a_end, b_end = a_end;
    while (b_end < s->n_cells && s->cells[b_end].interval >> 1 == pair) b_end++;
    while (a < a_end || b < b_end) {
      int order = a == a_end ? 1 : b == b_end ? -1 : cell_order(&s->cells[a], &s->cells[b]);
      SimTimelineCell c = order <= 0 ? s->cells[a] : s->cells[b];
      if (order == 0) c.misses += s->cells[b++].misses;
      if (order <= 0) a++;
      else if (order > 0) b++;
      c.interval = pair;
      out[n++] = c;
    }
    at = b_end;
  }
  free(s->cells);
  s->cells = out;
  s->n_cells = n;
  s->interval *= 2;
  s->interval_index >>= 1;
  s->until_boundary = s->interval;
  return true;
}

static void close_interval(Sim *s) {
  uint32_t width = s->n_vars ? s->n_vars : 1;
  size_t words = ((size_t)s->n_levels * width + 63) / 64;
  for (size_t w = 0; w < words; w++) {
    for (uint64_t bits = s->counted[w]; bits; bits &= bits - 1) {
      size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
      if (!push_cell(s, (SimTimelineCell){(uint32_t)(i / width), (uint32_t)(i % width), s->interval_index, s->current[i]})) s->failed = true;
      s->current[i] = 0;
    }
    s->counted[w] = 0;
  }
  s->interval_index++;
  s->until_boundary = s->interval;
  if (s->max_intervals && s->interval_index == 2 * s->max_intervals && !halve_timeline(s)) s->failed = true;
}

/* A miss at level l by the access being simulated: the timeline and the miss stream. The
 * fused loop reads `track` and `miss_level` once per batch (each counter store could change
 * s->interval as far as the compiler knows; 2-5% on bench/simulate.mjs). */
static inline __attribute__((always_inline)) void on_miss_as(Sim *s, uint32_t l, int32_t point, bool track, int32_t miss_level) {
  if (track && (uint32_t)point < s->n_point_vars) {
    int32_t v = s->point_vars[point];
    if (v >= 0) {
      size_t i = (size_t)l * (s->n_vars ? s->n_vars : 1) + (uint32_t)v;
      s->current[i]++;
      s->counted[i >> 6] |= 1ull << (i & 63);
    }
  }
  if ((int32_t)l == miss_level) {
    if (s->n_misses == s->cap_misses) {
      size_t cap = s->cap_misses ? s->cap_misses * 2 : 4096;
      uint32_t *next = realloc(s->misses, cap * sizeof *next);
      if (!next) {
        s->failed = true;
        return;
      }
      s->misses = next;
      s->cap_misses = cap;
    }
    s->misses[s->n_misses++] = s->index;
  }
}

static inline void on_miss(Sim *s, uint32_t l, int32_t point) { on_miss_as(s, l, point, s->interval && s->point_vars, s->miss_level); }

static inline uint64_t *stat_row(Sim *s, int32_t point, uint32_t l) { return s->stats + ((size_t)point * s->n_levels + l) * ST_FIELDS; }

/* ---- the general path ---- */

static void background(Sim *s, uint32_t l, uint64_t address, uint32_t bytes, bool write, int32_t owner);

/* A line of level l owned by `owner` left for `by`'s (evicted or back-invalidated): the evictor
 * cell, and the owner's used bytes, line end and eviction. */
static inline void credit_eviction(Sim *s, uint32_t l, int32_t owner, int32_t by, uint32_t used) {
  evictors_add(&s->evictors[l], owner, by, 1);
  if (owner < 0) return;
  uint64_t *row = stat_row(s, owner, l);
  row[ST_USED_BYTES] += used;
  row[ST_LINE_ENDS]++;
  row[ST_EVICTIONS]++;
}

/* Bookkeeping for the line level l just gave up (its victim fields) to make room for `by`'s. */
static void evicted(Sim *s, uint32_t l, int32_t by) {
  SimLevel *v = &s->levels[l];
  uint64_t victim_block = v->victim_block;
  int32_t owner = v->victim_owner;
  uint8_t dirty = v->victim_dirty;
  s->extras[l * EX_FIELDS + EX_EVICTIONS]++;
  credit_eviction(s, l, owner, by, v->victim_used);
  if (l >= s->n_caches) return;
  if (dirty) {
    s->extras[l * EX_FIELDS + EX_WRITEBACKS]++;
    if (l + 1 < s->n_caches) background(s, l + 1, victim_block * v->line_size, v->line_size, true, OWNER_WRITEBACK);
  }
  if (s->any_inclusive && s->inclusive[l] && l > 0) {
    /* Inclusion: the line's bytes leave every inner level. */
    uint64_t address = victim_block * v->line_size;
    for (uint32_t k = 0; k < l; k++) {
      SimLevel *inner = &s->levels[k];
      uint64_t first = address >> inner->line_shift, end = (address + v->line_size - 1) >> inner->line_shift;
      for (uint64_t b = first; b <= end; b++) {
        if (!level_invalidate(inner, b)) continue;
        s->extras[l * EX_FIELDS + EX_BACK_INVALIDATIONS]++;
        credit_eviction(s, k, inner->victim_owner, by, inner->victim_used);
        /* A dirty inner copy is newer than ours: write it back past level l. */
        if (inner->victim_dirty) {
          s->extras[k * EX_FIELDS + EX_WRITEBACKS]++;
          if (l + 1 < s->n_caches) background(s, l + 1, b * inner->line_size, inner->line_size, true, OWNER_WRITEBACK);
        }
      }
    }
  }
}

/* Traffic no reference asked for (prefetches, write-backs): cache state only. */
static void background(Sim *s, uint32_t l, uint64_t address, uint32_t bytes, bool write, int32_t owner) {
  for (; l < s->n_caches; l++) {
    SimLevel *v = &s->levels[l];
    uint64_t first = address >> v->line_shift, end = (address + bytes - 1) >> v->line_shift;
    bool missed = false;
    for (uint64_t b = first; b <= end; b++) {
      if (level_find(v, b) != -1) {
        if (write && !s->write_through[l]) level_set_dirty(v, b);
        continue;
      }
      missed = true;
      if (write && !s->write_allocate[l]) continue;
      level_fill(v, b, owner, write && !s->write_through[l]);
      if (v->has_victim) evicted(s, l, owner);
    }
    if (!missed && !(write && s->write_through[l])) return;
  }
}

static void prefetch_block(Sim *s, uint32_t l, uint64_t block) {
  SimLevel *v = &s->levels[l];
  if (level_find(v, block) != -1) return;
  s->extras[l * EX_FIELDS + EX_PREFETCHES]++;
  level_fill(v, block, OWNER_PREFETCH, false);
  uint32_t slot = v->slot;
  if (v->has_victim) evicted(s, l, OWNER_PREFETCH);
  line_at(v, slot)->prefetched = 1;
  if (l + 1 < s->n_caches) background(s, l + 1, block * v->line_size, v->line_size, false, OWNER_PREFETCH);
}

/* Per-point stride detector: the same non-zero stride twice in a row prefetches one stride ahead. */
static void stride_prefetch(Sim *s, uint32_t l, double address) {
  int32_t p = s->parents ? (int32_t)s->parents[s->point] : s->point;
  double last = s->last_address[p];
  s->last_address[p] = address;
  if (last != last) return;
  double stride = address - last;
  bool confirmed = stride != 0 && stride == s->last_stride[p];
  s->last_stride[p] = stride;
  if (!confirmed) return;
  double line = s->levels[l].line_size;
  double target = floor((address + stride) / line);
  if (target != floor(address / line)) prefetch_block(s, l, (uint64_t)(int64_t)target);
}

static int block_access(Sim *s, uint32_t l, uint64_t block, uint32_t lo, uint32_t hi, bool write) {
  SimLevel *v = &s->levels[l];
  bool cache = l < s->n_caches;
  bool allocate = !write || !cache || s->write_allocate[l];
  /* Write-through lines are never dirty: the write already went on. */
  bool dirty = write && cache && !s->write_through[l];
  int result = level_lookup(v, block, lo, hi, dirty, s->point, allocate);
  if (result != SIM_MISS) {
    if (line_at(v, v->slot)->prefetched) {
      line_at(v, v->slot)->prefetched = 0;
      s->extras[l * EX_FIELDS + EX_USEFUL_PREFETCHES]++;
    }
  } else if (v->has_victim)
    evicted(s, l, s->point);
  if (result == SIM_MISS && cache && s->prefetch[l] == PF_NEXT) prefetch_block(s, l, block + 1);
  return result;
}

/* A demand access at level l: one or two lines; a miss if either missed (Cachegrind's
 * rule), a temporal hit only if both parts were. -1: it spans more than two lines. */
static int level_access(Sim *s, uint32_t l, uint64_t address, uint32_t size, bool write) {
  SimLevel *v = &s->levels[l];
  uint32_t line = v->line_size;
  uint64_t last = address + size - 1;
  uint64_t b1 = address >> v->line_shift, b2 = last >> v->line_shift;
  uint32_t lo = (uint32_t)(address - b1 * line);
  int result;
  if (b1 == b2)
    result = block_access(s, l, b1, lo, (uint32_t)(last - b1 * line), write);
  else {
    if (b2 != b1 + 1) return -1;
    int r1 = block_access(s, l, b1, lo, line - 1, write);
    int r2 = block_access(s, l, b2, 0, (uint32_t)(last - b2 * line), write);
    result = r1 > r2 ? r1 : r2;
  }
  if (l < s->n_caches && s->prefetch[l] == PF_STRIDE) stride_prefetch(s, l, (double)address);
  return result;
}

/* One reference through the cache levels: a miss at one level is an access at the next. */
static bool ref(Sim *s, uint64_t address, uint32_t size, bool write) {
  for (uint32_t l = 0; l < s->n_caches; l++) {
    uint64_t *row = stat_row(s, s->point, l);
    row[write ? ST_WRITES : ST_READS]++;
    int result = level_access(s, l, address, size, write);
    if (result < 0) return false;
    if (result != SIM_MISS) {
      row[result == SIM_HIT_TEMPORAL ? ST_TEMPORAL : ST_SPATIAL]++;
      /* A write-through level passes every write on. */
      if (!(write && s->write_through[l])) return true;
    } else {
      row[write ? ST_WRITE_MISSES : ST_READ_MISSES]++;
      on_miss(s, l, s->point);
    }
  }
  return true;
}

/* Data TLB levels: one lookup per page touched; a miss at one is a lookup at the next. */
static bool translate(Sim *s, uint64_t address, uint32_t size, bool write) {
  for (uint32_t l = s->n_caches; l < s->n_levels; l++) {
    uint64_t *row = stat_row(s, s->point, l);
    row[write ? ST_WRITES : ST_READS]++;
    int result = level_access(s, l, address, size, false);
    if (result < 0) return false;
    if (result != SIM_MISS) return true;
    row[write ? ST_WRITE_MISSES : ST_READ_MISSES]++;
    on_miss(s, l, s->point);
  }
  return true;
}

static const char *outside(Sim *s, uint32_t i, uint32_t point) {
  s->stopped_at = i;
  return fail("access point %.0f is outside the point table (%.0f)", point, s->point_count);
}

static const char *straddle(Sim *s, uint32_t i, uint32_t size, uint64_t address) {
  s->stopped_at = i;
  return fail("an access of %.0f bytes at %.0f spans more than two lines", size, (double)address);
}

static void context_access(Sim *s, uint32_t code, uint64_t address, uint32_t size);

static const char *run_general(Sim *s, uint32_t count, const uint32_t *points, const double *addresses, const uint16_t *sizes) {
  bool tlb = s->n_levels > s->n_caches;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t point = points[i];
    if (point >= s->point_count) {
      if (point < SIM_CONTEXT) return outside(s, i, point);
      uint32_t size = sizes[i] ? sizes[i] : 1;
      context_access(s, point, (uint64_t)addresses[i], size > s->max_size ? s->max_size : size);
      continue;
    }
    uint8_t kind = s->kinds[point];
    uint32_t size = sizes[i] ? sizes[i] : 1;
    if (size > s->max_size) size = s->max_size;
    uint64_t address = (uint64_t)addresses[i];
    s->point = (int32_t)point;
    s->index = i;
    bool ok;
    if (kind == KIND_READ)
      ok = (!tlb || translate(s, address, size, false)) && ref(s, address, size, false);
    else if (kind == KIND_WRITE)
      ok = (!tlb || translate(s, address, size, true)) && ref(s, address, size, true);
    else /* One translation: the write reuses the read's. */
      ok = (!tlb || translate(s, address, size, false)) && ref(s, address, size, false) && (s->compatible || ref(s, address, size, true));
    if (!ok) return straddle(s, i, size, address);
    if (s->interval && --s->until_boundary == 0) close_interval(s);
  }
  return NULL;
}

/* ---- the fused path ---- */

/* The POPCNT instruction where the CPU has it (checked once, at load): a one-word byte vector's
 * count inline, not through level_used_bytes' load-time-chosen call (3% of bench/simulate.mjs's
 * L1 + L2 + TLB). */
#if defined(__x86_64__)
static bool has_popcnt;
__attribute__((constructor)) static void check_popcnt(void) {
  __builtin_cpu_init();
  has_popcnt = __builtin_cpu_supports("popcnt");
}
#endif

static inline uint32_t used_bytes_at(const SimLevel *v, uint32_t slot) {
#if defined(__x86_64__)
  if (v->words == 1 && has_popcnt) {
    uint64_t n;
    __asm__("popcnt %1, %0" : "=r"(n) : "rm"(line_at(v, slot)->used[0]));
    return (uint32_t)n;
  }
#endif
  return v->words ? level_used_bytes(v, slot) : 0;
}

static void fused_write_back(Sim *s, uint32_t k, uint64_t address, uint32_t bytes);

/* The line at position `at` of fused level l (still in place) leaves for `by`'s line; a
 * dirty line is written to the next level first. The level's evictions and the owner's line
 * ends are not counted here: sim_extra and sim_stat_row find them from the evictor cells and
 * the owner's evictions. `n_caches` is the fused loop's constant (s->n_caches elsewhere), so
 * a TLB level's copy has no byte or dirty work in it (4% on bench/simulate.mjs's (b)). */
static inline __attribute__((always_inline)) void fused_evict(Sim *s, uint32_t l, SimLevel *v, uint64_t at, int32_t by, const uint32_t n_caches) {
  const bool cache = l < n_caches;
  uint32_t slot = v->slots[at];
  int32_t owner = line_at(v, slot)->owner;
  evictors_add(&s->evictors[l], owner, by, 1);
  if (owner >= 0) {
    uint64_t *row = stat_row(s, owner, l);
    if (cache) row[ST_USED_BYTES] += used_bytes_at(v, slot);
    row[ST_EVICTIONS]++;
  }
  if (cache && line_at(v, slot)->dirty) {
    s->extras[l * EX_FIELDS + EX_WRITEBACKS]++;
    if (l + 1 < n_caches) fused_write_back(s, l + 1, v->tags[at] * v->line_size, v->line_size);
    /* A captured first level (its Sim has no level below): the write-back leaves for the followers'. */
    else if (s->capture) outbound_push(&s->out, s->accesses + s->index, -1, v->tags[at] * v->line_size, v->line_size, OUT_WRITE_BACK);
  }
}

/* Puts `block` at the front of the set at base, in the slot of position p (the positions
 * before p shift down one); returns that slot. */
static inline uint32_t move_to_front(SimLevel *v, uint64_t base, uint64_t p, uint64_t block) {
  uint64_t *tags = v->tags;
  uint32_t *slots = v->slots;
  uint32_t slot = slots[p];
  for (; p > base; p--) {
    tags[p] = tags[p - 1];
    slots[p] = slots[p - 1];
  }
  tags[base] = block;
  slots[base] = slot;
  return slot;
}

/* A write-back into fused levels from k on: a resident line turns dirty (no recency
 * change); a missing one is filled dirty, owned by write-back, and the write goes on. */
static void fused_write_back(Sim *s, uint32_t k, uint64_t address, uint32_t bytes) {
  for (; k < s->n_caches; k++) {
    SimLevel *v = &s->levels[k];
    uint64_t *tags = v->tags;
    uint32_t *slots = v->slots;
    uint64_t first = address >> v->line_shift, end = (address + bytes - 1) >> v->line_shift;
    bool missed = false;
    for (uint64_t block = first; block <= end; block++) {
      uint64_t base = level_base(v, block), stop = base + v->assoc, p = base;
      while (p < stop && tags[p] != block) p++;
      if (p != stop) {
        line_at(v, slots[p])->dirty = 1;
        continue;
      }
      missed = true;
      p--;
      if (tags[p] != SIM_EMPTY) fused_evict(s, k, v, p, OWNER_WRITEBACK, s->n_caches);
      uint32_t slot = move_to_front(v, base, p, block);
      line_at(v, slot)->owner = OWNER_WRITEBACK;
      line_at(v, slot)->dirty = 1;
      level_clear_used(v, slot);
    }
    if (!missed) return;
  }
}

/* Moves `block` to the front of its set (positions before it shift down one); on a miss the
 * last position (empty or least recent) is evicted first. Returns the slot; *missed says which. */
static inline __attribute__((always_inline)) uint32_t fused_touch(Sim *s, uint32_t l, SimLevel *v, uint64_t block, int32_t point, bool *missed, const uint32_t n_caches) {
  uint64_t *tags = v->tags;
  uint32_t *slots = v->slots;
  uint64_t base = level_base(v, block);
  if (tags[base] == block) {
    *missed = false;
    return slots[base];
  }
  uint64_t p = base + 1, stop = base + v->assoc;
  while (p < stop && tags[p] != block) p++;
  *missed = p == stop;
  if (*missed) {
    p--;
    if (tags[p] != SIM_EMPTY) fused_evict(s, l, v, p, point, n_caches);
  }
  return move_to_front(v, base, p, block);
}

/* A demand use of one line of fused cache level l, bytes lo..hi of it: the line's owner, dirty
 * bit and byte vector, and whether it was a miss, a temporal or a spatial hit. Always inlined:
 * left to the compiler it became a call and cost 12% on bench/simulate.mjs's trace. */
static inline __attribute__((always_inline)) int fused_line(Sim *s, uint32_t l, SimLevel *v, uint64_t block, int32_t point, bool write, uint32_t lo, uint32_t hi, const uint32_t n_caches) {
  bool miss;
  uint32_t slot = fused_touch(s, l, v, block, point, &miss, n_caches);
  SimLine *line = line_at(v, slot);
  if (miss) {
    line->owner = point;
    line->dirty = write ? 1 : 0;
    level_reset_mark(v, slot, lo, hi);
    return SIM_MISS;
  }
  if (write) line->dirty = 1;
  return level_mark(v, slot, lo, hi) ? SIM_HIT_TEMPORAL : SIM_HIT_SPATIAL;
}

/* ---- context accesses (SIM_CONTEXT): state only ---- */

/* One line of level l for a context access; true on a hit. As block_access, less the counts,
 * the bytes marked and the owner (the rest of the program). */
static bool context_block(Sim *s, uint32_t l, uint64_t block, bool write) {
  SimLevel *v = &s->levels[l];
  bool cache = l < s->n_caches;
  bool allocate = !write || !cache || s->write_allocate[l];
  int result = level_touch(v, block, write && cache && !s->write_through[l], OWNER_CONTEXT, allocate);
  if (result != SIM_MISS) {
    if (line_at(v, v->slot)->prefetched) {
      line_at(v, v->slot)->prefetched = 0;
      s->extras[l * EX_FIELDS + EX_USEFUL_PREFETCHES]++;
    }
    return true;
  }
  if (v->has_victim) evicted(s, l, OWNER_CONTEXT);
  if (cache && s->prefetch[l] == PF_NEXT) prefetch_block(s, l, block + 1);
  return false;
}

static bool context_level(Sim *s, uint32_t l, uint64_t address, uint32_t size, bool write) {
  SimLevel *v = &s->levels[l];
  uint64_t b1 = address >> v->line_shift, b2 = (address + size - 1) >> v->line_shift;
  bool hit = context_block(s, l, b1, write);
  if (b2 != b1) hit = context_block(s, l, b2, write) && hit;
  return hit;
}

static void context_general(Sim *s, uint64_t address, uint32_t size, bool write) {
  for (uint32_t l = s->n_caches; l < s->n_levels; l++)
    if (context_level(s, l, address, size, false)) break;
  for (uint32_t l = 0; l < s->n_caches; l++)
    if (context_level(s, l, address, size, write) && !(write && s->write_through[l])) break;
}

/* The fused path's levels (LRU, write-back, write-allocate, no prefetcher). */
static void context_fused(Sim *s, uint64_t address, uint32_t size, bool write) {
  uint64_t last = address + size - 1;
  for (uint32_t l = s->n_caches; l < s->n_levels; l++) {
    SimLevel *v = &s->levels[l];
    bool missed = false;
    for (uint64_t block = address >> v->line_shift; block <= last >> v->line_shift; block++) {
      bool miss;
      uint32_t slot = fused_touch(s, l, v, block, OWNER_CONTEXT, &miss, s->n_caches);
      if (miss) {
        line_at(v, slot)->owner = OWNER_CONTEXT;
        missed = true;
      }
    }
    if (!missed) break;
  }
  for (uint32_t l = 0; l < s->n_caches; l++) {
    SimLevel *v = &s->levels[l];
    bool missed = false;
    for (uint64_t block = address >> v->line_shift; block <= last >> v->line_shift; block++) {
      bool miss;
      uint32_t slot = fused_touch(s, l, v, block, OWNER_CONTEXT, &miss, s->n_caches);
      SimLine *line = line_at(v, slot);
      if (miss) {
        line->owner = OWNER_CONTEXT;
        line->dirty = write ? 1 : 0;
        level_clear_used(v, slot);
        missed = true;
      } else if (write)
        line->dirty = 1;
    }
    if (!missed) break;
  }
}

/* A context access: its folded accesses replayed in the order that decides the state (a
 * write before the first read, the read, a write after it; a modify's write is no write in
 * Cachegrind-compatible mode, as a modify point's is not). Kept out of the hot loops: they
 * reach it through their point-table check. */
__attribute__((noinline)) static void context_access(Sim *s, uint32_t code, uint64_t address, uint32_t size) {
  uint32_t flags = code & 15;
  /* A first level warmed by the rest of the program is not one a cold replay would give. */
  if (s->capture) s->out.failed = true;
  void (*one)(Sim *, uint64_t, uint32_t, bool) = s->fused ? context_fused : context_general;
  int32_t point = s->point;
  s->point = OWNER_CONTEXT;
  if (flags & CTX_WRITE_FIRST) one(s, address, size, true);
  if (flags & CTX_READ) one(s, address, size, false);
  if ((flags & CTX_WRITE_AFTER) || (!s->compatible && (flags & CTX_MODIFY_AFTER))) one(s, address, size, true);
  s->point = point;
}

/* The fused loop, inlined per level count (below) so the level loops unroll and each
 * level's arrays stay in registers. */
static inline __attribute__((always_inline)) const char *run_fused_levels(Sim *s, uint32_t count, const uint32_t *points, const double *addresses,
                                                                          const uint16_t *sizes, const uint32_t n_caches, const uint32_t n_levels) {
  const uint32_t max_size = s->max_size;
  const bool compatible = s->compatible, timed = s->interval != 0, track = timed && s->point_vars, capture = s->capture;
  const int32_t miss_level = s->miss_level;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t point = points[i];
    if (point >= s->point_count) {
      if (point < SIM_CONTEXT) return outside(s, i, point);
      uint32_t size = sizes[i] ? sizes[i] : 1;
      context_access(s, point, (uint64_t)addresses[i], size > max_size ? max_size : size);
      continue;
    }
    uint8_t kind = s->kinds[point];
    uint32_t size = sizes[i] ? sizes[i] : 1;
    if (size > max_size) size = max_size;
    uint64_t address = (uint64_t)addresses[i];
    uint64_t last = address + size - 1;
    uint64_t *row = stat_row(s, (int32_t)point, 0);
    s->index = i;
    /* Reads and writes per level follow from these (sim_stat_row). */
    s->refs[point * 3 + kind]++;
    /* Data TLB levels: one translation per access, one lookup per page touched. */
    bool tlb_write = kind == KIND_WRITE;
    for (uint32_t l = n_caches; l < n_levels; l++) {
      uint64_t *at = row + l * ST_FIELDS;
      SimLevel *v = &s->levels[l];
      uint64_t first = address >> v->line_shift, end = last >> v->line_shift;
      if (end - first > 1) return straddle(s, i, size, address);
      bool missed = false;
      for (uint64_t block = first; block <= end; block++) {
        bool miss;
        uint32_t slot = fused_touch(s, l, v, block, (int32_t)point, &miss, n_caches);
        if (miss) {
          line_at(v, slot)->owner = (int32_t)point;
          missed = true;
        }
      }
      if (!missed) break;
      at[tlb_write ? ST_WRITE_MISSES : ST_READ_MISSES]++;
      on_miss_as(s, l, (int32_t)point, track, miss_level);
    }
    /* Cache levels (write-back, write-allocate: a hit ends the walk). A modify is a read
     * then a write; in Cachegrind-compatible mode one read. */
    bool write = kind == KIND_WRITE;
    for (int rep = kind == KIND_MODIFY && !compatible ? 2 : 1; rep > 0; rep--, write = true) {
      for (uint32_t l = 0; l < n_caches; l++) {
        uint64_t *at = row + l * ST_FIELDS;
        SimLevel *v = &s->levels[l];
        uint32_t line = v->line_size;
        uint64_t first = address >> v->line_shift, end = last >> v->line_shift;
        if (end - first > 1) return straddle(s, i, size, address);
        int result;
        if (first == end) /* the common case: one line, no straddle */
          result = fused_line(s, l, v, first, (int32_t)point, write, (uint32_t)(address - first * line), (uint32_t)(last - first * line), n_caches);
        else {
          /* Two lines: a miss if either missed (Cachegrind's rule), temporal only if both were. */
          int r1 = fused_line(s, l, v, first, (int32_t)point, write, (uint32_t)(address - first * line), line - 1, n_caches);
          int r2 = fused_line(s, l, v, end, (int32_t)point, write, 0, (uint32_t)(last - end * line), n_caches);
          result = r1 > r2 ? r1 : r2;
        }
        if (result != SIM_MISS) {
          at[result == SIM_HIT_TEMPORAL ? ST_TEMPORAL : ST_SPATIAL]++;
          break;
        }
        at[write ? ST_WRITE_MISSES : ST_READ_MISSES]++;
        on_miss_as(s, l, (int32_t)point, track, miss_level);
        if (capture && l == 0) outbound_push(&s->out, s->accesses + i, (int32_t)point, address, size, write ? OUT_WRITE : OUT_READ);
      }
    }
    if (timed && --s->until_boundary == 0) close_interval(s);
  }
  return NULL;
}

static const char *run_fused(Sim *s, uint32_t count, const uint32_t *points, const double *addresses, const uint16_t *sizes) {
#define FUSED(c, t) \
  if (s->n_caches == c && s->n_levels == c + t) return run_fused_levels(s, count, points, addresses, sizes, c, c + t)
  FUSED(0, 1);
  FUSED(0, 2);
  FUSED(1, 0);
  FUSED(1, 1);
  FUSED(2, 0);
  FUSED(2, 1);
  FUSED(3, 0);
  FUSED(3, 1);
#undef FUSED
  return run_fused_levels(s, count, points, addresses, sizes, s->n_caches, s->n_levels);
}

const char *sim_run(Sim *s, uint32_t count, const uint32_t *points, const double *addresses, const uint16_t *sizes) {
  s->n_misses = 0;
  const char *why = s->fused ? run_fused(s, count, points, addresses, sizes) : run_general(s, count, points, addresses, sizes);
  if (!why) s->accesses += count;
  for (uint32_t l = 0; l < s->n_levels; l++)
    if (s->evictors[l].failed) s->failed = true;
  return why ? why : s->failed ? "out of memory in the simulator" : NULL;
}

void sim_finish(Sim *s) {
  /* Lines still resident count as line ends for spatial reuse. */
  for (uint32_t l = 0; l < s->n_levels; l++) {
    SimLevel *v = &s->levels[l];
    if (!v->words) continue;
    /* Sets never used were never made (level.h): nothing of theirs is resident. */
    for (uint32_t set = 0; set <= v->set_mask; set++) {
      if (!level_set_ready(v, set)) continue;
      for (size_t p = (size_t)set * v->assoc; p < (size_t)(set + 1) * v->assoc; p++) {
        if (v->tags[p] == SIM_EMPTY) continue;
        uint32_t slot = v->slots[p];
        int32_t owner = line_at(v, slot)->owner;
        if (owner < 0) continue;
        uint64_t *row = stat_row(s, owner, l);
        row[ST_USED_BYTES] += level_used_bytes(v, slot);
        row[ST_LINE_ENDS]++;
      }
    }
  }
  if (s->interval && s->until_boundary != s->interval) close_interval(s);
}

void sim_stat_row(const Sim *s, uint32_t point, uint32_t level, uint64_t *out) {
  const uint64_t *row = s->stats + ((size_t)point * s->n_levels + level) * ST_FIELDS;
  for (int f = 0; f < ST_FIELDS; f++) out[f] = row[f];
  if (!s->fused) return;
  out[ST_LINE_ENDS] += row[ST_EVICTIONS];
  if (level == 0 || level == s->n_caches) {
    const uint64_t *r = s->refs + (size_t)point * 3;
    out[ST_READS] = r[KIND_READ] + r[KIND_MODIFY];
    out[ST_WRITES] = r[KIND_WRITE] + (level < s->n_caches && !s->compatible ? r[KIND_MODIFY] : 0);
  } else {
    const uint64_t *before = row - ST_FIELDS;
    out[ST_READS] = before[ST_READ_MISSES];
    out[ST_WRITES] = before[ST_WRITE_MISSES];
  }
}

uint64_t sim_extra(const Sim *s, uint32_t level, uint32_t field) {
  if (!s->fused || field != EX_EVICTIONS) return s->extras[level * EX_FIELDS + field];
  /* Every fused eviction is one evictor cell count. */
  uint64_t n = 0;
  const SimEvictors *m = &s->evictors[level];
  if (m->dense) {
    for (size_t i = 0, cells = (size_t)m->width * m->width; i < cells; i++) n += m->dense[i];
  } else {
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[i]) n += m->counts[i];
  }
  return n;
}

/* ---- a first level shared by several hierarchies (hierarchy.h: sim_capture) ---- */

const char *sim_capture(Sim *s) {
  if (!s->fused || s->n_caches != 1) return "only a fused hierarchy of one cache level (and TLB levels) can be followed";
  s->capture = true;
  return NULL;
}

void sim_capture_clear(Sim *s) { s->out.n = 0; }

/* The run has reached access `index` (the accesses before it are done): the intervals they
 * close are closed, as the per-access countdown of the fused loop closes them. */
static void advance_to(Sim *s, uint64_t index) {
  uint64_t n = index - s->accesses;
  if (s->interval) {
    while (n >= s->until_boundary) {
      n -= s->until_boundary;
      close_interval(s);
    }
    s->until_boundary -= n;
  }
  s->accesses = index;
}

/* A demand access the first level missed, through the cache levels below it: the fused
 * loop's walk from level 1 on. */
static const char *demand_below(Sim *s, int32_t point, uint64_t address, uint32_t size, bool write) {
  uint64_t last = address + size - 1;
  uint64_t *row = stat_row(s, point, 0);
  const bool track = s->interval != 0 && s->point_vars;
  for (uint32_t l = 1; l < s->n_caches; l++) {
    uint64_t *at = row + l * ST_FIELDS;
    SimLevel *v = &s->levels[l];
    uint32_t line = v->line_size;
    uint64_t first = address >> v->line_shift, end = last >> v->line_shift;
    if (end - first > 1) return "a followed access spans more than two lines of a lower level";
    int result;
    if (first == end)
      result = fused_line(s, l, v, first, point, write, (uint32_t)(address - first * line), (uint32_t)(last - first * line), s->n_caches);
    else {
      int r1 = fused_line(s, l, v, first, point, write, (uint32_t)(address - first * line), line - 1, s->n_caches);
      int r2 = fused_line(s, l, v, end, point, write, 0, (uint32_t)(last - end * line), s->n_caches);
      result = r1 > r2 ? r1 : r2;
    }
    if (result != SIM_MISS) {
      at[result == SIM_HIT_TEMPORAL ? ST_TEMPORAL : ST_SPATIAL]++;
      break;
    }
    at[write ? ST_WRITE_MISSES : ST_READ_MISSES]++;
    on_miss_as(s, l, point, track, s->miss_level);
  }
  return NULL;
}

/* One event of a first level's stream through the levels below it. */
static inline const char *follow_event(Sim *s, uint64_t index, int32_t point, uint64_t address, uint32_t bytes, uint32_t kind) {
  if (index < s->accesses) return "the first level's stream goes back in time";
  advance_to(s, index);
  s->index = 0;
  if (kind == OUT_WRITE_BACK) {
    fused_write_back(s, 1, address, bytes);
    return NULL;
  }
  if (point < 0 || (uint32_t)point >= s->point_count) return "a followed access's point is outside the point table";
  return demand_below(s, point, address, bytes, kind == OUT_WRITE);
}

static const char *can_follow(const Sim *s) {
  return !s->fused || s->capture || s->n_caches < 2 ? "only a fused hierarchy of two or more cache levels can follow a first level" : NULL;
}

static const char *followed(Sim *s) {
  for (uint32_t l = 0; l < s->n_levels; l++)
    if (s->evictors[l].failed) s->failed = true;
  return s->failed ? "out of memory in the simulator" : NULL;
}

const char *sim_follow_stream(Sim *s, const SimOutbound *o) {
  const char *why = can_follow(s);
  for (size_t k = 0; !why && k < o->n; k++) why = follow_event(s, o->index[k], o->point[k], o->address[k], o->size_kind[k] >> 2, o->size_kind[k] & 3);
  return why ? why : followed(s);
}

const char *sim_follow_encoded(Sim *s, const uint8_t *data, size_t length) {
  const char *why = can_follow(s);
  OutboundReader r;
  if (!why) why = outbound_reader_open(&r, data, length);
  for (bool more = true; !why;) {
    uint64_t index, address;
    int32_t point;
    uint32_t bytes, kind;
    why = outbound_next(&r, &more, &index, &point, &address, &bytes, &kind);
    if (why || !more) break;
    why = follow_event(s, index, point, address, bytes, kind);
  }
  return why ? why : followed(s);
}

const char *sim_advance(Sim *s, uint64_t accesses) {
  if (accesses < s->accesses) return "the first level's stream goes back in time";
  advance_to(s, accesses);
  return NULL;
}

const char *sim_follow(Sim *s, const Sim *first) {
  if (!first->capture) return "the first level is not captured";
  if (first->out.failed) return "the first level's stream is incomplete (out of memory, or accesses of the rest of the program)";
  if (s->max_size != first->max_size || s->compatible != first->compatible) return "the follower clips accesses unlike its first level";
  if (s->point_count < first->point_count) return "the follower does not know every point of its first level";
  const char *why = sim_follow_stream(s, &first->out);
  return why ? why : sim_advance(s, first->accesses);
}

void sim_raw_stats(const Sim *s, double *out) {
  size_t n = (size_t)s->point_count * s->n_levels * ST_FIELDS;
  for (size_t i = 0; i < n; i++) out[i] = (double)s->stats[i];
}

void sim_refs(const Sim *s, double *out) {
  for (size_t i = 0; i < (size_t)s->point_count * 3; i++) out[i] = (double)s->refs[i];
}

const char *sim_load_first(Sim *s, uint32_t n_first, const double *raw, const double *refs, const double *extras, const double *const *evictors, const size_t *n_evictors) {
  if (n_first != 1 + (s->n_levels - s->n_caches)) return "the first level's hierarchy does not match the follower's";
  for (uint32_t l = 0; l < n_first; l++) {
    uint32_t to = l == 0 ? 0 : s->n_caches + (l - 1);
    for (uint32_t p = 0; p < s->point_count; p++) {
      uint64_t *row = stat_row(s, (int32_t)p, to);
      const double *from = raw + ((size_t)p * n_first + l) * ST_FIELDS;
      for (int f = 0; f < ST_FIELDS; f++) row[f] = (uint64_t)from[f];
    }
    for (int f = 0; f < EX_FIELDS; f++) s->extras[to * EX_FIELDS + f] = (uint64_t)extras[l * EX_FIELDS + f];
    for (size_t k = 0; k < n_evictors[l]; k++) {
      const double *e = evictors[l] + 3 * k;
      if (!(e[0] >= -SIM_OWNER_SHIFT && e[0] < (double)s->point_count && e[1] >= -SIM_OWNER_SHIFT && e[1] < (double)s->point_count && e[2] >= 0))
        return "a stored evictor names no point of the table";
      evictors_add(&s->evictors[to], (int32_t)e[0], (int32_t)e[1], (uint64_t)e[2]);
    }
    if (s->evictors[to].failed) return "out of memory";
  }
  for (size_t i = 0; i < (size_t)s->point_count * 3; i++) s->refs[i] = (uint64_t)refs[i];
  return NULL;
}

static int cell_after(const SimTimelineCell *a, const SimTimelineCell *b) {
  if (a->interval != b->interval) return a->interval > b->interval;
  if (a->level != b->level) return a->level > b->level;
  return a->variable > b->variable;
}

const char *sim_adopt(Sim *s, const Sim *first) {
  uint32_t n_tlb = first->n_levels - first->n_caches;
  if (s->n_levels - s->n_caches != n_tlb || first->n_caches != 1) return "the first level's hierarchy does not match the follower's";
  if (s->point_count != first->point_count) return "the follower's point table is not its first level's";
  if (s->accesses != first->accesses) return "the follower has not followed its first level to the end";
  /* The first level's counts as a stored one's (sim_load_first's arrays), taken as a stored one is. */
  uint32_t n_first = first->n_levels;
  size_t points = s->point_count;
  double *raw = malloc((points * n_first * ST_FIELDS + points * 3 + n_first * EX_FIELDS + 1) * sizeof *raw);
  double *evictors[SIM_MAX_LEVELS] = {0};
  size_t n_evictors[SIM_MAX_LEVELS] = {0};
  const char *why = raw ? NULL : "out of memory";
  for (uint32_t l = 0; l < n_first && !why; l++)
    if (!(evictors[l] = evictors_entries(&first->evictors[l], &n_evictors[l]))) why = "out of memory";
  if (!why) {
    double *refs = raw + points * n_first * ST_FIELDS, *extras = refs + points * 3;
    sim_raw_stats(first, raw);
    sim_refs(first, refs);
    for (uint32_t l = 0; l < n_first; l++)
      for (int f = 0; f < EX_FIELDS; f++) extras[l * EX_FIELDS + f] = (double)first->extras[l * EX_FIELDS + f];
    why = sim_load_first(s, n_first, raw, refs, extras, (const double *const *)evictors, n_evictors);
  }
  free(raw);
  for (uint32_t l = 0; l < n_first; l++) free(evictors[l]);
  if (why) return why;
  /* The timeline: both runs' cells are in (interval, level, variable) order; merged, with the
   * first level's levels renumbered, they are the one run's. */
  size_t total = s->n_cells + first->n_cells;
  SimTimelineCell *merged = malloc((total ? total : 1) * sizeof *merged);
  if (!merged) return "out of memory";
  size_t a = 0, b = 0, n = 0;
  while (a < s->n_cells || b < first->n_cells) {
    SimTimelineCell theirs = {0};
    if (b < first->n_cells) {
      theirs = first->cells[b];
      if (theirs.level > 0) theirs.level = s->n_caches + (theirs.level - 1);
    }
    if (b == first->n_cells || (a < s->n_cells && !cell_after(&s->cells[a], &theirs)))
      merged[n++] = s->cells[a++];
    else {
      merged[n++] = theirs;
      b++;
    }
  }
  free(s->cells);
  s->cells = merged;
  s->n_cells = n;
  s->cap_cells = total ? total : 1;
  return NULL;
}
