/* A pipe for the tool's record stream, made here because Node has no pipe(2):
 *   tracePipe(capacity) -> [readFd, writeFd, bytes]
 *   tracePipeClose(fd): closes the write end once the tool has its copy (fs.closeSync would
 *     warn in a worker thread about an fd that fs did not open)
 * Both ends are close-on-exec (spawn dup2s the write end onto the tool's fd 3, which clears
 * the flag there, and no other child inherits it, so the reader sees end-of-file when the
 * tool exits). The pipe is grown to `capacity` bytes where the kernel allows (bytes: what it
 * got): the tool writes 1.5 MiB blocks, and a deeper pipe means fewer wake-ups on both
 * sides. The reader reads the pipe straight into its staging buffer (net.Socket's onread), so
 * no Buffer is allocated per read, as one was for a child_process pipe. */
#define _GNU_SOURCE
#include "../addon.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static napi_value make_pipe(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  uint32_t capacity;
  if (!stride_args(env, info, 1, argv) || !stride_u32(env, argv[0], &capacity, "capacity")) return NULL;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    char message[120];
    snprintf(message, sizeof message, "cannot create a pipe for the trace: %s", strerror(errno));
    return stride_throw(env, message);
  }
  int bytes = fcntl(fds[1], F_GETPIPE_SZ);
  if (capacity > (uint32_t)bytes) {
    /* Above /proc/sys/fs/pipe-max-size (1 MiB by default) an unprivileged process is refused. */
    int got = fcntl(fds[1], F_SETPIPE_SZ, (int)(capacity > (1u << 30) ? 1u << 30 : capacity));
    if (got > 0) bytes = got;
  }
  napi_value out;
  STRIDE_CALL(env, napi_create_array_with_length(env, 3, &out));
  for (uint32_t i = 0; i < 3; i++) {
    napi_value v = stride_number(env, i < 2 ? fds[i] : bytes);
    STRIDE_CALL(env, napi_set_element(env, out, i, v));
  }
  return out;
}

static napi_value close_end(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  uint32_t fd;
  if (!stride_args(env, info, 1, argv) || !stride_u32(env, argv[0], &fd, "fd")) return NULL;
  close((int)fd);
  return NULL;
}

napi_status stride_register_pipe(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"tracePipe", NULL, make_pipe, NULL, NULL, NULL, napi_enumerable, NULL},
      {"tracePipeClose", NULL, close_end, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, 2, d);
}
