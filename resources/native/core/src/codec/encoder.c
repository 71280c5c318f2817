/* See encoder.h; the layout is documented in src/main/compress/prsd-codec.ts. */
#include "encoder.h"
#include "grow.h"
#include "residue.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO_53 9007199254740992.0

static bool sink_grow_points(PrsdSink *s, uint32_t points) {
  if (points <= s->points_cap) return true;
  uint32_t n = points > 2 * s->points_cap ? points : 2 * s->points_cap;
  uint32_t **arrays[] = {&s->pending, &s->point_irr, &s->point_desc, &s->point_desc_bytes, &s->touched};
  for (int i = 0; i < 5; i++)
    if (!grow_zeroed((void **)arrays[i], (size_t)n * 4)) return false;
  if (!grow_zeroed((void **)&s->last_start, (size_t)n * 8)) return false;
  s->points_cap = n;
  return true;
}

static void sink_reset(PrsdSink *s) {
  for (size_t k = 0; k < s->touched_count; k++) {
    uint32_t p = s->touched[k];
    s->pending[p] = s->point_irr[p] = s->point_desc[p] = s->point_desc_bytes[p] = 0;
  }
  s->touched_count = s->irr_count = s->desc_count = 0;
  s->desc_log.length = 0;
}

static inline void touch(PrsdSink *s, uint32_t p) {
  if (s->point_irr[p] == 0 && s->point_desc[p] == 0) s->touched[s->touched_count++] = p;
}

/* Logs the descriptor as write_points lays it out: the irregular addresses before it, its
 * height, its start from the point's previous descriptor's (0 for the first), then per level
 * from the top its length and stride. */
void prsd_sink_descriptor(PrsdSink *s, uint32_t p, const Prsd *d) {
  size_t c = s->desc_cap;
  if (s->desc_count == c) {
    size_t c1 = c, c2 = c;
    if (!grow_to((void **)&s->desc_point, &c1, c + 1, 4) || !grow_to((void **)&s->desc_bytes, &c2, c + 1, 2)) {
      s->failed = true;
      return;
    }
    s->desc_cap = c1;
  }
  touch(s, p);
  ByteBuf *w = &s->desc_log;
  size_t from = w->length;
  bytes_uint(w, s->pending[p]);
  bytes_uint(w, (uint64_t)d->height);
  bytes_int(w, d->start - (s->point_desc[p] ? s->last_start[p] : 0));
  for (int l = d->height; l >= 0; l--) {
    bytes_uint(w, (uint64_t)d->length[l]);
    bytes_int(w, d->stride[l]);
  }
  if (w->failed) {
    s->failed = true;
    return;
  }
  size_t k = s->desc_count++;
  s->desc_point[k] = p;
  s->desc_bytes[k] = (uint16_t)(w->length - from); /* at most 16 + 20 * (PRSD_MAX_LEVEL + 1) */
  s->point_desc_bytes[p] += (uint32_t)(w->length - from);
  s->last_start[p] = d->start;
  s->pending[p] = 0;
  s->point_desc[p]++;
}

void prsd_sink_irregular(PrsdSink *s, uint32_t p, double address) {
  size_t c = s->irr_cap;
  if (s->irr_count == c) {
    size_t c1 = c, c2 = c;
    if (!grow_to((void **)&s->irr_point, &c1, c + 1, 4) || !grow_to((void **)&s->irr_address, &c2, c + 1, 8)) {
      s->failed = true;
      return;
    }
    s->irr_cap = c1;
  }
  touch(s, p);
  size_t k = s->irr_count++;
  s->irr_point[k] = p;
  s->irr_address[k] = address;
  s->pending[p]++;
  s->point_irr[p]++;
}

bool encoder_init(ChunkEncoder *e, uint32_t max_events, int version) {
  memset(e, 0, sizeof *e);
  e->max_events = max_events;
  e->version = version;
  if (!sequitur_init(&e->sequitur, (int32_t)max_events)) return false;
  if (!fold_init(&e->folder, &e->sequitur)) {
    sequitur_free(&e->sequitur);
    return false;
  }
  chains_init(&e->chains, &e->folder, &e->sequitur);
  if (version >= 3) e->folder.chains = &e->chains;
  prsd_init(&e->detector, &e->out);
  metrics_init(&e->metrics);
  bytes_init(&e->out.desc_log, 1 << 16);
  bytes_init(&e->structure, 1 << 16);
  bytes_init(&e->residue, 1 << 16);
  e->exceptions = pages_alloc((size_t)max_events * 2 * 4 + 8);
  if (e->metrics.failed || e->out.desc_log.failed || e->structure.failed || e->residue.failed || !e->exceptions) {
    encoder_free(e);
    return false;
  }
  return true;
}

void encoder_free(ChunkEncoder *e) {
  sequitur_free(&e->sequitur);
  fold_free(&e->folder);
  chains_free(&e->chains);
  prsd_free(&e->detector);
  metrics_free(&e->metrics);
  PrsdSink *s = &e->out;
  pages_free(s->irr_point), pages_free(s->irr_address), pages_free(s->desc_point), pages_free(s->desc_bytes);
  bytes_free(&s->desc_log);
  pages_free(s->pending), pages_free(s->point_irr), pages_free(s->point_desc), pages_free(s->point_desc_bytes), pages_free(s->last_start);
  pages_free(s->touched);
  pages_free(e->size_of), pages_free(e->exceptions), pages_free(e->grouped), pages_free(e->ordered);
  bytes_free(&e->structure);
  bytes_free(&e->residue);
  memset(e, 0, sizeof *e);
}

static int ascending(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static const char *out_of_memory = "out of memory while encoding a trace chunk";

/* Writes each used point's size, counts and descriptors, and lays its irregular addresses
 * out as eight byte planes, points ascending. Both logs are grouped by point (stable) by a
 * scatter: read in order, each entry written at its point's cursor (`pending`, free now). */
static const char *write_points(ChunkEncoder *e) {
  PrsdSink *s = &e->out;
  ByteBuf *w = &e->structure;
  qsort(s->touched, s->touched_count, 4, ascending);
  size_t logged = s->desc_log.length;
  if (!grow_to((void **)&e->grouped, &e->grouped_cap, logged + 1, 1)) return out_of_memory;
  uint32_t at = 0;
  for (size_t k = 0; k < s->touched_count; k++) {
    uint32_t p = s->touched[k];
    s->pending[p] = at;
    at += s->point_desc_bytes[p];
  }
  const uint8_t *log = s->desc_log.data;
  for (size_t i = 0, from = 0; i < s->desc_count; i++) {
    uint32_t n = s->desc_bytes[i], p = s->desc_point[i];
    memcpy(e->grouped + s->pending[p], log + from, n);
    s->pending[p] += n;
    from += n;
  }

  bytes_uint(w, s->touched_count);
  uint32_t prev_point = 0;
  for (size_t k = 0; k < s->touched_count; k++) {
    uint32_t p = s->touched[k];
    bytes_uint(w, p - prev_point);
    prev_point = p;
    bytes_uint(w, (uint64_t)e->size_of[p]);
    bytes_uint(w, s->point_irr[p]);
    bytes_uint(w, s->point_desc[p]);
    uint32_t n = s->point_desc_bytes[p];
    if (n > 0 && bytes_reserve(w, n)) {
      /* pending[p] is the end of p's bytes now. */
      memcpy(w->data + w->length, e->grouped + s->pending[p] - n, n);
      w->length += n;
    }
  }
  if (w->failed) return out_of_memory;
  /* The irregular addresses in the residue's order (points ascending), then in its form. */
  size_t n = s->irr_count;
  if (n == 0) {
    e->residue.length = 0;
    return NULL;
  }
  if (!grow_to((void **)&e->ordered, &e->ordered_cap, n, 8)) return out_of_memory;
  at = 0;
  for (size_t k = 0; k < s->touched_count; k++) {
    uint32_t p = s->touched[k];
    s->pending[p] = at;
    at += s->point_irr[p];
  }
  for (size_t i = 0; i < n; i++) e->ordered[s->pending[s->irr_point[i]]++] = (uint64_t)s->irr_address[i];
  return residue_write(&e->residue, e->ordered, n, e->version >= 4);
}

const char *encoder_encode(ChunkEncoder *e, uint32_t count, const uint32_t *points, const double *addresses,
                           const uint16_t *sizes, uint32_t point_count) {
  static _Thread_local char message[200];
  if (count > e->max_events) {
    snprintf(message, sizeof message, "chunk of %u events exceeds %u", count, e->max_events);
    return message;
  }
  if (point_count > (1u << 30)) return "the point table has more than 2^30 access points";
  Sequitur *seq = &e->sequitur;
  PrsdDetector *det = &e->detector;
  RsdMetrics *metrics = &e->metrics;
  PrsdSink *out = &e->out;
  Folder *folder = &e->folder;
  bool fold = e->version >= 2, chain = e->version >= 3;
  sequitur_reset(seq);
  if (fold && !fold_reset(folder, point_count)) return out_of_memory;
  if (chain) chains_reset(&e->chains);
  sink_reset(out);
  if (!prsd_grow(det, point_count) || !metrics_grow(metrics, point_count) || !sink_grow_points(out, point_count))
    return out_of_memory;
  if (e->size_of_cap < point_count) {
    int32_t *next = pages_realloc(e->size_of, (size_t)point_count * 4);
    if (!next) return out_of_memory;
    e->size_of = next;
    e->size_of_cap = point_count;
  }
  int32_t *size_of = e->size_of;
  for (uint32_t p = 0; p < point_count; p++) size_of[p] = -1;
  uint32_t *exceptions = e->exceptions;
  size_t n_exceptions = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t p = points[i];
    double a = addresses[i];
    if (p >= point_count) {
      snprintf(message, sizeof message, "access point %u is outside the point table (%u)", p, point_count);
      return message;
    }
    /* Every address must be an exact integer a double holds (0 <= a < 2^53). */
    if (!(a >= 0 && a < TWO_53) || a != (double)(int64_t)a) {
      snprintf(message, sizeof message, "address %.17g of event %u is not an integer in [0, 2^53)", a, i);
      return message;
    }
    if (fold)
      fold_add(folder, p);
    else
      sequitur_append(seq, (int32_t)p);
    prsd_add(det, p, a);
    metrics_add(metrics, p, a);
    int32_t s = sizes[i], known = size_of[p];
    if (known != s) {
      if (known == -1)
        size_of[p] = s;
      else {
        exceptions[2 * n_exceptions] = i;
        exceptions[2 * n_exceptions + 1] = (uint32_t)s;
        n_exceptions++;
      }
    }
  }
  prsd_flush(det);
  if (fold) fold_flush(folder);
  if (chain) chains_flush(&e->chains);
  if (det->failed || out->failed || metrics->failed || (fold && folder->failed) || (chain && e->chains.failed)) return out_of_memory;

  ByteBuf *w = &e->structure;
  w->length = 0;
  bytes_uint(w, count);
  if (fold) {
    bytes_uint(w, point_count);
    bytes_uint(w, folder->markers);
    for (uint32_t m = 0; m < folder->markers; m++) {
      if (folder->marker_level[m] == CHAIN_LEVEL) {
        bytes_uint(w, CHAIN_SHAPE);
        bytes_uint(w, folder->marker_r[m] - 1);
      } else {
        bytes_uint(w, folder->marker_level[m] + FOLD_LEVELS * (folder->marker_k[m] - 1));
        bytes_uint(w, folder->marker_r[m] - 2);
      }
    }
  }
  sequitur_write(seq, w);
  const char *failed = write_points(e);
  if (failed) return failed;
  bytes_uint(w, n_exceptions);
  uint32_t prev_index = 0;
  for (size_t k = 0; k < n_exceptions; k++) {
    bytes_uint(w, exceptions[2 * k] - prev_index);
    prev_index = exceptions[2 * k];
    bytes_uint(w, exceptions[2 * k + 1]);
  }
  if (w->failed) return out_of_memory;
  e->descriptors = out->desc_count;
  e->irregular = out->irr_count;
  e->rules = sequitur_rules(seq);
  return NULL;
}
