/* Module entry: version, helpers, and the parts' registrations. */
#include "addon.h"
#include <stdbool.h>
#include <stdio.h>

/* Bumped when the JavaScript side must not load an older build (the loader checks it). */
#define STRIDE_CORE_ABI 1

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

static napi_value abi(napi_env env, napi_callback_info info) {
  napi_value out;
  STRIDE_CALL(env, napi_create_uint32(env, STRIDE_CORE_ABI, &out));
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor d = {"abi", NULL, abi, NULL, NULL, NULL, napi_enumerable, NULL};
  STRIDE_CALL(env, napi_define_properties(env, exports, 1, &d));
  STRIDE_CALL(env, stride_register_sim(env, exports));
  STRIDE_CALL(env, stride_register_codec(env, exports));
  return exports;
}

NAPI_MODULE_INIT() { return init(env, exports); }
