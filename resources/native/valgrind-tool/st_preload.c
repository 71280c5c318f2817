/* vgpreload_stride: wraps (never replaces) every allocator the program can call, and tells
   the tool what each returned through client requests, so heap addresses stay what the
   program gets natively (Cachegrind equality depends on it). Valgrind's function wrapping:
   the wrapper runs in place of the function, calls the original through CALL_FN_*, and the
   tool takes the stack trace at the request. The tool does not instrument this object.

   Each wrapper sends ST_REQ_ENTER first and exactly one ST_REQ_ALLOC or ST_REQ_FREE after:
   the tool reports only the outermost call (operator new calls malloc, realloc may free).
   Soname Za ("*"): the C library's allocator, libstdc++'s operators, or a program's own. */
#include <stddef.h>
#include "valgrind.h"
#include "st_protocol.h"

typedef unsigned long W;

#define ENTER() VALGRIND_DO_CLIENT_REQUEST_STMT(ST_REQ_ENTER, 0, 0, 0, 0, 0)
#define REPORT(op, p, n, old) VALGRIND_DO_CLIENT_REQUEST_STMT(ST_REQ_ALLOC, op, p, n, old, 0)
#define REPORT_FREE(p) VALGRIND_DO_CLIENT_REQUEST_STMT(ST_REQ_FREE, p, 0, 0, 0, 0)

/* fn(n): malloc, valloc, pvalloc, operator new and new[] in every form with one size. */
#define WRAP_1(name, op)                                             \
   void* I_WRAP_SONAME_FNNAME_ZU(Za, name)(size_t n);                \
   void* I_WRAP_SONAME_FNNAME_ZU(Za, name)(size_t n) {               \
      OrigFn fn; W r;                                                \
      VALGRIND_GET_ORIG_FN(fn);                                      \
      ENTER();                                                       \
      CALL_FN_W_W(r, fn, n);                                         \
      REPORT(op, r, n, 0);                                           \
      return (void*)r;                                               \
   }

/* fn(n, x) where x is an alignment or a nothrow tag: the size is the first argument. */
#define WRAP_SIZE_X(name, op)                                        \
   void* I_WRAP_SONAME_FNNAME_ZU(Za, name)(size_t n, W x);           \
   void* I_WRAP_SONAME_FNNAME_ZU(Za, name)(size_t n, W x) {          \
      OrigFn fn; W r;                                                \
      VALGRIND_GET_ORIG_FN(fn);                                      \
      ENTER();                                                       \
      CALL_FN_W_WW(r, fn, n, x);                                     \
      REPORT(op, r, n, 0);                                           \
      return (void*)r;                                               \
   }

/* operator new(size, align_val_t, nothrow_t). */
#define WRAP_SIZE_X_Y(name, op)                                      \
   void* I_WRAP_SONAME_FNNAME_ZU(Za, name)(size_t n, W x, W y);      \
   void* I_WRAP_SONAME_FNNAME_ZU(Za, name)(size_t n, W x, W y) {     \
      OrigFn fn; W r;                                                \
      VALGRIND_GET_ORIG_FN(fn);                                      \
      ENTER();                                                       \
      CALL_FN_W_WWW(r, fn, n, x, y);                                 \
      REPORT(op, r, n, 0);                                           \
      return (void*)r;                                               \
   }

/* fn(alignment, n): memalign, aligned_alloc. */
#define WRAP_ALIGN_SIZE(name)                                        \
   void* I_WRAP_SONAME_FNNAME_ZU(Za, name)(size_t al, size_t n);     \
   void* I_WRAP_SONAME_FNNAME_ZU(Za, name)(size_t al, size_t n) {    \
      OrigFn fn; W r;                                                \
      VALGRIND_GET_ORIG_FN(fn);                                      \
      ENTER();                                                       \
      CALL_FN_W_WW(r, fn, al, n);                                    \
      REPORT(ST_OP_MEMALIGN, r, n, 0);                               \
      return (void*)r;                                               \
   }

/* free and every operator delete: the block is the first argument; the rest (size,
   alignment, nothrow) is passed on untouched. */
#define WRAP_FREE(name)                                              \
   void I_WRAP_SONAME_FNNAME_ZU(Za, name)(void* p, W x, W y);        \
   void I_WRAP_SONAME_FNNAME_ZU(Za, name)(void* p, W x, W y) {       \
      OrigFn fn;                                                     \
      VALGRIND_GET_ORIG_FN(fn);                                      \
      ENTER();                                                       \
      CALL_FN_v_WWW(fn, p, x, y);                                    \
      REPORT_FREE(p);                                                \
   }

WRAP_1(malloc, ST_OP_MALLOC)
WRAP_1(valloc, ST_OP_MEMALIGN)
WRAP_1(pvalloc, ST_OP_MEMALIGN)
WRAP_1(_Znwm, ST_OP_NEW)                            /* new(size_t) */
WRAP_1(_Znam, ST_OP_NEW_ARRAY)                      /* new[](size_t) */
WRAP_SIZE_X(_ZnwmRKSt9nothrow_t, ST_OP_NEW)          /* new(size_t, nothrow_t) */
WRAP_SIZE_X(_ZnamRKSt9nothrow_t, ST_OP_NEW_ARRAY)
WRAP_SIZE_X(_ZnwmSt11align_val_t, ST_OP_NEW)         /* new(size_t, align_val_t) */
WRAP_SIZE_X(_ZnamSt11align_val_t, ST_OP_NEW_ARRAY)
WRAP_SIZE_X_Y(_ZnwmSt11align_val_tRKSt9nothrow_t, ST_OP_NEW)
WRAP_SIZE_X_Y(_ZnamSt11align_val_tRKSt9nothrow_t, ST_OP_NEW_ARRAY)
WRAP_ALIGN_SIZE(memalign)
WRAP_ALIGN_SIZE(aligned_alloc)

WRAP_FREE(free)
WRAP_FREE(cfree)
WRAP_FREE(_ZdlPv)                                   /* delete(void*) */
WRAP_FREE(_ZdaPv)
WRAP_FREE(_ZdlPvm)                                  /* sized */
WRAP_FREE(_ZdaPvm)
WRAP_FREE(_ZdlPvSt11align_val_t)
WRAP_FREE(_ZdaPvSt11align_val_t)
WRAP_FREE(_ZdlPvmSt11align_val_t)
WRAP_FREE(_ZdaPvmSt11align_val_t)
WRAP_FREE(_ZdlPvRKSt9nothrow_t)
WRAP_FREE(_ZdaPvRKSt9nothrow_t)
WRAP_FREE(_ZdlPvSt11align_val_tRKSt9nothrow_t)
WRAP_FREE(_ZdaPvSt11align_val_tRKSt9nothrow_t)

void* I_WRAP_SONAME_FNNAME_ZU(Za, calloc)(size_t n, size_t m);
void* I_WRAP_SONAME_FNNAME_ZU(Za, calloc)(size_t n, size_t m) {
   OrigFn fn; W r;
   VALGRIND_GET_ORIG_FN(fn);
   ENTER();
   CALL_FN_W_WW(r, fn, n, m);
   REPORT(ST_OP_CALLOC, r, n * m, 0);
   return (void*)r;
}

/* realloc(p, 0) that returns NULL freed p; a failed realloc leaves p allocated. */
static void realloc_done(W r, void* p, size_t n) {
   if (r) REPORT(ST_OP_REALLOC, r, n, (W)p);
   else if (p && n == 0) REPORT_FREE(p);
   else REPORT(ST_OP_REALLOC, 0, n, 0);
}

void* I_WRAP_SONAME_FNNAME_ZU(Za, realloc)(void* p, size_t n);
void* I_WRAP_SONAME_FNNAME_ZU(Za, realloc)(void* p, size_t n) {
   OrigFn fn; W r;
   VALGRIND_GET_ORIG_FN(fn);
   ENTER();
   CALL_FN_W_WW(r, fn, p, n);
   realloc_done(r, p, n);
   return (void*)r;
}

void* I_WRAP_SONAME_FNNAME_ZU(Za, reallocarray)(void* p, size_t n, size_t m);
void* I_WRAP_SONAME_FNNAME_ZU(Za, reallocarray)(void* p, size_t n, size_t m) {
   OrigFn fn; W r;
   VALGRIND_GET_ORIG_FN(fn);
   ENTER();
   CALL_FN_W_WWW(r, fn, p, n, m);
   realloc_done(r, p, n * m);
   return (void*)r;
}

int I_WRAP_SONAME_FNNAME_ZU(Za, posix_memalign)(void** out, size_t al, size_t n);
int I_WRAP_SONAME_FNNAME_ZU(Za, posix_memalign)(void** out, size_t al, size_t n) {
   OrigFn fn; W r;
   VALGRIND_GET_ORIG_FN(fn);
   ENTER();
   CALL_FN_W_WWW(r, fn, out, al, n);
   REPORT(ST_OP_MEMALIGN, r == 0 ? (W)*out : 0, n, 0);
   return (int)r;
}
