/*
 * stride-pipebuf: runs a command whose fd 3 is a 1 MiB pipe, and relays that pipe to our
 * own fd 3 in large blocks.
 *
 * Why: lackey writes one line per write() (about 20 bytes). A reader that waits on such a
 * pipe is woken for every line, and Node's own stdio channel (a socketpair) fills after a few
 * hundred small writes. Reading a big pipe in gulps, with a short sleep when little has
 * arrived, lets the tracer run at nearly the speed it has writing to /dev/null.
 *
 * The first thing written to fd 3 is the line "==stride-pipebuf== pid N" naming the child,
 * so the caller can read /proc/N/maps. Exit status is the child's (128+signal if killed).
 * The child gets SIGKILL if this process dies (PR_SET_PDEATHSIG), so stopping is one kill.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE (1 << 20)
#define SMALL_READ (256 * 1024)

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: stride-pipebuf COMMAND [ARGS...]\n");
    return 2;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    perror("stride-pipebuf: pipe");
    return 2;
  }
  /* Best effort: the limit is /proc/sys/fs/pipe-max-size (1 MiB by default). */
  fcntl(fds[0], F_SETPIPE_SZ, BUF_SIZE);
  pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) {
    perror("stride-pipebuf: fork");
    return 2;
  }
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (dup2(fds[1], 3) < 0) _exit(127); /* dup2 clears O_CLOEXEC on fd 3 */
    execvp(argv[1], argv + 1);
    fprintf(stderr, "stride-pipebuf: cannot run %s: %s\n", argv[1], strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  char header[64];
  int len = snprintf(header, sizeof header, "==stride-pipebuf== pid %d\n", (int)child);
  if (write_all(3, header, (size_t)len) != 0) return 2;

  char *buf = malloc(BUF_SIZE);
  if (!buf) return 2;
  struct timespec nap = {0, 2 * 1000 * 1000};
  for (;;) {
    ssize_t n = read(fds[0], buf, BUF_SIZE);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0) break;
    if (write_all(3, buf, (size_t)n) != 0) {
      /* The reader went away (trace stopped): stop the child too. */
      kill(child, SIGKILL);
      break;
    }
    if (n < SMALL_READ) nanosleep(&nap, NULL);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}
