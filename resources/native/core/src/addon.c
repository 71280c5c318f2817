/* Module entry: version, helpers, and the parts' registrations. */
#include "addon.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* Bumped when the JavaScript side must not load an older build (the loader checks it). */
#define STRIDE_CORE_ABI 24

napi_value stride_throw(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

void *stride_typed_array(napi_env env, napi_value value, napi_typedarray_type type, size_t *length, const char *what) {
  bool is_typed = false;
  napi_typedarray_type actual;
  void *data = NULL;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(env, value, &actual, length, &data, NULL, NULL) != napi_ok || actual != type) {
    char message[160];
    snprintf(message, sizeof message, "%s must be a typed array of the expected element type", what);
    napi_throw_type_error(env, NULL, message);
    return NULL;
  }
  /* A zero-length array may have no backing store: hand out a valid pointer anyway. */
  static uint64_t empty;
  return data ? data : (void *)&empty;
}

bool stride_args(napi_env env, napi_callback_info info, size_t want, napi_value *argv) {
  size_t argc = want;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < want) {
    napi_throw_type_error(env, NULL, "stride core: too few arguments");
    return false;
  }
  return true;
}

bool stride_u32(napi_env env, napi_value v, uint32_t *out, const char *what) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok || !(d >= 0 && d <= 4294967295.0) || d != (double)(uint32_t)d) {
    char message[120];
    snprintf(message, sizeof message, "%s must be an integer in [0, 2^32)", what);
    napi_throw_range_error(env, NULL, message);
    return false;
  }
  *out = (uint32_t)d;
  return true;
}

void *stride_unwrap(napi_env env, napi_value v, const napi_type_tag *tag, const char *what) {
  bool ok = false;
  void *data = NULL;
  if (napi_check_object_type_tag(env, v, tag, &ok) != napi_ok || !ok || napi_get_value_external(env, v, &data) != napi_ok) {
    char message[120];
    snprintf(message, sizeof message, "stride core: expected %s", what);
    napi_throw_type_error(env, NULL, message);
    return NULL;
  }
  return data;
}

napi_value stride_external(napi_env env, void *data, napi_finalize finalize, const napi_type_tag *tag) {
  napi_value out;
  if (napi_create_external(env, data, finalize, NULL, &out) != napi_ok) {
    finalize(env, data, NULL);
    return stride_throw(env, "stride core: cannot create an external");
  }
  STRIDE_CALL(env, napi_type_tag_object(env, out, tag));
  return out;
}

static void hold_release(napi_env env, StrideHold *h) {
  if (!h->held) return;
  for (int k = 0; k < h->count; k++) napi_delete_reference(env, h->refs[k]);
  h->held = false;
}

static void binding_finalize(napi_env env, void *data, void *hint) {
  (void)hint;
  hold_release(env, data);
  free(data);
}

void *stride_binding(napi_env env, napi_value given, size_t size, const napi_type_tag *tag, const char *what, napi_value *out) {
  napi_valuetype type;
  if (napi_typeof(env, given, &type) != napi_ok) return NULL;
  void *b;
  *out = given;
  if (type == napi_null || type == napi_undefined) {
    b = calloc(1, size);
    if (!b) {
      stride_throw(env, "out of memory binding arrays");
      return NULL;
    }
    *out = stride_external(env, b, binding_finalize, tag);
    if (!*out) return NULL;
  } else if (!(b = stride_unwrap(env, given, tag, what)))
    return NULL;
  hold_release(env, b);
  return b;
}

bool stride_hold(napi_env env, StrideHold *h, const napi_value *arrays, int count, const char *what) {
  hold_release(env, h);
  if (count > STRIDE_HOLD_MAX) {
    stride_throw(env, "stride core: a binding holds too many arrays");
    return false;
  }
  for (int k = 0; k < count; k++)
    if (napi_create_reference(env, arrays[k], 1, &h->refs[k]) != napi_ok) {
      for (int j = 0; j < k; j++) napi_delete_reference(env, h->refs[j]);
      char message[120];
      snprintf(message, sizeof message, "cannot hold %s", what);
      stride_throw(env, message);
      return false;
    }
  h->count = count;
  h->held = true;
  return true;
}

napi_value stride_set(napi_env env, napi_value obj, const char *name, napi_value v) {
  if (napi_set_named_property(env, obj, name, v) != napi_ok) return NULL;
  return obj;
}

napi_value stride_number(napi_env env, double d) {
  napi_value v = NULL;
  napi_create_double(env, d, &v);
  return v;
}

napi_value stride_new_typed(napi_env env, napi_typedarray_type type, size_t elem, size_t n, void **data) {
  napi_value buffer, array;
  if (napi_create_arraybuffer(env, n * elem, data, &buffer) != napi_ok ||
      napi_create_typedarray(env, type, n, buffer, 0, &array) != napi_ok)
    return NULL;
  return array;
}

napi_value stride_float64_array(napi_env env, const double *data, size_t n) {
  void *bytes;
  napi_value array = stride_new_typed(env, napi_float64_array, 8, n, &bytes);
  if (array && n) memcpy(bytes, data, n * 8);
  return array;
}

napi_value stride_queue_work(napi_env env, StrideWork *w, const char *name, const napi_value *hold, size_t n, napi_async_execute_callback execute,
                             napi_async_complete_callback complete) {
  napi_value promise, label;
  w->held = 0;
  while (w->held < n && w->held < sizeof w->refs / sizeof w->refs[0] && napi_create_reference(env, hold[w->held], 1, &w->refs[w->held]) == napi_ok) w->held++;
  if (w->held == n && napi_create_promise(env, &w->deferred, &promise) == napi_ok && napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &label) == napi_ok &&
      napi_create_async_work(env, NULL, label, execute, complete, w, &w->work) == napi_ok) {
    if (napi_queue_async_work(env, w->work) == napi_ok) return promise;
    napi_delete_async_work(env, w->work);
  }
  for (size_t k = 0; k < w->held; k++) napi_delete_reference(env, w->refs[k]);
  return stride_throw(env, "stride core: cannot start work on the thread pool");
}

void stride_work_fail(StrideWork *w, const char *prefix, const char *why) {
  w->failed = true;
  snprintf(w->problem, sizeof w->problem, "%s%s", prefix, why);
}

void stride_settle_work(napi_env env, StrideWork *w, napi_value result, const char *cancelled) {
  if (result)
    napi_resolve_deferred(env, w->deferred, result);
  else {
    napi_value text, error;
    napi_create_string_utf8(env, w->failed ? w->problem : cancelled, NAPI_AUTO_LENGTH, &text);
    napi_create_error(env, NULL, text, &error);
    napi_reject_deferred(env, w->deferred, error);
  }
  for (size_t k = 0; k < w->held; k++) napi_delete_reference(env, w->refs[k]);
  napi_delete_async_work(env, w->work);
}

static napi_value abi(napi_env env, napi_callback_info info) {
  napi_value out;
  STRIDE_CALL(env, napi_create_uint32(env, STRIDE_CORE_ABI, &out));
  return out;
}

/* glibc hands blocks over 128 KiB out as fresh mappings and trims free heap tops, both
 * adjusted as it goes: a trace's per-chunk buffers (brotli's tables, encoded chunks, arrays)
 * came back as new pages every chunk, each page faulted in and zeroed by the kernel (3% of an
 * lz4 trace's CPU). Fixed thresholds keep such blocks in the heap for reuse. Only Node's
 * process: the traced program, run by Valgrind, keeps its own allocator's defaults. */
static void keep_freed_blocks(void) {
#if defined(__GLIBC__)
  /* Once per thread that loads the core: the same values each time. */
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

static napi_value init(napi_env env, napi_value exports) {
  keep_freed_blocks();
  napi_property_descriptor d = {"abi", NULL, abi, NULL, NULL, NULL, napi_enumerable, NULL};
  STRIDE_CALL(env, napi_define_properties(env, exports, 1, &d));
  STRIDE_CALL(env, stride_register_sim(env, exports));
  STRIDE_CALL(env, stride_register_shadow(env, exports));
  STRIDE_CALL(env, stride_register_codec(env, exports));
  STRIDE_CALL(env, stride_register_brotli(env, exports));
  STRIDE_CALL(env, stride_register_streams(env, exports));
  STRIDE_CALL(env, stride_register_trace(env, exports));
  STRIDE_CALL(env, stride_register_pipe(env, exports));
  STRIDE_CALL(env, stride_register_ring(env, exports));
  STRIDE_CALL(env, stride_register_attribute(env, exports));
  STRIDE_CALL(env, stride_register_column(env, exports));
  STRIDE_CALL(env, stride_register_proc(env, exports));
  return exports;
}

NAPI_MODULE_INIT() { return init(env, exports); }
