/* Shared by every part of the core: registration hooks and small Node-API helpers. */
#ifndef STRIDE_ADDON_H
#define STRIDE_ADDON_H
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Each part adds its functions and classes to the module's exports. */
napi_status stride_register_sim(napi_env env, napi_value exports);
napi_status stride_register_shadow(napi_env env, napi_value exports);
napi_status stride_register_codec(napi_env env, napi_value exports);
napi_status stride_register_brotli(napi_env env, napi_value exports);
napi_status stride_register_streams(napi_env env, napi_value exports);
napi_status stride_register_trace(napi_env env, napi_value exports);
napi_status stride_register_pipe(napi_env env, napi_value exports);
napi_status stride_register_ring(napi_env env, napi_value exports);
napi_status stride_register_attribute(napi_env env, napi_value exports);
napi_status stride_register_column(napi_env env, napi_value exports);
napi_status stride_register_proc(napi_env env, napi_value exports);

/* Throws a JavaScript Error with `message` and returns NULL (for `return stride_throw(...)`). */
napi_value stride_throw(napi_env env, const char *message);

/* The data pointer and element count of a typed-array argument of the expected type, or
 * NULL after throwing a TypeError naming the argument. */
void *stride_typed_array(napi_env env, napi_value value, napi_typedarray_type type, size_t *length, const char *what);

/* The first `want` arguments, or false after throwing a TypeError. */
bool stride_args(napi_env env, napi_callback_info info, size_t want, napi_value *argv);

/* An integer in [0, 2^32), or false after throwing a RangeError naming it. */
bool stride_u32(napi_env env, napi_value v, uint32_t *out, const char *what);

/* The C object behind an external made by stride_external with `tag`, or NULL after throwing. */
void *stride_unwrap(napi_env env, napi_value v, const napi_type_tag *tag, const char *what);

/* An external owning `data` (freed by `finalize` when collected), tagged with its kind. */
napi_value stride_external(napi_env env, void *data, napi_finalize finalize, const napi_type_tag *tag);

/* The typed arrays a binding holds between calls (traceScanBind, traceAttributeBind): references
 * keep them, and so their memory, alive while a loop writes through pointers into them. The
 * hold is the first member of the binding's struct. */
#define STRIDE_HOLD_MAX 32
typedef struct {
  napi_ref refs[STRIDE_HOLD_MAX];
  int count;
  bool held;
} StrideHold;

/* The binding `given` (made by stride_binding with `tag`), its arrays let go; or, for null or
 * undefined, a new one of `size` bytes (zeroed), returned in *out. NULL after throwing. */
void *stride_binding(napi_env env, napi_value given, size_t size, const napi_type_tag *tag, const char *what, napi_value *out);
/* Holds `count` arrays; false after throwing (nothing held then). */
bool stride_hold(napi_env env, StrideHold *h, const napi_value *arrays, int count, const char *what);

/* obj[name] = v; returns obj, or NULL when it failed (an exception is pending). */
napi_value stride_set(napi_env env, napi_value obj, const char *name, napi_value v);
napi_value stride_number(napi_env env, double d);

/* A new typed array of n elements of `elem` bytes; *data points at its storage. */
napi_value stride_new_typed(napi_env env, napi_typedarray_type type, size_t elem, size_t n, void **data);
/* A new Float64Array holding a copy of data[0..n). */
napi_value stride_float64_array(napi_env env, const double *data, size_t n);

/* Work on Node's thread pool that settles a promise: the first member of each export's own
 * struct (its `execute` and `complete` get that struct). */
typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref refs[5]; /* the values held while it runs */
  size_t held;
  /* Why it failed, copied on the pool's thread: a core's message may be in that thread's
   * buffer, which its next work there could overwrite before `complete` reads it. */
  char problem[200];
  bool failed;
} StrideWork;

/* Holds the `n` (<= 5) values by reference (the thread may read or write their memory), makes
 * the promise and queues `execute`; returns the promise, or NULL after throwing (nothing is
 * then held). */
napi_value stride_queue_work(napi_env env, StrideWork *w, const char *name, const napi_value *hold, size_t n, napi_async_execute_callback execute,
                             napi_async_complete_callback complete);
/* On the pool's thread: the work failed, saying `prefix` then `why`. */
void stride_work_fail(StrideWork *w, const char *prefix, const char *why);
/* In `complete`: resolves with `result`; or, when it is NULL, rejects with an Error saying why
 * the work failed (else `cancelled`); then releases the references and the work. */
void stride_settle_work(napi_env env, StrideWork *w, napi_value result, const char *cancelled);

#define STRIDE_CALL(env, call)                                  \
  do {                                                          \
    if ((call) != napi_ok) {                                    \
      const napi_extended_error_info *info_ = NULL;             \
      napi_get_last_error_info((env), &info_);                  \
      bool pending_ = false;                                    \
      napi_is_exception_pending((env), &pending_);              \
      if (!pending_)                                            \
        napi_throw_error((env), NULL,                           \
                         info_ && info_->error_message ? info_->error_message : "Node-API call failed"); \
      return NULL;                                              \
    }                                                           \
  } while (0)

#endif
