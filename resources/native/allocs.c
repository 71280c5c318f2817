/*
 * stride-allocs.so: an LD_PRELOAD interposer for malloc, calloc, realloc, free and the aligned
 * allocators (posix_memalign, aligned_alloc, memalign, valloc, pvalloc) that reports
 * each call through Valgrind's client-request printf. Valgrind writes those lines into the same
 * log stream as lackey's trace, so every allocation arrives in order with the accesses around
 * it (no clock, no second pipe to merge). Outside Valgrind the reports are no-ops.
 *
 * Line format (after Valgrind's "**PID** " prefix):
 *   stride-alloc m|c|r PTR SIZE OLD SITE   (OLD is the realloc'd pointer, else 0)
 *   stride-alloc f PTR
 * SITE is the return address into the allocating function. An allocation line is followed
 * by Valgrind's own backtrace ("==PID==    at 0x...: malloc", "by 0x...: caller", ...):
 * Valgrind unwinds natively, so the call stack costs no traced instructions (glibc's
 * backtrace() would run its unwinder as guest code, and lackey would trace all of it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <valgrind/valgrind.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);

/* dlsym may itself call calloc before real_calloc is known: serve it from here. */
static char bootstrap[8192];
static size_t bootstrap_used;
static __thread int busy;

static void resolve(void) {
  if (real_malloc) return;
  busy = 1;
  real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
  real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
  real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
  real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
  /* glibc's aligned allocators do not go through malloc: wrap them too (PolyBench's arrays
   * come from posix_memalign). C++ operator new and strdup call malloc, so they are seen. */
  real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
  real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
  real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
  real_valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
  real_pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
  busy = 0;
}

static int from_bootstrap(void *p) {
  return (char *)p >= bootstrap && (char *)p < bootstrap + sizeof bootstrap;
}

/* Inlined so the backtrace's first frame is the wrapper and its second the allocating function. */
static inline __attribute__((always_inline)) void report(char kind, void *p, size_t size, void *old, void *site) {
  VALGRIND_PRINTF_BACKTRACE("stride-alloc %c %lx %lx %lx %lx\n", kind, (unsigned long)p, (unsigned long)size,
                            (unsigned long)old, (unsigned long)site);
}

void *malloc(size_t size) {
  resolve();
  void *p = real_malloc(size);
  if (p && !busy) report('m', p, size, 0, __builtin_return_address(0));
  return p;
}

void *calloc(size_t n, size_t size) {
  if (!real_calloc) {
    if (busy) {
      size_t bytes = (n * size + 15) & ~(size_t)15;
      if (bootstrap_used + bytes > sizeof bootstrap) return NULL;
      void *p = bootstrap + bootstrap_used;
      bootstrap_used += bytes;
      memset(p, 0, bytes);
      return p;
    }
    resolve();
  }
  void *p = real_calloc(n, size);
  if (p && !busy) report('c', p, n * size, 0, __builtin_return_address(0));
  return p;
}

void *realloc(void *old, size_t size) {
  resolve();
  if (from_bootstrap(old)) {
    void *p = real_malloc(size);
    if (p) memcpy(p, old, size);
    return p;
  }
  void *p = real_realloc(old, size);
  if (p && !busy) report('r', p, size, old, __builtin_return_address(0));
  return p;
}

void free(void *p) {
  if (!p || from_bootstrap(p)) return;
  resolve();
  if (!busy) VALGRIND_PRINTF("stride-alloc f %lx\n", (unsigned long)p);
  real_free(p);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  resolve();
  int r = real_posix_memalign(out, alignment, size);
  if (r == 0 && *out && !busy) report('m', *out, size, 0, __builtin_return_address(0));
  return r;
}

void *aligned_alloc(size_t alignment, size_t size) {
  resolve();
  void *p = real_aligned_alloc(alignment, size);
  if (p && !busy) report('m', p, size, 0, __builtin_return_address(0));
  return p;
}

void *memalign(size_t alignment, size_t size) {
  resolve();
  void *p = real_memalign(alignment, size);
  if (p && !busy) report('m', p, size, 0, __builtin_return_address(0));
  return p;
}

void *valloc(size_t size) {
  resolve();
  void *p = real_valloc(size);
  if (p && !busy) report('m', p, size, 0, __builtin_return_address(0));
  return p;
}

void *pvalloc(size_t size) {
  resolve();
  void *p = real_pvalloc(size);
  if (p && !busy) report('m', p, size, 0, __builtin_return_address(0));
  return p;
}

