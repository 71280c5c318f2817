/* The floor for bench/simulate.mjs: a bare LRU loop over the same trace, in C, with nothing
 * the simulator's metrics need (no per-reference counts, owners, byte vectors, evictors,
 * write-backs). Levels are chained as in the simulator: the data TLB (if any) is looked up
 * for every access; caches in order, a miss at one is a lookup at the next.
 * Usage: lru-floor TRACE ACCESSES SHIFT LEVEL... where LEVEL is cache:SIZE:ASSOC:LINE or
 * tlb:ENTRIES:ASSOC:PAGE and TRACE holds one batch of u64 addresses, replayed with each
 * round's addresses moved up SHIFT bytes (as the bench does) until ACCESSES.
 * Prints: seconds, then the misses of each level. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  uint64_t *tags;
  uint32_t shift, assoc, mask;
  uint64_t misses;
  int tlb;
} Level;

static int lookup(Level *v, uint64_t block) {
  uint64_t *set = v->tags + (uint64_t)((uint32_t)block & v->mask) * v->assoc;
  if (set[0] == block) return 0;
  uint32_t i = 1;
  while (i < v->assoc && set[i] != block) i++;
  int miss = i == v->assoc;
  if (miss) i--;
  for (; i > 0; i--) set[i] = set[i - 1];
  set[0] = block;
  return miss;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: lru-floor TRACE ACCESSES SHIFT LEVEL...\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) return perror(argv[1]), 1;
  fseek(f, 0, SEEK_END);
  size_t n = (size_t)ftell(f) / 8;
  rewind(f);
  uint64_t *base = malloc(n * 8), *batch = malloc(n * 8);
  if (!base || !batch || fread(base, 8, n, f) != n) return fprintf(stderr, "cannot read %s\n", argv[1]), 1;
  uint64_t accesses = strtoull(argv[2], NULL, 10), shift = strtoull(argv[3], NULL, 10);
  int nl = argc - 4;
  Level levels[8];
  for (int l = 0; l < nl && l < 8; l++) {
    char kind[8];
    uint64_t a, assoc, line;
    if (sscanf(argv[4 + l], "%7[^:]:%lu:%lu:%lu", kind, &a, &assoc, &line) != 4) return fprintf(stderr, "bad level %s\n", argv[4 + l]), 2;
    Level *v = &levels[l];
    v->tlb = strcmp(kind, "tlb") == 0;
    uint64_t sets = v->tlb ? a / assoc : a / (assoc * line);
    v->assoc = (uint32_t)assoc;
    v->mask = (uint32_t)sets - 1;
    v->shift = (uint32_t)__builtin_ctzll(line);
    v->misses = 0;
    v->tags = malloc(sets * assoc * 8);
    memset(v->tags, 0xff, sets * assoc * 8);
  }
  struct timespec t0, t1;
  double spent = 0;
  for (uint64_t done = 0, round = 0; done < accesses; done += n, round++) {
    for (size_t i = 0; i < n; i++) batch[i] = base[i] + round * shift;
    /* Only the simulation is timed, as the bench times the simulator. */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < n; i++) {
      uint64_t address = batch[i];
      for (int l = 0; l < nl; l++) {
        if (!levels[l].tlb) continue;
        if (!lookup(&levels[l], address >> levels[l].shift)) break;
        levels[l].misses++;
      }
      for (int l = 0; l < nl; l++) {
        if (levels[l].tlb) continue;
        if (!lookup(&levels[l], address >> levels[l].shift)) break;
        levels[l].misses++;
      }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    spent += (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  }
  printf("%.6f", spent);
  for (int l = 0; l < nl; l++) printf(" %lu", levels[l].misses);
  printf("\n");
  return 0;
}
