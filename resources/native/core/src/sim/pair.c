/* A hierarchy as one Sim or two; see pair.h. */
#include "pair.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pair_init(SimPair *p, const SimLevelSpec *specs, uint32_t n_caches, uint32_t n_tlb, bool compatible, bool fast_path, uint64_t interval,
                      uint64_t max_intervals, uint32_t n_vars, int32_t miss_level, bool split) {
  memset(p, 0, sizeof *p);
  if (n_caches == 0) return "a hierarchy needs at least one cache level";
  p->split = split && n_tlb > 0;
  p->n_caches = n_caches;
  p->n_levels = n_caches + n_tlb;
  p->miss_level = miss_level;
  if (!p->split) return sim_init(&p->main, specs, n_caches, n_tlb, compatible, fast_path, interval, max_intervals, n_vars, miss_level);
  bool tlb_misses = miss_level >= (int32_t)n_caches;
  size_t line = 64, bytes = (sizeof(Sim) + line - 1) / line * line;
  if (!(p->tlb = aligned_alloc(line, bytes))) return "out of memory";
  const char *why = sim_init(&p->main, specs, n_caches, 0, compatible, fast_path, interval, max_intervals, n_vars, tlb_misses ? -1 : miss_level);
  if (why) {
    free(p->tlb);
    p->tlb = NULL;
    return why;
  }
  why = sim_init(p->tlb, specs + n_caches, 0, n_tlb, compatible, fast_path, interval, max_intervals, n_vars, tlb_misses ? miss_level - (int32_t)n_caches : -1);
  if (why) {
    sim_free(&p->main);
    free(p->tlb);
    p->tlb = NULL;
    return why;
  }
  /* Accesses are clipped to the smallest cache line before they are translated too. */
  p->tlb->max_size = p->main.max_size;
  return NULL;
}

static void helper_stop(struct TlbHelper *h);

void pair_free(SimPair *p) {
  if (p->helper) helper_stop(p->helper);
  p->helper = NULL;
  sim_free(&p->main);
  if (p->split) {
    sim_free(p->tlb);
    free(p->tlb);
  }
  p->tlb = NULL;
  p->split = false;
}

const char *pair_set_points(SimPair *p, const uint8_t *kinds, uint32_t count, const int32_t *vars, uint32_t n_vars, const uint32_t *parents) {
  const char *why = sim_set_points(&p->main, kinds, count, vars, n_vars, parents);
  return why || !p->split ? why : sim_set_points(p->tlb, kinds, count, vars, n_vars, parents);
}

typedef struct {
  SimPair *p;
  SimAccesses batch;
  /* The TLB part's reason, copied on its own thread (sim_run's message is thread-local). */
  bool refused;
  char why[200];
} TlbRun;

static void run_tlb(TlbRun *r) {
  const char *why = sim_run(r->p->tlb, r->batch.count, r->batch.points, r->batch.addresses, r->batch.sizes);
  r->refused = why != NULL;
  if (why) snprintf(r->why, sizeof r->why, "%s", why);
}

enum { HELPER_IDLE, HELPER_JOB, HELPER_DONE, HELPER_QUIT };

struct TlbHelper {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  int state;
  TlbRun *job;
};

static void *helper_main(void *arg) {
  struct TlbHelper *h = arg;
  pthread_mutex_lock(&h->lock);
  for (;;) {
    while (h->state != HELPER_JOB && h->state != HELPER_QUIT) pthread_cond_wait(&h->wake, &h->lock);
    if (h->state == HELPER_QUIT) break;
    pthread_mutex_unlock(&h->lock);
    run_tlb(h->job);
    pthread_mutex_lock(&h->lock);
    h->state = HELPER_DONE;
    pthread_cond_signal(&h->done);
  }
  pthread_mutex_unlock(&h->lock);
  return NULL;
}

/* The pair's helper thread, started on first use; NULL if it cannot be (the caller runs both). */
static struct TlbHelper *helper_of(SimPair *p) {
  if (p->helper) return p->helper;
  struct TlbHelper *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  int made = 0; /* how many of the lock and the two conditions exist */
  bool ok = pthread_mutex_init(&h->lock, NULL) == 0 && ++made && pthread_cond_init(&h->wake, NULL) == 0 && ++made && pthread_cond_init(&h->done, NULL) == 0 && ++made;
  pthread_attr_t attr;
  if (ok && pthread_attr_init(&attr) == 0) {
    pthread_attr_setstacksize(&attr, 1 << 18); /* the simulator's loops need little stack */
    ok = pthread_create(&h->thread, &attr, helper_main, h) == 0;
    pthread_attr_destroy(&attr);
  } else
    ok = false;
  if (ok) return p->helper = h;
  if (made > 2) pthread_cond_destroy(&h->done);
  if (made > 1) pthread_cond_destroy(&h->wake);
  if (made > 0) pthread_mutex_destroy(&h->lock);
  free(h);
  return NULL;
}

static void helper_stop(struct TlbHelper *h) {
  pthread_mutex_lock(&h->lock);
  h->state = HELPER_QUIT;
  pthread_cond_signal(&h->wake);
  pthread_mutex_unlock(&h->lock);
  pthread_join(h->thread, NULL);
  pthread_mutex_destroy(&h->lock);
  pthread_cond_destroy(&h->wake);
  pthread_cond_destroy(&h->done);
  free(h);
}

const char *pair_run(SimPair *p, const SimAccesses *b) {
  if (!p->split) return sim_run(&p->main, b->count, b->points, b->addresses, b->sizes);
  TlbRun r = {p, *b, false, ""};
  struct TlbHelper *h = b->count >= PAIR_THREAD_MIN ? helper_of(p) : NULL;
  if (h) {
    pthread_mutex_lock(&h->lock);
    h->job = &r;
    h->state = HELPER_JOB;
    pthread_cond_signal(&h->wake);
    pthread_mutex_unlock(&h->lock);
  } else
    run_tlb(&r);
  const char *why = sim_run(&p->main, b->count, b->points, b->addresses, b->sizes);
  if (why) snprintf(p->why, sizeof p->why, "%s", why);
  if (h) {
    pthread_mutex_lock(&h->lock);
    while (h->state != HELPER_DONE) pthread_cond_wait(&h->done, &h->lock);
    h->state = HELPER_IDLE;
    pthread_mutex_unlock(&h->lock);
  }
  if (!why && !r.refused) return NULL;
  /* Both refused: the access met first is the one an unsplit run reports; at the same access the
   * translation came first. A part that ran out of memory stopped nowhere in particular. */
  bool tlb_first = r.refused && (!why || (!p->tlb->failed && (p->main.failed || p->tlb->stopped_at <= p->main.stopped_at)));
  if (tlb_first) snprintf(p->why, sizeof p->why, "%s", r.why);
  return p->why;
}

void pair_finish(SimPair *p) {
  sim_finish(&p->main);
  if (p->split) sim_finish(p->tlb);
}

size_t pair_bytes(const SimPair *p) { return sim_bytes(&p->main) + (p->split ? sim_bytes(p->tlb) : 0); }

const uint32_t *pair_misses(const SimPair *p, size_t *n) {
  const Sim *s = p->split && p->miss_level >= (int32_t)p->n_caches ? p->tlb : &p->main;
  *n = s->n_misses;
  return s->misses;
}

uint32_t pair_point_count(const SimPair *p) { return p->main.point_count; }

void pair_stats(const SimPair *p, double *out) {
  uint32_t points = p->main.point_count;
  for (uint32_t point = 0; point < points; point++)
    for (uint32_t l = 0; l < p->n_levels; l++) {
      const Sim *s = p->split && l >= p->n_caches ? p->tlb : &p->main;
      uint32_t at = p->split && l >= p->n_caches ? l - p->n_caches : l;
      uint64_t row[ST_FIELDS];
      sim_stat_row(s, point, at, row);
      double *to = out + ((size_t)point * p->n_levels + l) * ST_FIELDS;
      for (int f = 0; f < ST_FIELDS; f++) to[f] = (double)row[f];
    }
}

void pair_extras(const SimPair *p, double *out) {
  for (uint32_t i = 0; i < p->main.n_levels * EX_FIELDS; i++) out[i] = (double)sim_extra(&p->main, i / EX_FIELDS, i % EX_FIELDS);
  if (!p->split) return;
  double *to = out + (size_t)p->n_caches * EX_FIELDS;
  for (uint32_t i = 0; i < p->tlb->n_levels * EX_FIELDS; i++) to[i] = (double)sim_extra(p->tlb, i / EX_FIELDS, i % EX_FIELDS);
}

size_t pair_cells(const SimPair *p) { return p->main.n_cells + (p->split ? p->tlb->n_cells : 0); }

uint64_t pair_interval(const SimPair *p) { return p->main.interval; }

static double *put_cell(double *out, const SimTimelineCell *c, uint32_t level_offset) {
  out[0] = c->level + level_offset;
  out[1] = c->variable;
  out[2] = (double)c->interval;
  out[3] = (double)c->misses;
  return out + 4;
}

void pair_timeline(SimPair *p, double *out) {
  const SimTimelineCell *a = p->main.cells, *b = p->split ? p->tlb->cells : NULL;
  size_t na = p->main.n_cells, nb = p->split ? p->tlb->n_cells : 0, i = 0, j = 0;
  /* Both parts close the same intervals (the same accesses); within one, caches come first. */
  while (i < na || j < nb)
    if (j == nb || (i < na && a[i].interval <= b[j].interval))
      out = put_cell(out, &a[i++], 0);
    else
      out = put_cell(out, &b[j++], p->n_caches);
  if (p->main.max_intervals) return;
  p->main.n_cells = 0;
  if (p->split) p->tlb->n_cells = 0;
}

const SimEvictors *pair_evictors(const SimPair *p, uint32_t level) {
  return p->split && level >= p->n_caches ? &p->tlb->evictors[level - p->n_caches] : &p->main.evictors[level];
}
