/* The record ring: the tool's records reach Stride through shared memory instead of a pipe.
 *   traceRing(blocks, blockBytes) -> [ring, memFd, tokenRead, tokenWrite, ackRead, ackWrite]
 *   traceRingCopy(ring, block, from, into, at, bytes): copies bytes of a block into `into`
 *   traceRingAck(ackWrite): gives one block back to the tool
 *   traceRingClose(ring): unmaps the ring (also done when the handle is collected)
 * The tool (st_main.c, --ring-fd) fills `blocks` blocks of `blockBytes` in turn. For each full
 * one it writes a token (its record count, a u32) into the token pipe; Stride copies the block
 * into its staging buffer and acknowledges it with one byte on the ack pipe; the tool waits
 * for an acknowledgement only when every block is in Stride's hands. Through a pipe, each
 * record was copied into the kernel and out again: a tenth of a second of the tool's time for a
 * 15 M-access trace (docs/BENCHMARKS.md at cb83178, "The records through shared memory"). Every fd is
 * close-on-exec; spawn dup2s the tool's ends onto its fds, which clears the flag there. */
#define _GNU_SOURCE
#include "../addon.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
  uint8_t *base;
  size_t bytes;
  uint32_t blocks, block_bytes;
} Ring;

static const napi_type_tag RING_TAG = {0x5d1c2a7e4b3f9061ULL, 0x8e2a4c6b1d3f5a70ULL};

static void unmap(Ring *r) {
  if (r->base) munmap(r->base, r->bytes);
  r->base = NULL;
}

static void ring_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  unmap(data);
  free(data);
}

static napi_value failed(napi_env env, const char *what, int fds[], int n) {
  char message[160];
  snprintf(message, sizeof message, "cannot make the trace's record ring (%s: %s)", what, strerror(errno));
  for (int i = 0; i < n; i++)
    if (fds[i] >= 0) close(fds[i]);
  return stride_throw(env, message);
}

static napi_value make_ring(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint32_t blocks, block_bytes;
  if (!stride_args(env, info, 2, argv) || !stride_u32(env, argv[0], &blocks, "blocks") || !stride_u32(env, argv[1], &block_bytes, "blockBytes")) return NULL;
  if (blocks < 2 || blocks > 64 || block_bytes < 4096 || block_bytes % 4096 != 0 || block_bytes > (64u << 20))
    return stride_throw(env, "traceRing: 2-64 blocks of a whole number of pages, at most 64 MiB each");
  int fds[5] = {-1, -1, -1, -1, -1};
  fds[0] = memfd_create("stride-records", MFD_CLOEXEC);
  if (fds[0] < 0) return failed(env, "memfd_create", fds, 5);
  size_t bytes = (size_t)blocks * block_bytes;
  if (ftruncate(fds[0], (off_t)bytes) != 0) return failed(env, "ftruncate", fds, 5);
  if (pipe2(fds + 1, O_CLOEXEC) != 0) return failed(env, "pipe", fds, 5);
  if (pipe2(fds + 3, O_CLOEXEC) != 0) return failed(env, "pipe", fds, 5);
  /* The pages are made now, while the tool starts (a first-touch fault costs ~14 us here). */
  uint8_t *base = mmap(NULL, bytes, PROT_READ, MAP_SHARED | MAP_POPULATE, fds[0], 0);
  if (base == MAP_FAILED) return failed(env, "mmap", fds, 5);
  Ring *r = calloc(1, sizeof *r);
  if (!r) {
    munmap(base, bytes);
    errno = ENOMEM;
    return failed(env, "calloc", fds, 5);
  }
  *r = (Ring){base, bytes, blocks, block_bytes};
  napi_value handle = stride_external(env, r, ring_finalize, &RING_TAG);
  if (!handle) {
    for (int i = 0; i < 5; i++) close(fds[i]);
    return NULL;
  }
  napi_value out;
  STRIDE_CALL(env, napi_create_array_with_length(env, 6, &out));
  STRIDE_CALL(env, napi_set_element(env, out, 0, handle));
  for (uint32_t i = 0; i < 5; i++) STRIDE_CALL(env, napi_set_element(env, out, i + 1, stride_number(env, fds[i])));
  return out;
}

static napi_value copy(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  uint32_t block, from, at, bytes;
  size_t length;
  if (!stride_args(env, info, 6, argv)) return NULL;
  Ring *r = stride_unwrap(env, argv[0], &RING_TAG, "record ring");
  uint8_t *into = r ? stride_typed_array(env, argv[3], napi_uint8_array, &length, "into") : NULL;
  if (!into || !stride_u32(env, argv[1], &block, "block") || !stride_u32(env, argv[2], &from, "from") || !stride_u32(env, argv[4], &at, "at") ||
      !stride_u32(env, argv[5], &bytes, "bytes"))
    return NULL;
  if (!r->base) return stride_throw(env, "traceRingCopy: the ring is closed");
  if (block >= r->blocks || (uint64_t)from + bytes > r->block_bytes || (uint64_t)at + bytes > length) return stride_throw(env, "traceRingCopy: out of bounds");
  memcpy(into + at, r->base + (size_t)block * r->block_bytes + from, bytes);
  return NULL;
}

static napi_value ack(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  uint32_t fd;
  if (!stride_args(env, info, 1, argv) || !stride_u32(env, argv[0], &fd, "fd")) return NULL;
  /* At most `blocks` bytes are ever unread in this pipe: a write never blocks. A tool that has
   * exited leaves it without a reader (EPIPE; Node ignores SIGPIPE): nothing to give back. */
  const char one = 1;
  ssize_t n;
  do n = write((int)fd, &one, 1);
  while (n < 0 && errno == EINTR);
  napi_value out;
  STRIDE_CALL(env, napi_get_boolean(env, n == 1, &out));
  return out;
}

static napi_value close_ring(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!stride_args(env, info, 1, argv)) return NULL;
  Ring *r = stride_unwrap(env, argv[0], &RING_TAG, "record ring");
  if (r) unmap(r);
  return NULL;
}

napi_status stride_register_ring(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"traceRing", NULL, make_ring, NULL, NULL, NULL, napi_enumerable, NULL},
      {"traceRingCopy", NULL, copy, NULL, NULL, NULL, napi_enumerable, NULL},
      {"traceRingAck", NULL, ack, NULL, NULL, NULL, napi_enumerable, NULL},
      {"traceRingClose", NULL, close_ring, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, 4, d);
}
