/* A hierarchy as the exports see it: one Sim, or, split, two: its caches and its data TLB
 * levels. Nothing the rules compute crosses between the two (a translation never changes a
 * cache, a cache never a TLB), so each keeps its own counts, evictors and timeline, and a
 * batch runs through both at once on two threads. The results are put back together in the
 * one-Sim layouts (levels: caches first, then TLB levels), identical to an unsplit run.
 * Split only with a core to spare (the caller decides: NativeHierarchyOptions.tlbThread): the
 * two passes over a batch cost more CPU in all than one. */
#ifndef STRIDE_SIM_PAIR_H
#define STRIDE_SIM_PAIR_H
#include "hierarchy.h"

typedef struct {
  Sim main; /* every level; split: the caches */
  /* Split: the TLB levels, in host cache lines of their own. Beside `main` in one struct, the
   * two threads' per-access writes shared lines, and split ran slower than one thread. */
  Sim *tlb;
  bool split;
  uint32_t n_caches, n_levels;
  int32_t miss_level;
  /* The thread the TLB part runs on, started at its first long batch and kept: a thread
   * created per batch cost ~60 us, 6% of a 65K-access batch that mostly hits. */
  struct TlbHelper *helper;
  /* A refused batch's reason, copied here from the thread that refused it. */
  char why[200];
} SimPair;

/* As sim_init; `split` is honoured when the hierarchy has TLB levels. NULL on success, else
 * what is wrong (the pair is then freed). */
const char *pair_init(SimPair *p, const SimLevelSpec *specs, uint32_t n_caches, uint32_t n_tlb, bool compatible, bool fast_path, uint64_t interval,
                      uint64_t max_intervals, uint32_t n_vars, int32_t miss_level, bool split);
void pair_free(SimPair *p);
const char *pair_set_points(SimPair *p, const uint8_t *kinds, uint32_t count, const int32_t *vars, uint32_t n_vars, const uint32_t *parents);
/* As sim_run. Split, a batch of at least PAIR_THREAD_MIN accesses runs its TLB part on the pair's
 * helper thread meanwhile (fewer: one after the other, the hand-over would cost more than it
 * saves; so does a helper that could not be started). One caller at a time. */
const char *pair_run(SimPair *p, const SimAccesses *batch);
void pair_finish(SimPair *p);
size_t pair_bytes(const SimPair *p);
/* The last batch's misses at miss_level: *n indices. */
const uint32_t *pair_misses(const SimPair *p, size_t *n);
uint32_t pair_point_count(const SimPair *p);
/* point_count x n_levels x ST_FIELDS counts, and n_levels x EX_FIELDS, as doubles. */
void pair_stats(const SimPair *p, double *out);
void pair_extras(const SimPair *p, double *out);
/* Timeline cells held (pair_timeline's rows). */
size_t pair_cells(const SimPair *p);
uint64_t pair_interval(const SimPair *p);
/* The cells as (level, variable, interval, misses) rows in (interval, level, variable) order;
 * without adaptive intervals they are dropped once read, as the export promises. */
void pair_timeline(SimPair *p, double *out);
const SimEvictors *pair_evictors(const SimPair *p, uint32_t level);

#define PAIR_THREAD_MIN 16384
#endif
