/* A memory hierarchy (cache levels, then data TLB levels) driven by batches of accesses,
 * with MHSim's per-reference metrics: the production simulator. Its rules are those of the
 * reference model src/main/simulate/hierarchy.ts (README there), which the differential
 * tests hold it to: identical counts, extras, evictors, timelines and miss streams. */
#ifndef STRIDE_SIM_HIERARCHY_H
#define STRIDE_SIM_HIERARCHY_H
#include "context.h"
#include "evictors.h"
#include "level.h"
#include "outbound.h"

/* Per point x level fields, as STAT_* in hierarchy.ts. */
enum { ST_READS, ST_WRITES, ST_READ_MISSES, ST_WRITE_MISSES, ST_TEMPORAL, ST_SPATIAL, ST_USED_BYTES, ST_LINE_ENDS, ST_EVICTIONS, ST_FIELDS };
/* Per level counters that belong to no reference, as EXTRA_*. */
enum { EX_WRITEBACKS, EX_PREFETCHES, EX_USEFUL_PREFETCHES, EX_BACK_INVALIDATIONS, EX_EVICTIONS, EX_FIELDS };
enum { PF_NONE = 0, PF_NEXT = 1, PF_STRIDE = 2 };
enum { KIND_READ = 0, KIND_WRITE = 1, KIND_MODIFY = 2 };
#define OWNER_PREFETCH (-2)
#define OWNER_WRITEBACK (-3)
/* The rest of the program: a line brought in, or an eviction made, by a context access. */
#define OWNER_CONTEXT (-4)
#define SIM_MAX_LEVELS 16

/* One level as configured (caches: every field; TLB levels: geometry and policy). */
typedef struct {
  double size;
  uint32_t assoc, line_size, policy, seed;
  uint8_t write_through, write_allocate, inclusive, prefetch;
} SimLevelSpec;

typedef struct {
  uint32_t level, variable;
  uint64_t interval, misses;
} SimTimelineCell;

typedef struct {
  uint32_t n_levels, n_caches;
  SimLevel levels[SIM_MAX_LEVELS];
  SimEvictors evictors[SIM_MAX_LEVELS];
  uint8_t write_through[SIM_MAX_LEVELS], write_allocate[SIM_MAX_LEVELS], inclusive[SIM_MAX_LEVELS], prefetch[SIM_MAX_LEVELS];
  bool compatible, fused, any_inclusive;
  uint32_t max_size;
  uint64_t extras[SIM_MAX_LEVELS * EX_FIELDS];
  /* stats[(point * n_levels + level) * ST_FIELDS + field]. A fused Sim leaves some fields to be
   * worked out when read (sim_stat_row, sim_extra): fewer stores per access. */
  uint64_t *stats;
  /* Fused: references per point and kind, refs[point * 3 + kind]. They give every level's
   * reads and writes: the first cache level and the first TLB level see each reference (a
   * modify as a read, then, outside Cachegrind-compatible mode, a write); a later level sees
   * exactly the misses of the one before. */
  uint64_t *refs;
  uint32_t point_count;
  uint8_t *kinds;
  /* Stride prefetcher state per point (NaN: no access yet), as doubles like the model's. */
  double *last_address, *last_stride;
  /* Whose prefetcher state a point uses (NULL: its own). A point split per data structure
   * (src/main/simulate/touch-hierarchy.ts) keeps its reference's one detector. */
  uint32_t *parents;
  /* Timeline: variable per point (NULL: none), misses per level x variable this interval. */
  int32_t *point_vars;
  uint32_t n_point_vars, n_vars;
  uint64_t interval; /* 0: no timeline intervals */
  /* Adaptive intervals (> 0): the interval doubles, its cells merged pairwise, each time
   * 2 x max_intervals have closed, so the timeline stays bounded before the total is known. */
  uint64_t max_intervals;
  uint64_t until_boundary, interval_index;
  uint64_t *current;
  /* One bit per current[] entry counted this interval: closing it reads these words, not every
   * entry (a per-point timeline has levels x points of them), and meets the entries in order. */
  uint64_t *counted;
  SimTimelineCell *cells;
  size_t n_cells, cap_cells;
  /* Miss stream: index in the batch of every miss at miss_level (-1: none kept). */
  int32_t miss_level;
  uint32_t *misses;
  size_t n_misses, cap_misses;
  /* Capturing (sim_capture): what leaves the first cache level for the one below (outbound.h). */
  bool capture;
  SimOutbound out;
  /* The access being simulated: its point owns what it brings in. */
  int32_t point;
  uint32_t index;
  uint64_t accesses;
  bool failed;
  /* The batch index of the access a refused batch stopped at. */
  uint32_t stopped_at;
} Sim;

/* A batch of accesses as it crosses from JavaScript: per access its point, address and size. */
typedef struct {
  uint32_t count;
  const uint32_t *points;
  const double *addresses;
  const uint16_t *sizes;
} SimAccesses;

/* NULL on success, else what is wrong (the Sim is then freed). n_caches 0: the TLB levels of a
 * hierarchy whose caches another Sim runs (pair.h); its max_size is then set to theirs. */
const char *sim_init(Sim *s, const SimLevelSpec *specs, uint32_t n_caches, uint32_t n_tlb, bool compatible, bool fast_path, uint64_t interval,
                     uint64_t max_intervals, uint32_t n_vars, int32_t miss_level);
void sim_free(Sim *s);
/* The point table (kinds, and variables per point or NULL); it may only grow. A variable at
 * or beyond the count given to sim_init widens the timeline (the counts so far are kept).
 * `parents` (NULL: each its own): per point, the point whose stride-prefetcher state it uses. */
const char *sim_set_points(Sim *s, const uint8_t *kinds, uint32_t count, const int32_t *vars, uint32_t n_vars, const uint32_t *parents);
/* NULL on success, else why the batch was refused (a point outside the table, a straddle
 * over more than two lines, out of memory). */
const char *sim_run(Sim *s, uint32_t count, const uint32_t *points, const double *addresses, const uint16_t *sizes);
void sim_finish(Sim *s);
/* A point's counts at a level, as the reference model keeps them (ST_FIELDS values). */
void sim_stat_row(const Sim *s, uint32_t point, uint32_t level, uint64_t *out);
/* A level's count that belongs to no reference (an EX_ field). */
uint64_t sim_extra(const Sim *s, uint32_t level, uint32_t field);
size_t sim_bytes(const Sim *s);

/* A first level simulated once for several hierarchies that share it (and their TLB levels):
 * sim_capture makes a fused Sim of one cache level (and TLB levels) keep its outbound stream;
 * a follower, the whole hierarchy of one of them, runs its lower cache levels over that stream
 * (sim_follow, after each batch of the first level's) and, both finished, takes the first
 * level's and the TLB levels' counts, evictors and timeline from it (sim_adopt): the run a
 * replay of the trace through the follower gives, number for number. NULL, or why not. */
const char *sim_capture(Sim *s);
/* The captured stream, emptied (once every follower has run over it). */
void sim_capture_clear(Sim *s);
const char *sim_follow(Sim *s, const Sim *first);
const char *sim_adopt(Sim *s, const Sim *first);
/* The same from a stream in memory (another Sim's capture), the accesses up to its last event;
 * then sim_advance to the run's end. */
const char *sim_follow_stream(Sim *s, const SimOutbound *o);
/* The same from outbound_encode's bytes, each event run as it is read (no arrays between). A
 * block found damaged part-way leaves the follower part-way: the caller discards it. */
const char *sim_follow_encoded(Sim *s, const uint8_t *data, size_t length);
const char *sim_advance(Sim *s, uint64_t accesses);
/* Per point x level x ST_FIELDS as kept (not as sim_stat_row derives them), and per point x kind
 * the references: what sim_load_first puts back. */
void sim_raw_stats(const Sim *s, double *out);
void sim_refs(const Sim *s, double *out);
/* A stored first level (its cache level and n_first - 1 TLB levels: raw rows, refs, extras,
 * evictor triples per level) as this follower's first and TLB levels; the timeline is the
 * caller's to merge. NULL, or why not. */
const char *sim_load_first(Sim *s, uint32_t n_first, const double *raw, const double *refs, const double *extras, const double *const *evictors, const size_t *n_evictors);
#endif
