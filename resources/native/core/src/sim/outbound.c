/* See outbound.h. */
#include "outbound.h"
#include <stdlib.h>
#include <string.h>

static bool grow(void **p, size_t cap, size_t width) {
  void *next = realloc(*p, cap * width);
  if (!next) return false;
  *p = next;
  return true;
}

bool outbound_push(SimOutbound *o, uint64_t index, int32_t point, uint64_t address, uint32_t bytes, uint32_t kind) {
  if (o->failed) return false;
  if (o->n == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 4096;
    if (!grow((void **)&o->index, cap, 8) || !grow((void **)&o->address, cap, 8) || !grow((void **)&o->point, cap, 4) || !grow((void **)&o->size_kind, cap, 4)) {
      o->failed = true;
      return false;
    }
    o->cap = cap;
  }
  o->index[o->n] = index;
  o->address[o->n] = address;
  o->point[o->n] = point;
  o->size_kind[o->n] = bytes << 2 | kind;
  o->n++;
  return true;
}

void outbound_free(SimOutbound *o) {
  free(o->index);
  free(o->address);
  free(o->point);
  free(o->size_kind);
  memset(o, 0, sizeof *o);
}
