/* SEQUITUR (Nevill-Manning & Witten 1997), a line-by-line port of sequitur.ts: symbols are
 * nodes of doubly linked lists in a pool, each rule a circular list through its guard, and
 * the digram index an open-addressing table with backward-shift deletion. A terminal t is t,
 * rule r's non-terminal is -(r + 1), rule r's guard GUARD_BASE - r. */
#include "sequitur.h"
#include <stdlib.h>
#include <string.h>

#define NIL (-1)
#define GUARD_BASE (-0x40000000)

bool sequitur_init(Sequitur *s, int32_t capacity) {
  memset(s, 0, sizeof *s);
  s->capacity = capacity;
  size_t nodes = 2 * (size_t)capacity + 16;
  size_t rules = (size_t)capacity + 2;
  size_t size = 1024;
  while (size < 2 * nodes) size *= 2; /* digrams in the index <= nodes: load <= 1/2 */
  s->mask = (uint32_t)(size - 1);
  s->next = malloc(nodes * 4);
  s->prev = malloc(nodes * 4);
  s->value = malloc(nodes * 4);
  s->guard_of = malloc(nodes * 4);
  s->free_nodes = malloc(nodes * 4);
  s->rule_guard = malloc(rules * 4);
  s->rule_refs = malloc(rules * 4);
  s->free_rules = malloc(rules * 4);
  s->new_id = malloc(rules * 4);
  s->order = malloc(rules * 4);
  s->key_a = malloc(size * 4);
  s->key_b = malloc(size * 4);
  s->slot = malloc(size * 4);
  if (!s->next || !s->prev || !s->value || !s->guard_of || !s->free_nodes || !s->rule_guard || !s->rule_refs ||
      !s->free_rules || !s->new_id || !s->order || !s->key_a || !s->key_b || !s->slot) {
    sequitur_free(s);
    return false;
  }
  memset(s->slot, 0xff, size * 4);
  for (size_t r = 0; r < rules; r++) s->new_id[r] = NIL;
  sequitur_reset(s);
  return true;
}

void sequitur_free(Sequitur *s) {
  int32_t **arrays[] = {&s->next, &s->prev, &s->value, &s->guard_of, &s->free_nodes, &s->rule_guard, &s->rule_refs,
                        &s->free_rules, &s->new_id, &s->order, &s->key_a, &s->key_b, &s->slot};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
    free(*arrays[i]);
    *arrays[i] = NULL;
  }
}

static int32_t new_node(Sequitur *s) {
  if (s->free_node_count > 0) return s->free_nodes[--s->free_node_count];
  return s->node_top++;
}

static int32_t new_symbol(Sequitur *s, int32_t v) {
  int32_t n = new_node(s);
  s->value[n] = v;
  s->next[n] = NIL;
  s->prev[n] = NIL;
  s->guard_of[n] = 0;
  if (v < 0) s->rule_refs[-v - 1]++;
  return n;
}

static int32_t new_rule(Sequitur *s) {
  int32_t r = s->free_rule_count > 0 ? s->free_rules[--s->free_rule_count] : s->rule_top++;
  int32_t g = new_node(s);
  s->value[g] = GUARD_BASE - r;
  s->guard_of[g] = r + 1;
  s->next[g] = g;
  s->prev[g] = g;
  s->rule_guard[r] = g;
  s->rule_refs[r] = 0;
  return r;
}

static void free_rule(Sequitur *s, int32_t r) {
  s->free_nodes[s->free_node_count++] = s->rule_guard[r];
  s->free_rules[s->free_rule_count++] = r;
}

static inline bool is_guard(const Sequitur *s, int32_t n) { return s->guard_of[n] != 0; }

/* ---- the digram index ---- */

static inline uint32_t home(const Sequitur *s, int32_t a, int32_t b) {
  return (((uint32_t)a * 0x9e3779b1u) ^ (((uint32_t)b + 0x7f4a7c15u) * 0x85ebca6bu)) & s->mask;
}

/* Slot holding digram (a, b), or the empty slot where it would go. */
static inline uint32_t find(const Sequitur *s, int32_t a, int32_t b) {
  uint32_t i = home(s, a, b);
  for (;;) {
    if (s->slot[i] == NIL || (s->key_a[i] == a && s->key_b[i] == b)) return i;
    i = (i + 1) & s->mask;
  }
}

static void set_digram(Sequitur *s, int32_t n) {
  int32_t a = s->value[n], b = s->value[s->next[n]];
  uint32_t i = find(s, a, b);
  s->key_a[i] = a;
  s->key_b[i] = b;
  s->slot[i] = n;
}

static void delete_digram(Sequitur *s, int32_t n) {
  int32_t nx = s->next[n];
  if (nx == NIL || is_guard(s, n) || is_guard(s, nx)) return;
  uint32_t i = find(s, s->value[n], s->value[nx]);
  if (s->slot[i] != n) return;
  /* Backward-shift deletion keeps probe chains intact without tombstones. */
  uint32_t mask = s->mask, j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (s->slot[j] == NIL) break;
    uint32_t k = home(s, s->key_a[j], s->key_b[j]);
    if (j > i ? (k <= i || k > j) : (k <= i && k > j)) {
      s->key_a[i] = s->key_a[j];
      s->key_b[i] = s->key_b[j];
      s->slot[i] = s->slot[j];
      i = j;
    }
  }
  s->slot[i] = NIL;
}

/* ---- the algorithm ---- */

static void join(Sequitur *s, int32_t left, int32_t right) {
  if (s->next[left] != NIL) {
    delete_digram(s, left);
    /* Triples (aaa): re-index the digram the overlap hid. */
    int32_t rp = s->prev[right], rn = s->next[right], v = s->value[right];
    if (rp != NIL && rn != NIL && v == s->value[rp] && v == s->value[rn]) set_digram(s, right);
    int32_t lp = s->prev[left], ln = s->next[left], u = s->value[left];
    if (lp != NIL && ln != NIL && u == s->value[ln] && u == s->value[lp]) set_digram(s, lp);
  }
  s->next[left] = right;
  s->prev[right] = left;
}

static void insert_after(Sequitur *s, int32_t n, int32_t y) {
  join(s, y, s->next[n]);
  join(s, n, y);
}

/* Unlinks a symbol (not a guard) and releases its node. */
static void delete_symbol(Sequitur *s, int32_t n, bool deuse) {
  join(s, s->prev[n], s->next[n]);
  delete_digram(s, n);
  int32_t v = s->value[n];
  if (deuse && v < 0) s->rule_refs[-v - 1]--;
  s->free_nodes[s->free_node_count++] = n;
}

static bool check(Sequitur *s, int32_t n);

/* Replaces the digram at n by rule r. */
static void substitute(Sequitur *s, int32_t n, int32_t r) {
  int32_t q = s->prev[n];
  delete_symbol(s, s->next[q], true);
  delete_symbol(s, s->next[q], true);
  insert_after(s, q, new_symbol(s, -(r + 1)));
  if (!check(s, q)) check(s, s->next[q]);
}

/* Inlines the rule that non-terminal n refers to (its only use). */
static void expand(Sequitur *s, int32_t n) {
  int32_t left = s->prev[n], right = s->next[n];
  int32_t r = -s->value[n] - 1;
  int32_t g = s->rule_guard[r];
  int32_t f = s->next[g], l = s->prev[g];
  free_rule(s, r);
  delete_digram(s, n);
  delete_symbol(s, n, false);
  join(s, left, f);
  join(s, l, right);
  if (!is_guard(s, right)) set_digram(s, l);
}

static void match(Sequitur *s, int32_t ss, int32_t m) {
  int32_t r;
  int32_t mp = s->prev[m];
  if (is_guard(s, mp) && is_guard(s, s->next[s->next[m]])) {
    /* The earlier occurrence is a whole rule: reuse it. */
    r = s->guard_of[mp] - 1;
    substitute(s, ss, r);
  } else {
    r = new_rule(s);
    int32_t g = s->rule_guard[r];
    insert_after(s, s->prev[g], new_symbol(s, s->value[ss]));
    insert_after(s, s->prev[g], new_symbol(s, s->value[s->next[ss]]));
    substitute(s, m, r);
    substitute(s, ss, r);
    set_digram(s, s->next[g]);
  }
  /* Rule utility: a rule whose first symbol is a rule used only here gets inlined. */
  int32_t first = s->next[s->rule_guard[r]];
  int32_t fv = s->value[first];
  if (fv < 0 && fv > GUARD_BASE && s->rule_refs[-fv - 1] == 1) expand(s, first);
}

/* Enforces digram uniqueness for the digram starting at n; true if it was seen before. */
static bool check(Sequitur *s, int32_t n) {
  int32_t nx = s->next[n];
  if (is_guard(s, n) || is_guard(s, nx)) return false;
  uint32_t i = find(s, s->value[n], s->value[nx]);
  int32_t x = s->slot[i];
  if (x == NIL) {
    s->key_a[i] = s->value[n];
    s->key_b[i] = s->value[nx];
    s->slot[i] = n;
    return false;
  }
  if (x == n) return false;
  if (s->next[x] != n) match(s, n, x); /* overlapping digrams (aaa) are left alone */
  return true;
}

void sequitur_reset(Sequitur *s) {
  /* A fresh digram index (skipped when nothing was appended since the last reset). */
  if (s->length > 0) memset(s->slot, 0xff, ((size_t)s->mask + 1) * 4);
  s->node_top = 0;
  s->free_node_count = 0;
  s->rule_top = 0;
  s->free_rule_count = 0;
  s->length = 0;
  new_rule(s); /* rule 0 is S */
}

void sequitur_append(Sequitur *s, int32_t terminal) {
  int32_t y = new_symbol(s, terminal);
  int32_t guard = s->rule_guard[0];
  insert_after(s, s->prev[guard], y);
  s->length++;
  check(s, s->prev[y]);
}

void sequitur_write(Sequitur *s, ByteBuf *out) {
  int32_t count = 1;
  s->order[0] = 0;
  s->new_id[0] = 0;
  /* First pass: number the rules in order of first use (a breadth-first walk from S). */
  for (int32_t k = 0; k < count; k++) {
    int32_t g = s->rule_guard[s->order[k]];
    for (int32_t n = s->next[g]; n != g; n = s->next[n]) {
      int32_t v = s->value[n];
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
    for (int32_t n = s->next[g]; n != g; n = s->next[n]) len++;
    bytes_uint(out, len);
    for (int32_t n = s->next[g]; n != g; n = s->next[n]) {
      int32_t v = s->value[n];
      bytes_uint(out, v >= 0 ? 2 * (uint64_t)v : 2 * (uint64_t)s->new_id[-v - 1] + 1);
    }
  }
  for (int32_t k = 0; k < count; k++) s->new_id[s->order[k]] = NIL;
}

int32_t sequitur_rules(const Sequitur *s) { return s->rule_top - s->free_rule_count; }
