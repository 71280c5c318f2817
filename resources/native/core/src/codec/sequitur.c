/* SEQUITUR (Nevill-Manning & Witten 1997), a line-by-line port of sequitur.ts: symbols are
 * nodes of doubly linked lists in a pool (one cache line holds a node's links and value),
 * each rule a circular list through its guard, and the digram index an open-addressing table
 * with backward-shift deletion. A terminal t is t,
 * rule r's non-terminal is -(r + 1), rule r's guard GUARD_BASE - r. Appended symbols are kept,
 * and the grammar is built when it is written, for an order no longer than
 * SEQUITUR_LONGEST_ORDER (sequitur.ts writeOrder and the encoder's order buffer, the reference). */
/* The node and index stores are int32/uint64; with strict aliasing the compiler keeps the
 * array pointers and the index shape in registers across them (the module is built with
 * -fno-strict-aliasing; nothing here puns types). */
#pragma GCC optimize("strict-aliasing")
#include "sequitur.h"
#include <stdlib.h>
#include <string.h>
#include "pages.h"

#define NIL (-1)
#define GUARD_BASE (-0x40000000)
#define MIN_INDEX 1024
#define HOT static inline __attribute__((always_inline))

/* An empty index of `size` slots (a power of two). */
static bool set_index_size(Sequitur *s, uint32_t size) {
  struct DigramSlot *slots = pages_alloc((size_t)size * sizeof *slots);
  if (!slots) return false;
  for (uint32_t i = 0; i < size; i++) slots[i].node = NIL;
  pages_free(s->slots);
  s->slots = slots;
  s->mask = size - 1;
  s->shift = 64 - (size_t)__builtin_ctz(size);
  s->digrams = 0;
  return true;
}

bool sequitur_init(Sequitur *s, int32_t capacity) {
  memset(s, 0, sizeof *s);
  s->capacity = capacity;
  size_t nodes = 2 * (size_t)capacity + 16;
  size_t rules = (size_t)capacity + 2;
  s->nodes = pages_alloc(nodes * sizeof *s->nodes);
  s->free_nodes = pages_alloc(nodes * 4);
  s->rule_guard = pages_alloc(rules * 4);
  s->rule_refs = pages_alloc(rules * 4);
  s->free_rules = pages_alloc(rules * 4);
  s->new_id = pages_alloc(rules * 4);
  s->order = pages_alloc(rules * 4);
  s->appended = pages_alloc(nodes * 4); /* a chunk's folded order is at most its events */
  if (!s->nodes || !s->free_nodes || !s->rule_guard || !s->rule_refs ||
      !s->free_rules || !s->new_id || !s->order || !s->appended || !set_index_size(s, MIN_INDEX)) {
    sequitur_free(s);
    return false;
  }
  sequitur_reset(s);
  return true;
}

void sequitur_free(Sequitur *s) {
  int32_t **arrays[] = {&s->free_nodes, &s->rule_guard, &s->rule_refs,
                        &s->free_rules, &s->new_id, &s->order, &s->appended};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
    pages_free(*arrays[i]);
    *arrays[i] = NULL;
  }
  pages_free(s->slots);
  pages_free(s->nodes);
  s->slots = NULL;
  s->nodes = NULL;
}

HOT int32_t new_node(Sequitur *s) {
  if (s->free_node_count > 0) return s->free_nodes[--s->free_node_count];
  return s->node_top++;
}

HOT int32_t new_symbol(Sequitur *s, int32_t v) {
  int32_t n = new_node(s);
  s->nodes[n].value = v;
  s->nodes[n].next = NIL;
  s->nodes[n].prev = NIL;
  s->nodes[n].indexed = 0;
  if (v < 0) s->rule_refs[-v - 1]++;
  return n;
}

static int32_t new_rule(Sequitur *s) {
  int32_t r = s->free_rule_count > 0 ? s->free_rules[--s->free_rule_count] : s->rule_top++;
  int32_t g = new_node(s);
  s->nodes[g].value = GUARD_BASE - r;
  s->nodes[g].next = g;
  s->nodes[g].prev = g;
  s->nodes[g].indexed = 0;
  s->rule_guard[r] = g;
  s->rule_refs[r] = 0;
  return r;
}

static void free_rule(Sequitur *s, int32_t r) {
  s->free_nodes[s->free_node_count++] = s->rule_guard[r];
  s->free_rules[s->free_rule_count++] = r;
}

static inline bool is_guard(const Sequitur *s, int32_t n) { return s->nodes[n].value <= GUARD_BASE; }

/* ---- the digram index ---- */

static inline uint64_t pack(int32_t a, int32_t b) { return (uint64_t)(uint32_t)a << 32 | (uint32_t)b; }

static inline uint32_t home(const Sequitur *s, uint64_t key) { return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> s->shift); }

/* Slot holding digram `key`, or the empty slot where it would go. */
HOT uint32_t find(const Sequitur *s, uint64_t key) {
  uint32_t i = home(s, key);
  for (;;) {
    if (s->slots[i].node == NIL || s->slots[i].key == key) return i;
    i = (i + 1) & s->mask;
  }
}

/* Doubles the index when it is half full (memory failure keeps it as is: still correct, slower). */
static void grow_index(Sequitur *s) {
  uint32_t size = s->mask + 1;
  if (s->digrams * 2 <= size) return;
  struct DigramSlot *old = s->slots;
  s->slots = NULL;
  uint32_t digrams = s->digrams;
  if (!set_index_size(s, size * 2)) {
    s->slots = old;
    return;
  }
  for (uint32_t j = 0; j < size; j++)
    if (old[j].node != NIL) s->slots[find(s, old[j].key)] = old[j];
  s->digrams = digrams;
  pages_free(old);
}

HOT void put(Sequitur *s, uint32_t i, uint64_t key, int32_t n) {
  int32_t old = s->slots[i].node;
  if (old == NIL) s->digrams++;
  else s->nodes[old].indexed--;
  s->nodes[n].indexed++;
  s->slots[i].key = key;
  s->slots[i].node = n;
  if (s->digrams * 2 > s->mask + 1) grow_index(s);
}

HOT void set_digram(Sequitur *s, int32_t n) {
  uint64_t key = pack(s->nodes[n].value, s->nodes[s->nodes[n].next].value);
  put(s, find(s, key), key, n);
}

HOT void delete_digram(Sequitur *s, int32_t n) {
  int32_t nx = s->nodes[n].next;
  if (nx == NIL || s->nodes[n].indexed == 0 || is_guard(s, n) || is_guard(s, nx)) return;
  uint32_t i = find(s, pack(s->nodes[n].value, s->nodes[nx].value));
  if (s->slots[i].node != n) return;
  s->nodes[n].indexed--;
  /* Backward-shift deletion keeps probe chains intact without tombstones. */
  uint32_t mask = s->mask, j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (s->slots[j].node == NIL) break;
    uint32_t k = home(s, s->slots[j].key);
    if (j > i ? (k <= i || k > j) : (k <= i && k > j)) {
      s->slots[i] = s->slots[j];
      i = j;
    }
  }
  s->slots[i].node = NIL;
  s->digrams--;
}

/* ---- the algorithm ---- */

HOT void join(Sequitur *s, int32_t left, int32_t right) {
  if (s->nodes[left].next != NIL) {
    delete_digram(s, left);
    /* Triples (aaa): re-index the digram the overlap hid. */
    int32_t rp = s->nodes[right].prev, rn = s->nodes[right].next, v = s->nodes[right].value;
    if (rp != NIL && rn != NIL && v == s->nodes[rp].value && v == s->nodes[rn].value) set_digram(s, right);
    int32_t lp = s->nodes[left].prev, ln = s->nodes[left].next, u = s->nodes[left].value;
    if (lp != NIL && ln != NIL && u == s->nodes[ln].value && u == s->nodes[lp].value) set_digram(s, lp);
  }
  s->nodes[left].next = right;
  s->nodes[right].prev = left;
}

HOT void insert_after(Sequitur *s, int32_t n, int32_t y) {
  join(s, y, s->nodes[n].next);
  join(s, n, y);
}

/* Unlinks a symbol (not a guard) and releases its node. */
HOT void delete_symbol(Sequitur *s, int32_t n, bool deuse) {
  join(s, s->nodes[n].prev, s->nodes[n].next);
  delete_digram(s, n);
  int32_t v = s->nodes[n].value;
  if (deuse && v < 0) s->rule_refs[-v - 1]--;
  s->free_nodes[s->free_node_count++] = n;
}

static bool check(Sequitur *s, int32_t n);

/* Replaces the digram at n by rule r. */
static void substitute(Sequitur *s, int32_t n, int32_t r) {
  int32_t q = s->nodes[n].prev;
  delete_symbol(s, s->nodes[q].next, true);
  delete_symbol(s, s->nodes[q].next, true);
  insert_after(s, q, new_symbol(s, -(r + 1)));
  if (!check(s, q)) check(s, s->nodes[q].next);
}

/* Inlines the rule that non-terminal n refers to (its only use). */
static void expand(Sequitur *s, int32_t n) {
  int32_t left = s->nodes[n].prev, right = s->nodes[n].next;
  int32_t r = -s->nodes[n].value - 1;
  int32_t g = s->rule_guard[r];
  int32_t f = s->nodes[g].next, l = s->nodes[g].prev;
  free_rule(s, r);
  delete_digram(s, n);
  delete_symbol(s, n, false);
  join(s, left, f);
  join(s, l, right);
  if (!is_guard(s, right)) set_digram(s, l);
}

static void match(Sequitur *s, int32_t ss, int32_t m) {
  int32_t r;
  int32_t mp = s->nodes[m].prev;
  if (is_guard(s, mp) && is_guard(s, s->nodes[s->nodes[m].next].next)) {
    /* The earlier occurrence is a whole rule: reuse it. */
    r = GUARD_BASE - s->nodes[mp].value;
    substitute(s, ss, r);
  } else {
    r = new_rule(s);
    int32_t g = s->rule_guard[r];
    insert_after(s, s->nodes[g].prev, new_symbol(s, s->nodes[ss].value));
    insert_after(s, s->nodes[g].prev, new_symbol(s, s->nodes[s->nodes[ss].next].value));
    substitute(s, m, r);
    substitute(s, ss, r);
    set_digram(s, s->nodes[g].next);
  }
  /* Rule utility: a rule whose first symbol is a rule used only here gets inlined. */
  int32_t first = s->nodes[s->rule_guard[r]].next;
  int32_t fv = s->nodes[first].value;
  if (fv < 0 && fv > GUARD_BASE && s->rule_refs[-fv - 1] == 1) expand(s, first);
}

/* Enforces digram uniqueness for the digram starting at n; true if it was seen before. */
static bool check(Sequitur *s, int32_t n) {
  int32_t nx = s->nodes[n].next;
  if (is_guard(s, n) || is_guard(s, nx)) return false;
  uint64_t key = pack(s->nodes[n].value, s->nodes[nx].value);
  uint32_t i = find(s, key);
  int32_t x = s->slots[i].node;
  if (x == NIL) {
    put(s, i, key, n);
    return false;
  }
  if (x == n) return false;
  if (s->nodes[x].next != n) match(s, n, x); /* overlapping digrams (aaa) are left alone */
  return true;
}

void sequitur_reset(Sequitur *s) {
  /* A fresh digram index (skipped when nothing was appended since the last reset). */
  if (s->digrams > 0)
    for (uint32_t i = 0; i <= s->mask; i++) s->slots[i].node = NIL;
  s->digrams = 0;
  s->node_top = 0;
  s->free_node_count = 0;
  s->rule_top = 0;
  s->free_rule_count = 0;
  s->length = 0;
  new_rule(s); /* rule 0 is S */
}

void sequitur_append(Sequitur *s, int32_t terminal) {
  s->appended[s->length++] = terminal;
}

/* The grammar takes one more symbol (the algorithm's append). */
static void feed(Sequitur *s, int32_t terminal) {
  int32_t y = new_symbol(s, terminal);
  int32_t guard = s->rule_guard[0];
  insert_after(s, s->nodes[guard].prev, y);
  check(s, s->nodes[y].prev);
}

void sequitur_write(Sequitur *s, ByteBuf *out) {
  int32_t n = s->length;
  if (n > SEQUITUR_LONGEST_ORDER) {
    bytes_uint(out, 1);
    bytes_uint(out, (uint64_t)n);
    for (int32_t i = 0; i < n; i++) bytes_uint(out, 2 * (uint64_t)s->appended[i]);
    return;
  }
  for (int32_t i = 0; i < n; i++) feed(s, s->appended[i]);
  /* new_id is NIL for every rule id ever used (this write puts back what it sets); ids not
   * used before are made NIL here, not at init, whose pass over the whole array touched a
   * page per 1024 rules of a grammar that mostly stays small. */
  for (; s->new_id_ready < s->rule_top; s->new_id_ready++) s->new_id[s->new_id_ready] = NIL;
  int32_t count = 1;
  s->order[0] = 0;
  s->new_id[0] = 0;
  /* First pass: number the rules in order of first use (a breadth-first walk from S). */
  for (int32_t k = 0; k < count; k++) {
    int32_t g = s->rule_guard[s->order[k]];
    for (int32_t n = s->nodes[g].next; n != g; n = s->nodes[n].next) {
      int32_t v = s->nodes[n].value;
      if (v < 0 && s->new_id[-v - 1] == NIL) {
        s->new_id[-v - 1] = count;
        s->order[count++] = -v - 1;
      }
    }
  }
  bytes_uint(out, (uint64_t)count);
  for (int32_t k = 0; k < count; k++) {
    int32_t g = s->rule_guard[s->order[k]];
    uint64_t len = 0;
    for (int32_t n = s->nodes[g].next; n != g; n = s->nodes[n].next) len++;
    bytes_uint(out, len);
    for (int32_t n = s->nodes[g].next; n != g; n = s->nodes[n].next) {
      int32_t v = s->nodes[n].value;
      bytes_uint(out, v >= 0 ? 2 * (uint64_t)v : 2 * (uint64_t)s->new_id[-v - 1] + 1);
    }
  }
  for (int32_t k = 0; k < count; k++) s->new_id[s->order[k]] = NIL;
}

int32_t sequitur_rules(const Sequitur *s) { return s->length > SEQUITUR_LONGEST_ORDER ? 1 : s->rule_top - s->free_rule_count; }
