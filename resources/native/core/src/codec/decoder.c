/* See decoder.h; the layout is documented in src/main/compress/prsd-codec.ts. */
#include "decoder.h"
#include "residue.h"
#include "bytes.h"
#include "chain.h"
#include "fold.h"
#include "scratch.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO_53 ((int64_t)1 << 53)
#define MAX_HEIGHT 16
#define SCATTER_AHEAD 16

int64_t decoder_count(const uint8_t *structure, size_t length) {
  ByteIn r = {structure, 0, length, NULL};
  uint64_t count = in_uint(&r);
  return r.error ? -1 : (int64_t)count;
}

typedef struct {
  ByteIn in;
  uint32_t count, point_count;
  /* v2, v3: the grammar's terminals from `base` on are repeat markers (level, k, r); v3:
   * chain markers too (level CHAIN_LEVEL, r the run's length). */
  bool folded, chained;
  uint32_t base, markers;
  uint32_t level_markers[FOLD_LEVELS]; /* markers of each fold level: a level without any needs no pass */
  uint32_t *marker_level, *marker_k, *marker_r, *spare;
  /* The grammar: rule r's symbols are symbols[starts[r] .. starts[r + 1]). */
  uint32_t rules;
  uint32_t *starts, *symbols, *stack_rule, *stack_pos;
  /* Addresses laid out point by point; per point, where its addresses start. */
  uint32_t *per_point;
  uint32_t *partial_counts; /* three more counts per point beside per_point's (count_points) */
  double *by_point;
  uint16_t *size_of;
  const uint8_t *planes;
  size_t planes_length;
  bool deltas; /* v4's residue form 1: the addresses as delta varints, not planes */
  /* The irregular addresses put together from their byte planes in one pass (the planes read
   * in step, as they lie), where one address at a time took a byte from each of eight planes. */
  uint64_t *irregulars;
  size_t irregular, irregular_used;
  char message[160];
} Decoder;

/* A decode's arrays (a few MB a chunk: the expansion, the folded order, each point's addresses)
 * are kept memory (scratch.c), not malloc's: on a pool thread malloc maps blocks this large
 * afresh and hands them back each chunk, and every chunk faulted them in again (~14 us a page
 * here; a C++ session's re-simulation faulted 111 K pages, 39 K now: docs/BENCHMARKS.md at cb83178). */
static void *take(size_t bytes) { return scratch_alloc(NULL, bytes); }

static void *take_zeroed(size_t bytes) {
  void *p = take(bytes);
  if (p) memset(p, 0, bytes);
  return p;
}

static void give(void *p) { scratch_free(NULL, p); }

static void free_decoder(Decoder *d) {
  give(d->starts), give(d->symbols), give(d->stack_rule), give(d->stack_pos);
  give(d->per_point), give(d->partial_counts), give(d->by_point), give(d->size_of);
  give(d->marker_level), give(d->marker_k), give(d->marker_r), give(d->spare);
  give(d->irregulars);
}

/* v2's and v3's markers: base, count, then per marker level + FOLD_LEVELS * (k - 1), r - 2, or
 * (v3) CHAIN_SHAPE, L - 1. */
static const char *read_markers(Decoder *d) {
  ByteIn *r = &d->in;
  uint64_t base = in_uint(r), markers = in_uint(r);
  if (r->error) return r->error;
  if (base > (1u << 30)) return "its repeat markers start beyond 2^30";
  /* Each marker takes two bytes at least, and folds three accesses at least. */
  if (markers > d->count || markers > (r->end - r->pos) / 2) return "it declares more repeat markers than it can hold";
  d->base = (uint32_t)base;
  d->markers = (uint32_t)markers;
  size_t n = (size_t)markers + 1;
  d->marker_level = take(n * 4), d->marker_k = take(n * 4), d->marker_r = take(n * 4);
  if (!d->marker_level || !d->marker_k || !d->marker_r) return "out of memory";
  for (uint32_t m = 0; m < d->markers; m++) {
    uint64_t shape = in_uint(r), repeats = in_uint(r);
    if (r->error) return r->error;
    if (d->chained && shape == CHAIN_SHAPE) {
      if (repeats >= d->count) return "a chain marker is out of range";
      d->marker_level[m] = CHAIN_LEVEL;
      d->marker_k[m] = 1;
      d->marker_r[m] = (uint32_t)repeats + 1;
      continue;
    }
    if (shape >= CHAIN_SHAPE || repeats > d->count) return "a repeat marker is out of range";
    d->marker_level[m] = (uint32_t)(shape % FOLD_LEVELS);
    d->level_markers[shape % FOLD_LEVELS]++;
    d->marker_k[m] = (uint32_t)(shape / FOLD_LEVELS) + 1;
    d->marker_r[m] = (uint32_t)repeats + 2;
  }
  return NULL;
}

/* Reads the grammar: rule count, then per rule its length and symbols (2t terminal, 2k+1
 * rule k). Rules other than S hold at least two symbols (SEQUITUR's rule utility), which
 * bounds the expansion's work by the events it produces. */
static const char *read_grammar(Decoder *d) {
  ByteIn *r = &d->in;
  uint64_t rules = in_uint(r);
  size_t left = r->end - r->pos;
  if (r->error) return r->error;
  if (rules == 0 || rules > left) return "its grammar's rule count does not fit its bytes";
  d->rules = (uint32_t)rules;
  d->starts = take(((size_t)rules + 1) * 4);
  d->symbols = take((left + 1) * 4);
  d->stack_rule = take(((size_t)rules + 1) * 4);
  d->stack_pos = take(((size_t)rules + 1) * 4);
  if (!d->starts || !d->symbols || !d->stack_rule || !d->stack_pos) return "out of memory";
  size_t n = 0;
  for (uint32_t k = 0; k < rules; k++) {
    d->starts[k] = (uint32_t)n;
    uint64_t len = in_uint(r);
    if (r->error) return r->error;
    if (len > r->end - r->pos) return "a grammar rule is longer than the chunk";
    if (k > 0 && len < 2) return "a grammar rule has fewer than two symbols";
    for (uint64_t i = 0; i < len; i++) {
      uint64_t s = in_uint(r);
      if (r->error) return r->error;
      /* v2: a terminal below base is a point, one from base on a marker. */
      uint64_t t = s >> 1;
      bool marker = d->folded && t >= d->base;
      if (s & 1 ? t >= rules : marker ? t - d->base >= d->markers : t >= d->point_count) {
        const char *what = s & 1 ? "rule" : marker ? "repeat marker" : "access point";
        uint64_t of = s & 1 ? rules : marker ? d->markers : d->point_count;
        snprintf(d->message, sizeof d->message, "its grammar names %s %llu of %llu", what,
                 (unsigned long long)(marker && !(s & 1) ? t - d->base : t), (unsigned long long)of);
        return d->message;
      }
      d->symbols[n++] = (uint32_t)s;
    }
  }
  d->starts[rules] = (uint32_t)n;
  return NULL;
}

/* Expands the grammar into at most `count` symbols (v1: exactly `count` access points). */
static const char *expand_grammar(Decoder *d, uint32_t *points, uint32_t *expanded) {
  uint32_t depth = 1, n = 0;
  d->stack_rule[0] = 0;
  d->stack_pos[0] = d->starts[0];
  while (depth > 0) {
    uint32_t top = depth - 1, rule = d->stack_rule[top], pos = d->stack_pos[top];
    if (pos >= d->starts[rule + 1]) {
      depth--;
      continue;
    }
    d->stack_pos[top] = pos + 1;
    uint32_t s = d->symbols[pos];
    if ((s & 1) == 0) {
      if (n == d->count) return "its grammar expands to more accesses than it declares";
      points[n++] = s >> 1;
    } else {
      if (depth > d->rules) return "its grammar is recursive";
      d->stack_rule[depth] = s >> 1;
      d->stack_pos[depth] = d->starts[s >> 1];
      depth++;
    }
  }
  *expanded = n;
  if (!d->folded && n != d->count) {
    snprintf(d->message, sizeof d->message, "its grammar expands to %u accesses, expected %u", n, d->count);
    return d->message;
  }
  return NULL;
}

/* v3: undoes the chains into `out` (at most `count` symbols; *length: how many): a chain
 * marker of L repeats L times the first successor of the symbol before. Per symbol its first
 * successor, indexed points first, then markers (a crafted base cannot make it large). */
static const char *unchain(Decoder *d, const uint32_t *tokens, uint32_t n, uint32_t *out, uint32_t *length) {
  size_t slots = (size_t)d->point_count + d->markers;
  uint32_t *first = take((slots + 1) * 4);
  if (!first) return "out of memory";
  memset(first, 0xff, (slots + 1) * 4); /* CHAIN_NONE */
  const char *damage = NULL;
  uint32_t m = 0, prev = CHAIN_NONE, prev_slot = 0;
  for (uint32_t i = 0; i < n && !damage; i++) {
    uint32_t s = tokens[i];
    if (s >= d->base && d->marker_level[s - d->base] == CHAIN_LEVEL) {
      uint32_t run = d->marker_r[s - d->base];
      if ((uint64_t)m + run > d->count) damage = "its chains expand to more accesses than it declares";
      for (uint32_t j = 0; !damage && j < run; j++) {
        uint32_t x = prev == CHAIN_NONE ? CHAIN_NONE : first[prev_slot];
        if (x == CHAIN_NONE) {
          damage = "a chain marker follows a symbol with no successor";
          break;
        }
        out[m++] = x;
        prev = x;
        prev_slot = x < d->base ? x : d->point_count + (x - d->base);
      }
    } else {
      /* The grammar's reader checked s: a point below point_count, or a marker. */
      if (m == d->count) {
        damage = "its chains expand to more accesses than it declares";
        break;
      }
      if (prev != CHAIN_NONE && first[prev_slot] == CHAIN_NONE) first[prev_slot] = s;
      out[m++] = s;
      prev = s;
      prev_slot = s < d->base ? s : d->point_count + (s - d->base);
    }
  }
  give(first);
  *length = m;
  return damage;
}

/* v2: undoes the folding, highest level first, each pass bounded by `count`: a marker of the
 * level being undone repeats the k symbols before it r - 1 more times. The last pass writes
 * `points`; `other` is a scratch array of `count`. */
static const char *unfold(Decoder *d, uint32_t *folded, uint32_t n, uint32_t *points, uint32_t *other) {
  uint32_t *src = folded;
  for (int level = FOLD_LEVELS - 1; level >= 0; level--) {
    if (d->level_markers[level] == 0) {
      /* Nothing folded at this level (outside loops, most chunks' upper levels): the order
       * passes as it is, copied only into `points` at the last. */
      if (level == 0) memcpy(points, src, (size_t)n * 4);
      continue;
    }
    uint32_t *dst = level == 0 ? points : other;
    uint64_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t s = src[i];
      if (s >= d->base && d->marker_level[s - d->base] == (uint32_t)level) {
        uint32_t id = s - d->base, k = d->marker_k[id];
        uint64_t copies = d->marker_r[id] - 1;
        if (k > m) return "a repeat marker has no body before it";
        if (m + copies * k > d->count) return "its repeats expand to more accesses than it declares";
        for (uint64_t c = 0; c < copies; c++, m += k) memcpy(dst + m, dst + m - k, (size_t)k * 4);
      } else {
        if (m == d->count) return "its repeats expand to more accesses than it declares";
        dst[m++] = s;
      }
    }
    other = src;
    src = dst;
    n = (uint32_t)m;
  }
  if (n != d->count) {
    snprintf(d->message, sizeof d->message, "its folded order expands to %u accesses, expected %u", n, d->count);
    return d->message;
  }
  return NULL;
}

/* Byte plane b of the irregular addresses holds byte b of each (least significant first); or,
 * in v4's other form, each is a delta varint. */
static const char *gather_irregulars(Decoder *d) {
  if (d->deltas) return residue_read_deltas(d->planes, d->planes_length, d->count, &d->irregulars, &d->irregular);
  size_t n = d->irregular;
  if (n == 0) return NULL;
  uint64_t *a = d->irregulars = take(n * 8);
  if (!a) return "out of memory";
  const uint8_t *p = d->planes;
  for (size_t i = 0; i < n; i++)
    a[i] = (uint64_t)p[i] | (uint64_t)p[n + i] << 8 | (uint64_t)p[2 * n + i] << 16 | (uint64_t)p[3 * n + i] << 24 |
           (uint64_t)p[4 * n + i] << 32 | (uint64_t)p[5 * n + i] << 40 | (uint64_t)p[6 * n + i] << 48 | (uint64_t)p[7 * n + i] << 56;
  return NULL;
}

static bool read_irregular(Decoder *d, double *out) {
  if (d->irregular_used >= d->irregular) return false;
  uint64_t a = d->irregulars[d->irregular_used++];
  if (a >= (uint64_t)TWO_53) return false;
  *out = (double)a;
  return true;
}

static const char *irregular_damage = "its irregular addresses run out or are not below 2^53";

/* Expands one descriptor (its levels, outermost first: length and stride) into
 * `out`, which has room for `room` addresses; returns how many it wrote, 0 on damage. */
static uint64_t expand_descriptor(Decoder *d, uint64_t height, int64_t start, double *out, uint64_t room, const char **damage) {
  ByteIn *r = &d->in;
  int64_t lengths[MAX_HEIGHT], strides[MAX_HEIGHT], counter[MAX_HEIGHT];
  uint64_t total = 1;
  /* The extremes of start + sum(counter[l] * stride[l]): every address lies between. */
  __int128 low = start, high = start;
  for (int l = (int)height; l >= 0; l--) {
    uint64_t len = in_uint(r);
    strides[l] = in_int(r);
    if (r->error) return *damage = r->error, 0;
    if (len == 0) return *damage = "a descriptor has length 0", 0;
    if (len > room || total * len > room) return *damage = "its descriptors expand past their point's accesses", 0;
    total *= len;
    lengths[l] = (int64_t)len;
    counter[l] = 0;
    __int128 reach = (__int128)(lengths[l] - 1) * strides[l];
    if (reach < 0) low += reach;
    else high += reach;
  }
  if (start < 0 || low < 0 || high >= TWO_53) return *damage = "a descriptor reaches addresses outside [0, 2^53)", 0;
  /* Odometer over the levels, innermost (0) fastest. */
  uint64_t at = 0;
  int64_t base = start;
  for (;;) {
    int64_t len0 = lengths[0], s0 = strides[0];
    for (int64_t i = 0; i < len0; i++) out[at++] = (double)(base + i * s0);
    int l = 1;
    while (l <= (int)height) {
      if (++counter[l] < lengths[l]) break;
      counter[l] = 0;
      l++;
    }
    if (l > (int)height) break;
    base = start;
    for (int k = 1; k <= (int)height; k++) base += counter[k] * strides[k];
  }
  return at;
}

/* Per used point, ascending: its size, irregular count, descriptors; fills by_point. */
/* per_point[p] becomes where point p's addresses start (per_point[point_count]: all of them).
 * Counted in four partial counts, summed after: a loop's points repeat a few accesses apart,
 * and with one count per point each increment waited for the last one of that point. */
static void count_points(Decoder *d, const uint32_t *points) {
  uint32_t n = d->point_count;
  uint32_t *c0 = d->per_point + 1, *c1 = d->partial_counts, *c2 = c1 + n, *c3 = c2 + n;
  uint32_t i = 0;
  for (; i + 4 <= d->count; i += 4) c0[points[i]]++, c1[points[i + 1]]++, c2[points[i + 2]]++, c3[points[i + 3]]++;
  for (; i < d->count; i++) c0[points[i]]++;
  for (uint32_t p = 0; p < n; p++) c0[p] += c1[p] + c2[p] + c3[p];
  for (uint32_t p = 0; p < n; p++) d->per_point[p + 1] += d->per_point[p];
}

static const char *read_points(Decoder *d) {
  ByteIn *r = &d->in;
  uint64_t used = in_uint(r);
  if (r->error) return r->error;
  if (used > d->point_count) return "it names more points than the point table holds";
  uint64_t point = 0, filled = 0;
  for (uint64_t u = 0; u < used; u++) {
    uint64_t delta = in_uint(r);
    if (u > 0 && delta == 0) return "its points are not in ascending order";
    point += delta;
    uint64_t size = in_uint(r);
    uint64_t irregular = in_uint(r);
    uint64_t descriptors = in_uint(r);
    if (r->error) return r->error;
    if (point >= d->point_count) {
      snprintf(d->message, sizeof d->message, "access point %llu is outside the point table (%u)", (unsigned long long)point, d->point_count);
      return d->message;
    }
    if (size > 0xffff) return "an access size does not fit 16 bits";
    d->size_of[point] = (uint16_t)size;
    uint32_t pos = d->per_point[point], end = d->per_point[point + 1];
    if (irregular > end - pos || descriptors > end - pos) return "its irregular address counts do not add up";
    int64_t prev_start = 0;
    for (uint64_t k = 0; k < descriptors; k++) {
      uint64_t before = in_uint(r);
      if (r->error) return r->error;
      if (before > irregular || before > end - pos) return "its irregular address counts do not add up";
      irregular -= before;
      while (before-- > 0)
        if (!read_irregular(d, &d->by_point[pos++])) return irregular_damage;
      uint64_t height = in_uint(r);
      if (height >= MAX_HEIGHT) return "a descriptor is too deep";
      int64_t start = prev_start + in_int(r);
      prev_start = start;
      const char *damage = NULL;
      uint64_t wrote = expand_descriptor(d, height, start, d->by_point + pos, end - pos, &damage);
      if (damage) return damage;
      pos += (uint32_t)wrote;
      /* prev_start stays within [0, 2^53) (checked), so the next sum cannot overflow. */
    }
    if (pos + irregular != end) {
      snprintf(d->message, sizeof d->message, "point %llu has accesses unaccounted for", (unsigned long long)point);
      return d->message;
    }
    while (irregular-- > 0)
      if (!read_irregular(d, &d->by_point[pos++])) return irregular_damage;
    filled += end - d->per_point[point];
  }
  if (filled != d->count) return "some access points' addresses are missing";
  if (d->irregular_used != d->irregular) return "it holds more irregular addresses than it uses";
  return NULL;
}

const char *decoder_decode(int format, const uint8_t *structure, size_t structure_length, const uint8_t *planes,
                           size_t planes_length, uint32_t point_count, DecodedChunk *out) {
  static _Thread_local char message[200];
  Decoder d;
  memset(&d, 0, sizeof d);
  d.in = (ByteIn){structure, 0, structure_length, NULL};
  d.point_count = point_count;
  /* From v4 the residue's first byte is its form: planes as before, or delta varints. */
  int form = RESIDUE_PLANES;
  if (format >= 4 && planes_length > 0) {
    form = planes[0];
    planes++;
    planes_length--;
  }
  d.planes = planes;
  d.planes_length = planes_length;
  d.deltas = form == RESIDUE_DELTAS;
  d.irregular = d.deltas ? 0 : planes_length / 8;
  const char *damage = NULL;
  uint64_t count = in_uint(&d.in);
  if (d.in.error || count != out->count) damage = "its event count is unreadable";
  else if (form != RESIDUE_PLANES && form != RESIDUE_DELTAS) damage = "its irregular addresses are in an unknown form";
  else if (!d.deltas && planes_length % 8 != 0) damage = "its irregular addresses are not whole";
  d.count = out->count;
  d.folded = format >= 2 && format <= 4;
  d.chained = format == 3 || format == 4;
  if (!damage && (format < 1 || format > 4)) damage = "its format is unknown";
  if (!damage && d.folded) damage = read_markers(&d);
  if (!damage) damage = read_grammar(&d);
  if (!damage && !d.folded) {
    uint32_t n;
    damage = expand_grammar(&d, out->points, &n);
  } else if (!damage) {
    /* Two scratch arrays of `count` (the folded order, then each pass): bounded like the output. */
    uint32_t *folded = take(((size_t)d.count + 1) * 4), n = 0;
    d.spare = take(((size_t)d.count + 1) * 4);
    if (!folded || !d.spare) damage = "out of memory";
    if (!damage) damage = expand_grammar(&d, folded, &n);
    if (!damage && d.chained) {
      damage = unchain(&d, folded, n, d.spare, &n);
      if (!damage) damage = unfold(&d, d.spare, n, out->points, folded);
    } else if (!damage)
      damage = unfold(&d, folded, n, out->points, d.spare);
    give(folded);
  }
  if (!damage) {
    d.per_point = take_zeroed(((size_t)point_count + 1) * 4);
    d.partial_counts = take_zeroed(((size_t)point_count * 3 + 1) * 4);
    d.by_point = take(((size_t)d.count + 1) * 8);
    d.size_of = take_zeroed(((size_t)point_count + 1) * 2);
    if (!d.per_point || !d.partial_counts || !d.by_point || !d.size_of) damage = "out of memory";
  }
  if (!damage) damage = gather_irregulars(&d);
  if (!damage) {
    count_points(&d, out->points);
    damage = read_points(&d);
  }
  if (!damage) {
    /* Back to execution order: each point's addresses in turn (per_point becomes a cursor).
     * With thousands of points each takes its next address from a line of its own: fetched
     * SCATTER_AHEAD events early (where that point's cursor is now: the same line, or the one
     * after, by then). */
    const uint32_t *points = out->points, n = d.count;
    uint32_t *cursor = d.per_point;
    const double *by_point = d.by_point;
    const uint16_t *size_of = d.size_of;
    double *addresses = out->addresses;
    uint16_t *sizes = out->sizes;
    uint32_t i = 0;
    for (; i + SCATTER_AHEAD < n; i++) {
      __builtin_prefetch(by_point + cursor[points[i + SCATTER_AHEAD]]);
      uint32_t p = points[i];
      addresses[i] = by_point[cursor[p]++];
      sizes[i] = size_of[p];
    }
    for (; i < n; i++) {
      uint32_t p = points[i];
      addresses[i] = by_point[cursor[p]++];
      sizes[i] = size_of[p];
    }
    ByteIn *r = &d.in;
    uint64_t exceptions = in_uint(r);
    if (r->error) damage = r->error;
    else if (exceptions > d.count) damage = "it has more size exceptions than events";
    uint64_t index = 0;
    for (uint64_t k = 0; !damage && k < exceptions; k++) {
      index += in_uint(r);
      uint64_t size = in_uint(r);
      if (r->error) damage = r->error;
      else if (index >= d.count) damage = "a size exception lies outside the chunk";
      else if (size > 0xffff) damage = "an access size does not fit 16 bits";
      else out->sizes[index] = (uint16_t)size;
    }
  }
  free_decoder(&d);
  if (damage && damage == d.message) {
    snprintf(message, sizeof message, "%s", d.message);
    return message;
  }
  return damage;
}
