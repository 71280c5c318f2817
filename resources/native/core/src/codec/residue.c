/* The residue's two forms; see residue.h and src/main/compress/residue.ts. */
#include "residue.h"
#include "brotli.h"
#include "scratch.h"
#include <stdlib.h>

static void planes_into(uint8_t *out, const uint64_t *a, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint64_t v = a[i];
    for (int b = 0; b < 8; b++, v >>= 8) out[b * n + i] = (uint8_t)v;
  }
}

/* Zigzag of the difference from the address before (addresses below 2^53: exact). */
static void deltas_into(ByteBuf *b, const uint64_t *a, size_t n) {
  uint64_t prev = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t d = (int64_t)(a[i] - prev);
    prev = a[i];
    bytes_uint(b, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
  }
}

/* Brotli's size of a sample at quality 1, as residue.ts's trial; 0 when out of memory. */
static size_t trial_bytes(const uint8_t *data, size_t n) {
  BrotliSetting s = {1, 16, 0};
  uint8_t *out = NULL;
  size_t length = 0;
  if (brotli_compress(data, n, &s, &out, &length)) return 0;
  free(out);
  return length;
}

/* Deltas, unless planes compress smaller on the first RESIDUE_SAMPLE addresses (tried above
 * RESIDUE_UNTRIED addresses only). */
static int form_of(const uint64_t *a, size_t n, const char **problem) {
  if (n <= RESIDUE_UNTRIED) return RESIDUE_DELTAS;
  size_t m = n < RESIDUE_SAMPLE ? n : RESIDUE_SAMPLE;
  ByteBuf sample;
  bytes_init(&sample, m * 8);
  if (sample.failed || !bytes_reserve(&sample, m * 8)) {
    bytes_free(&sample);
    *problem = "out of memory while encoding a trace chunk";
    return RESIDUE_DELTAS;
  }
  planes_into(sample.data, a, m);
  size_t planes = trial_bytes(sample.data, m * 8);
  sample.length = 0;
  deltas_into(&sample, a, m);
  size_t deltas = sample.failed ? 0 : trial_bytes(sample.data, sample.length);
  bytes_free(&sample);
  if (!planes || !deltas) *problem = "out of memory while encoding a trace chunk";
  return deltas <= planes ? RESIDUE_DELTAS : RESIDUE_PLANES;
}

const char *residue_write(ByteBuf *r, const uint64_t *a, size_t n, bool v4) {
  r->length = 0;
  if (n == 0) return NULL;
  const char *problem = NULL;
  int form = v4 ? form_of(a, n, &problem) : RESIDUE_PLANES;
  if (problem) return problem;
  if (v4) {
    if (!bytes_reserve(r, 1)) return "out of memory while encoding a trace chunk";
    r->data[r->length++] = (uint8_t)form;
  }
  if (form == RESIDUE_DELTAS) {
    deltas_into(r, a, n);
  } else {
    if (!bytes_reserve(r, n * 8)) return "out of memory while encoding a trace chunk";
    planes_into(r->data + r->length, a, n);
    r->length += n * 8;
  }
  return r->failed ? "out of memory while encoding a trace chunk" : NULL;
}

const char *residue_read_deltas(const uint8_t *in, size_t length, size_t most, uint64_t **out, size_t *n) {
  /* Counted first (a varint ends at a byte below 128), so the array is allocated once. */
  size_t count = 0;
  for (size_t i = 0; i < length; i++) count += in[i] < 128;
  if (length > 0 && in[length - 1] >= 128) return "its irregular addresses end inside a varint";
  if (count > most) return "it holds more irregular addresses than accesses";
  uint64_t *a = scratch_alloc(NULL, (count + 1) * 8);
  if (!a) return "out of memory";
  uint64_t prev = 0;
  size_t at = 0;
  for (size_t k = 0; k < count; k++) {
    uint64_t z = 0;
    unsigned shift = 0;
    for (;;) {
      uint8_t x = in[at++];
      z |= (uint64_t)(x & 127) << shift;
      shift += 7;
      if (!(x & 128)) break;
      if (shift >= 63) {
        scratch_free(NULL, a);
        return "an irregular address delta is too long";
      }
    }
    int64_t d = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    uint64_t v = prev + (uint64_t)d;
    if (v > 9007199254740991ull) {
      scratch_free(NULL, a);
      return "its irregular addresses run out or are not below 2^53";
    }
    a[k] = prev = v;
  }
  *out = a;
  *n = count;
  return NULL;
}
