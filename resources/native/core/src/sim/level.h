/* One set-associative level (a cache, or a TLB with pages as lines): the C form of
 * src/main/simulate/cache-level.ts, rule for rule (that file is the reference model the
 * differential tests compare against). LRU keeps each set's tags most recent first; FIFO,
 * tree-PLRU and random keep a tag in its way. Per-line state lives at a slot, and
 * slots[position] points at it, so moving a tag moves two numbers, not the line. */
#ifndef STRIDE_SIM_LEVEL_H
#define STRIDE_SIM_LEVEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An empty position. The reference model uses -1, which a block computed from a negative
 * prefetch target can also equal; as a 64-bit pattern this is the same value. */
#define SIM_EMPTY UINT64_MAX

/* Levels of more positions than this make each set on its first use (SimLevel.ready). */
#define LEVEL_EAGER_POSITIONS ((size_t)1 << 16)

enum { SIM_LRU = 0, SIM_FIFO = 1, SIM_PLRU = 2, SIM_RANDOM = 3 };
enum { SIM_HIT_TEMPORAL = 0, SIM_HIT_SPATIAL = 1, SIM_MISS = 2 };

/* The state of the line at a slot, in one record with its byte bit vector (`words` 64-bit
 * words, bit i of word k = byte 64k + i used): a simulated access or eviction touches one
 * place in memory for all of it, which counts once the levels outgrow the host's caches. */
typedef struct {
  int32_t owner; /* the point that brought it in (>= 0), or a negative owner code */
  uint8_t dirty;
  uint8_t prefetched; /* 1 while a prefetched line has not been used by a demand access */
  uint64_t used[];
} SimLine;

typedef struct {
  uint32_t line_size, line_shift, assoc, set_mask, policy;
  /* 64-bit words per line of the byte bit vector (0: not kept, a TLB). */
  uint32_t words;
  size_t positions;
  uint64_t *tags;
  uint32_t *slots;
  uint64_t *stamps; /* FIFO fill stamps per way */
  uint8_t *tree;    /* PLRU tree bits, assoc per set (node 1..assoc-1) */
  /* Records of `stride` bytes, one per slot. */
  char *lines;
  size_t stride;
  uint64_t clock;
  uint32_t rng;
  /* What the last lookup/fill/invalidate evicted (has_victim false: nothing). */
  bool has_victim;
  uint64_t victim_block;
  int32_t victim_owner;
  uint32_t victim_used;
  uint8_t victim_dirty;
  /* Slot the last lookup hit or filled. */
  uint32_t slot;
  /* A bit per set made empty, for a level too large to set up whole (NULL: all are): a 256 MiB
   * last level has 4 M lines, and writing them all touched 112 MB at every simulation's start
   * (a what-if's and a short trace's cost), while a program touches a fraction of its sets. */
  uint64_t *ready;
} SimLevel;

/* NULL on success, else what is wrong with the geometry. */
const char *level_init(SimLevel *v, double size, uint32_t assoc, uint32_t line_size, uint32_t policy, uint32_t seed, bool track_bytes);
void level_free(SimLevel *v);
size_t level_bytes(const SimLevel *v);

static inline SimLine *line_at(const SimLevel *v, size_t slot) { return (SimLine *)(v->lines + slot * v->stride); }

void level_init_set(SimLevel *v, uint32_t set);

static inline bool level_set_ready(const SimLevel *v, uint32_t set) { return !v->ready || (v->ready[set >> 6] >> (set & 63) & 1); }

/* The first position of block's set, which is made empty on its first use (a large level's). */
static inline uint64_t level_base(SimLevel *v, uint64_t block) {
  uint32_t set = (uint32_t)block & v->set_mask;
  if (__builtin_expect(!level_set_ready(v, set), 0)) level_init_set(v, set);
  return (uint64_t)set * v->assoc;
}

int level_lookup(SimLevel *v, uint64_t block, uint32_t lo, uint32_t hi, bool write, int32_t owner, bool allocate);
/* Position of a resident block, or -1 (no recency change). */
int64_t level_find(SimLevel *v, uint64_t block);
void level_set_dirty(SimLevel *v, uint64_t block);
/* level_lookup for an access of no point (a context access): recency, dirty bit and fill as a
 * demand access, but no byte marked used (a fresh line's bytes are cleared). */
int level_touch(SimLevel *v, uint64_t block, bool write, int32_t owner, bool allocate);
void level_fill(SimLevel *v, uint64_t block, int32_t owner, bool write);
bool level_invalidate(SimLevel *v, uint64_t block);
uint32_t level_used_bytes(const SimLevel *v, uint32_t slot);
/* Sets bits lo..hi (offsets in the line) of the slot's byte vector; true if they were all
 * set already. (2 << 63) wraps to 0, which is the mask needed for bit 63. */
static inline bool level_mark(SimLevel *v, uint32_t slot, uint32_t lo, uint32_t hi) {
  uint64_t *used = line_at(v, slot)->used;
  uint32_t word_lo = lo >> 6, word_hi = hi >> 6;
  if (word_lo == word_hi) {
    uint64_t mask = (2ull << (hi & 63)) - (1ull << (lo & 63));
    uint64_t old = used[word_lo];
    if ((old & mask) == mask) return true;
    used[word_lo] = old | mask;
    return false;
  }
  bool all = true;
  for (uint32_t word = word_lo; word <= word_hi; word++) {
    uint32_t from = word == word_lo ? lo & 63 : 0, to = word == word_hi ? hi & 63 : 63;
    uint64_t mask = (2ull << to) - (1ull << from);
    uint64_t old = used[word];
    if ((old & mask) != mask) {
      all = false;
      used[word] = old | mask;
    }
  }
  return all;
}

/* Word by word, not memset: most lines are one word, and the call cost more than the store. */
static inline void level_clear_used(SimLevel *v, uint32_t slot) {
  uint64_t *used = line_at(v, slot)->used;
  uint32_t words = v->words;
  if (words == 1) {
    used[0] = 0;
    return;
  }
  for (uint32_t k = 0; k < words; k++) {
    __asm__("" : "+r"(k)); /* keeps the compiler from turning the loop back into memset */
    used[k] = 0;
  }
}

/* A fresh line's byte vector: bits lo..hi only (level_clear_used, then level_mark, in one
 * store for a line of one word: hi < 64 there). */
static inline void level_reset_mark(SimLevel *v, uint32_t slot, uint32_t lo, uint32_t hi) {
  if (v->words == 1) {
    line_at(v, slot)->used[0] = (2ull << hi) - (1ull << lo);
    return;
  }
  level_clear_used(v, slot);
  level_mark(v, slot, lo, hi);
}

#endif
