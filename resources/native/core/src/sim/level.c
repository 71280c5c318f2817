/* One set-associative level; see level.h and src/main/simulate/cache-level.ts. */
/* Strict aliasing here (binding.gyp turns it off for the core): nothing in this file puns
 * types, and without it every counter store makes the compiler reload the level's fields. */
#pragma GCC optimize("strict-aliasing")
#include "level.h"
#include <stdlib.h>
#include <string.h>

const char *level_init(SimLevel *v, double size, uint32_t assoc, uint32_t line_size, uint32_t policy, uint32_t seed, bool track_bytes) {
  memset(v, 0, sizeof *v);
  if (line_size == 0 || (line_size & (line_size - 1)) != 0) return "line size must be a power of two";
  if (assoc == 0) return "associativity must be at least 1";
  double sets = size / ((double)assoc * line_size);
  if (!(sets >= 1 && sets <= 4294967296.0 / 2) || sets != (double)(uint64_t)sets || ((uint64_t)sets & ((uint64_t)sets - 1)) != 0)
    return "size / (assoc x line) must be a power of two";
  if (policy > SIM_RANDOM) return "unknown replacement policy";
  if (policy == SIM_PLRU && (assoc & (assoc - 1)) != 0) return "tree-PLRU needs a power-of-two associativity";
  v->line_size = line_size;
  while ((1u << v->line_shift) < line_size) v->line_shift++;
  v->assoc = assoc;
  v->set_mask = (uint32_t)sets - 1;
  v->policy = policy;
  v->words = track_bytes ? (line_size + 63) / 64 : 0;
  size_t n = (size_t)sets * assoc;
  v->positions = n;
  bool lazy = n > LEVEL_EAGER_POSITIONS;
  v->tags = lazy ? calloc(n, sizeof *v->tags) : malloc(n * sizeof *v->tags);
  v->slots = lazy ? calloc(n, sizeof *v->slots) : malloc(n * sizeof *v->slots);
  v->ready = lazy ? calloc(((size_t)sets + 63) / 64, 8) : NULL;
  v->stamps = policy == SIM_FIFO ? calloc(n, sizeof *v->stamps) : NULL;
  v->tree = policy == SIM_PLRU ? calloc(n, 1) : NULL;
  v->stride = sizeof(SimLine) + 8 * (size_t)v->words;
  v->lines = calloc(n, v->stride);
  if (!v->tags || !v->slots || (policy == SIM_FIFO && !v->stamps) || (policy == SIM_PLRU && !v->tree) || !v->lines || (lazy && !v->ready)) {
    level_free(v);
    return "out of memory";
  }
  if (!lazy)
    for (size_t i = 0; i < n; i++) {
      v->tags[i] = SIM_EMPTY;
      v->slots[i] = (uint32_t)i;
      line_at(v, i)->owner = -1;
    }
  /* xorshift32 must not start at 0. */
  v->rng = seed ? seed : 1;
  return NULL;
}

/* A set as level_init makes it, where the rest of its level (calloc'd) is zeros. */
void level_init_set(SimLevel *v, uint32_t set) {
  uint64_t base = (uint64_t)set * v->assoc;
  for (uint64_t i = base; i < base + v->assoc; i++) {
    v->tags[i] = SIM_EMPTY;
    v->slots[i] = (uint32_t)i;
    line_at(v, i)->owner = -1;
  }
  v->ready[set >> 6] |= (uint64_t)1 << (set & 63);
}

void level_free(SimLevel *v) {
  free(v->tags);
  free(v->slots);
  free(v->stamps);
  free(v->tree);
  free(v->lines);
  free(v->ready);
  v->ready = NULL;
  v->tags = NULL;
  v->slots = NULL;
  v->stamps = NULL;
  v->tree = NULL;
  v->lines = NULL;
}

size_t level_bytes(const SimLevel *v) {
  return v->positions * (8 + 4 + v->stride + (v->stamps ? 8 : 0) + (v->tree ? 1 : 0)) + (v->ready ? (v->positions / v->assoc + 63) / 64 * 8 : 0);
}

/* The hardware popcount where the machine has one (every x86-64 since about 2008), chosen at
 * load time: the portable fallback is a library call per word. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
__attribute__((target_clones("popcnt", "default")))
#endif
#endif
uint32_t level_used_bytes(const SimLevel *v, uint32_t slot) {
  const uint64_t *used = line_at(v, slot)->used;
  uint32_t n = 0;
  for (uint32_t k = 0; k < v->words; k++) n += (uint32_t)__builtin_popcountll(used[k]);
  return n;
}

static void leave(SimLevel *v, uint32_t slot, uint64_t block) {
  v->has_victim = true;
  v->victim_block = block;
  v->victim_owner = line_at(v, slot)->owner;
  v->victim_dirty = line_at(v, slot)->dirty;
  v->victim_used = v->words ? level_used_bytes(v, slot) : 0;
}

/* A demand use of the tag at position base + way. */
static void use(SimLevel *v, uint64_t base, uint32_t way) {
  if (v->policy == SIM_LRU) {
    if (way == 0) return;
    uint64_t tag = v->tags[base + way];
    uint32_t slot = v->slots[base + way];
    for (uint64_t i = base + way; i > base; i--) {
      v->tags[i] = v->tags[i - 1];
      v->slots[i] = v->slots[i - 1];
    }
    v->tags[base] = tag;
    v->slots[base] = slot;
  } else if (v->policy == SIM_PLRU) {
    /* Walk root to leaf, pointing each node away from the way just used. */
    uint32_t node = 1;
    for (uint32_t half = v->assoc >> 1; half > 0; half >>= 1) {
      uint32_t right = (way & half) ? 1 : 0;
      v->tree[base + node] = right ? 0 : 1;
      node = 2 * node + right;
    }
  }
}

/* Victim way (not LRU): the first empty way, else the policy's choice. */
static uint32_t victim_way(SimLevel *v, uint64_t base) {
  for (uint32_t w = 0; w < v->assoc; w++)
    if (v->tags[base + w] == SIM_EMPTY) return w;
  if (v->policy == SIM_FIFO) {
    uint32_t best = 0;
    uint64_t min = v->stamps[base];
    for (uint32_t w = 1; w < v->assoc; w++)
      if (v->stamps[base + w] < min) {
        min = v->stamps[base + w];
        best = w;
      }
    return best;
  }
  if (v->policy == SIM_PLRU) {
    uint32_t node = 1;
    while (node < v->assoc) node = 2 * node + v->tree[base + node];
    return node - v->assoc;
  }
  uint32_t x = v->rng;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  v->rng = x;
  return x % v->assoc;
}

static void fill_at(SimLevel *v, uint64_t base, uint64_t block, int32_t owner, bool write) {
  uint32_t slot;
  if (v->policy == SIM_LRU) {
    /* The last position is empty or least recent: shift the set down one, new tag first. */
    uint64_t tail = base + v->assoc - 1;
    slot = v->slots[tail];
    if (v->tags[tail] != SIM_EMPTY) leave(v, slot, v->tags[tail]);
    for (uint64_t i = tail; i > base; i--) {
      v->tags[i] = v->tags[i - 1];
      v->slots[i] = v->slots[i - 1];
    }
    v->tags[base] = block;
    v->slots[base] = slot;
  } else {
    uint32_t w = victim_way(v, base);
    slot = (uint32_t)(base + w);
    if (v->tags[slot] != SIM_EMPTY) leave(v, slot, v->tags[slot]);
    v->tags[slot] = block;
    if (v->policy == SIM_FIFO)
      v->stamps[slot] = ++v->clock;
    else
      use(v, base, w);
  }
  line_at(v, slot)->owner = owner;
  line_at(v, slot)->dirty = write ? 1 : 0;
  line_at(v, slot)->prefetched = 0;
  level_clear_used(v, slot);
  v->slot = slot;
}

/* The slot of block's line in the set at base after a demand use of it (recency, dirty), or -1. */
static inline int64_t use_resident(SimLevel *v, uint64_t base, uint64_t block, bool write) {
  for (uint32_t w = 0; w < v->assoc; w++) {
    if (v->tags[base + w] != block) continue;
    uint32_t slot = v->slots[base + w];
    v->slot = slot;
    use(v, base, w);
    if (write) line_at(v, slot)->dirty = 1;
    return slot;
  }
  return -1;
}

int level_lookup(SimLevel *v, uint64_t block, uint32_t lo, uint32_t hi, bool write, int32_t owner, bool allocate) {
  uint64_t base = level_base(v, block);
  v->has_victim = false;
  int64_t slot = use_resident(v, base, block, write);
  if (slot >= 0) return v->words == 0 || level_mark(v, (uint32_t)slot, lo, hi) ? SIM_HIT_TEMPORAL : SIM_HIT_SPATIAL;
  if (!allocate) return SIM_MISS;
  fill_at(v, base, block, owner, write);
  if (v->words) level_mark(v, v->slot, lo, hi);
  return SIM_MISS;
}

int level_touch(SimLevel *v, uint64_t block, bool write, int32_t owner, bool allocate) {
  uint64_t base = level_base(v, block);
  v->has_victim = false;
  if (use_resident(v, base, block, write) >= 0) return SIM_HIT_SPATIAL;
  if (!allocate) return SIM_MISS;
  fill_at(v, base, block, owner, write);
  return SIM_MISS;
}

int64_t level_find(SimLevel *v, uint64_t block) {
  uint64_t base = level_base(v, block);
  for (uint32_t w = 0; w < v->assoc; w++)
    if (v->tags[base + w] == block) return (int64_t)(base + w);
  return -1;
}

void level_set_dirty(SimLevel *v, uint64_t block) {
  int64_t at = level_find(v, block);
  if (at != -1) line_at(v, v->slots[at])->dirty = 1;
}

void level_fill(SimLevel *v, uint64_t block, int32_t owner, bool write) {
  v->has_victim = false;
  fill_at(v, level_base(v, block), block, owner, write);
}

bool level_invalidate(SimLevel *v, uint64_t block) {
  uint64_t base = level_base(v, block);
  v->has_victim = false;
  for (uint32_t w = 0; w < v->assoc; w++) {
    if (v->tags[base + w] != block) continue;
    uint32_t slot = v->slots[base + w];
    leave(v, slot, block);
    if (v->policy == SIM_LRU) {
      /* Keep empties at the end of the recency list: the rest keep their order. */
      uint64_t tail = base + v->assoc - 1;
      for (uint64_t i = base + w; i < tail; i++) {
        v->tags[i] = v->tags[i + 1];
        v->slots[i] = v->slots[i + 1];
      }
      v->tags[tail] = SIM_EMPTY;
      v->slots[tail] = slot;
    } else {
      v->tags[base + w] = SIM_EMPTY;
      if (v->policy == SIM_FIFO) v->stamps[base + w] = 0;
    }
    return true;
  }
  return false;
}
