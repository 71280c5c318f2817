/* Child processes for the symbol tools (nm, gdb, ldd, objdump, llvm-symbolizer), started with
 * posix_spawn instead of Node's spawn:
 *   procSpawn(file, argv, env) -> [pid, stdinFd, stdoutFd, stderrFd] (argv[0] first; env as
 *     KEY=VALUE strings; file looked up in PATH as execvp does)
 *   procWait(pid) -> Promise<[exitCode, signal]> (signal 0: exited; exitCode -1: killed)
 * Node's spawn forks the whole process: the page tables of every thread's heap are copied
 * before the child execs, and the calling thread waits for it. In a trace worker of the app
 * that cost 10-50 ms a spawn (a dozen per trace, most of them on the way to the program's
 * records or its report), as much as the tools' own run. glibc's posix_spawn shares the
 * parent's memory until the exec (CLONE_VM | CLONE_VFORK): well under a millisecond however
 * large the process.
 * The child gets three pipes (close-on-exec on our side, so no other child inherits them), the
 * signal dispositions and mask a fresh process has (Node ignores SIGPIPE; libuv's own spawn
 * resets them too), and `env`. Failing to start (the tool is not installed: ENOENT) throws an
 * Error whose `code` is the errno name. procWait blocks a thread-pool thread in waitpid: call
 * it once the child's output has ended, when it is exiting anyway. Only its own children are
 * reaped: libuv's SIGCHLD handler waits for the pids it spawned, one by one. */
#define _GNU_SOURCE
#include "../addon.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Frees a NULL-terminated array of strings made by strings_of. */
static void free_strings(char **list) {
  if (!list) return;
  for (char **p = list; *p; p++) free(*p);
  free(list);
}

/* A JavaScript array of strings as a NULL-terminated C array (NULL after throwing). */
static char **strings_of(napi_env env, napi_value array, const char *what) {
  bool is_array = false;
  uint32_t n = 0;
  char message[120];
  if (napi_is_array(env, array, &is_array) != napi_ok || !is_array || napi_get_array_length(env, array, &n) != napi_ok) {
    snprintf(message, sizeof message, "%s must be an array of strings", what);
    napi_throw_type_error(env, NULL, message);
    return NULL;
  }
  char **list = calloc((size_t)n + 1, sizeof *list);
  if (!list) return (char **)stride_throw(env, "out of memory starting a process");
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    size_t length = 0;
    if (napi_get_element(env, array, i, &item) != napi_ok || napi_get_value_string_utf8(env, item, NULL, 0, &length) != napi_ok) {
      free_strings(list);
      snprintf(message, sizeof message, "%s must be an array of strings", what);
      napi_throw_type_error(env, NULL, message);
      return NULL;
    }
    list[i] = malloc(length + 1);
    if (!list[i] || napi_get_value_string_utf8(env, item, list[i], length + 1, &length) != napi_ok) {
      free_strings(list);
      return (char **)stride_throw(env, "out of memory starting a process");
    }
    /* An argument with a NUL in it would be cut short without a word. */
    if (strlen(list[i]) != length) {
      free_strings(list);
      snprintf(message, sizeof message, "%s must not hold NUL characters", what);
      napi_throw_type_error(env, NULL, message);
      return NULL;
    }
  }
  return list;
}

static void close_all(int *fds, int n) {
  for (int i = 0; i < n; i++)
    if (fds[i] >= 0) close(fds[i]);
}

/* Throws an Error with the errno's name as its `code` (as Node's own spawn errors have). */
static napi_value throw_errno(napi_env env, int err, const char *file) {
  char message[300];
  const char *name = err == ENOENT ? "ENOENT" : err == EACCES ? "EACCES" : err == ENOMEM ? "ENOMEM" : err == E2BIG ? "E2BIG" : "ESPAWN";
  snprintf(message, sizeof message, "cannot start %s: %s", file, strerror(err));
  napi_throw_error(env, name, message);
  return NULL;
}

static napi_value proc_spawn(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!stride_args(env, info, 3, argv)) return NULL;
  size_t length = 0;
  char file[4096];
  if (napi_get_value_string_utf8(env, argv[0], file, sizeof file, &length) != napi_ok || length == 0 || length >= sizeof file - 1) {
    napi_throw_type_error(env, NULL, "the program must be a non-empty string");
    return NULL;
  }
  char **args = strings_of(env, argv[1], "args");
  if (!args) return NULL;
  if (!args[0]) {
    free_strings(args);
    napi_throw_type_error(env, NULL, "args must hold the program's name first (argv[0])");
    return NULL;
  }
  char **envp = strings_of(env, argv[2], "env");
  if (!envp) {
    free_strings(args);
    return NULL;
  }
  /* Per stream, [our end, the child's end]; stdin's child end is its reading end. */
  int fds[6] = {-1, -1, -1, -1, -1, -1};
  int err = 0;
  for (int k = 0; k < 3 && !err; k++) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
      err = errno;
      break;
    }
    fds[2 * k] = k == 0 ? p[1] : p[0];
    fds[2 * k + 1] = k == 0 ? p[0] : p[1];
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  bool made_actions = false, made_attr = false;
  if (!err) err = posix_spawn_file_actions_init(&actions);
  if (!err) made_actions = true;
  /* dup2 onto 0..2 clears close-on-exec there; every other end closes at the exec. */
  for (int k = 0; k < 3 && !err; k++) err = posix_spawn_file_actions_adddup2(&actions, fds[2 * k + 1], k);
  if (!err) err = posix_spawnattr_init(&attr);
  if (!err) made_attr = true;
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  if (!err) err = posix_spawnattr_setsigmask(&attr, &none);
  if (!err) err = posix_spawnattr_setsigdefault(&attr, &all);
  if (!err) err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  if (!err) err = posix_spawnp(&pid, file, &actions, &attr, args, envp);
  if (made_actions) posix_spawn_file_actions_destroy(&actions);
  if (made_attr) posix_spawnattr_destroy(&attr);
  free_strings(args);
  free_strings(envp);
  /* The child's ends are its own now (or nobody's). */
  for (int k = 0; k < 3; k++)
    if (fds[2 * k + 1] >= 0) close(fds[2 * k + 1]);
  if (err) {
    int ours[3] = {fds[0], fds[2], fds[4]};
    close_all(ours, 3);
    return throw_errno(env, err, file);
  }
  napi_value out;
  STRIDE_CALL(env, napi_create_array_with_length(env, 4, &out));
  double values[4] = {pid, fds[0], fds[2], fds[4]};
  for (uint32_t i = 0; i < 4; i++) STRIDE_CALL(env, napi_set_element(env, out, i, stride_number(env, values[i])));
  return out;
}

typedef struct {
  StrideWork w;
  pid_t pid;
  int status;
} AsyncWait;

static void wait_execute(napi_env env, void *data) {
  AsyncWait *a = data;
  pid_t got;
  do got = waitpid(a->pid, &a->status, 0);
  while (got == -1 && errno == EINTR);
  if (got == -1) stride_work_fail(&a->w, "cannot wait for the process: ", strerror(errno));
}

static void wait_complete(napi_env env, napi_status status, void *data) {
  AsyncWait *a = data;
  napi_value out = NULL;
  if (status == napi_ok && !a->w.failed && napi_create_array_with_length(env, 2, &out) == napi_ok) {
    bool exited = WIFEXITED(a->status);
    napi_set_element(env, out, 0, stride_number(env, exited ? WEXITSTATUS(a->status) : -1));
    napi_set_element(env, out, 1, stride_number(env, WIFSIGNALED(a->status) ? WTERMSIG(a->status) : 0));
  }
  stride_settle_work(env, &a->w, out, "the wait for the process was cancelled");
  free(a);
}

static napi_value proc_wait(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  uint32_t pid;
  if (!stride_args(env, info, 1, argv) || !stride_u32(env, argv[0], &pid, "pid")) return NULL;
  if (pid == 0) return stride_throw(env, "pid must be a process id");
  AsyncWait *a = calloc(1, sizeof *a);
  if (!a) return stride_throw(env, "out of memory waiting for a process");
  a->pid = (pid_t)pid;
  napi_value promise = stride_queue_work(env, &a->w, "strideProcWait", NULL, 0, wait_execute, wait_complete);
  if (!promise) free(a);
  return promise;
}

napi_status stride_register_proc(napi_env env, napi_value exports) {
  napi_property_descriptor d[] = {
      {"procSpawn", NULL, proc_spawn, NULL, NULL, NULL, napi_enumerable, NULL},
      {"procWait", NULL, proc_wait, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, 2, d);
}
