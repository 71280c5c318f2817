/* Shared by every part of the core: registration hooks and small Node-API helpers. */
#ifndef STRIDE_ADDON_H
#define STRIDE_ADDON_H
#define NAPI_VERSION 8
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

/* Each part adds its functions and classes to the module's exports. */
napi_status stride_register_sim(napi_env env, napi_value exports);
napi_status stride_register_codec(napi_env env, napi_value exports);

/* Throws a JavaScript Error with `message` and returns NULL (for `return stride_throw(...)`). */
napi_value stride_throw(napi_env env, const char *message);

/* The data pointer and element count of a typed-array argument of the expected type, or
 * NULL after throwing a TypeError naming the argument. */
void *stride_typed_array(napi_env env, napi_value value, napi_typedarray_type type, size_t *length, const char *what);

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
