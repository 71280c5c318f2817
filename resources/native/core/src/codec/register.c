/* The trace codec's exports (filled in by the codec work). */
#include "addon.h"

napi_status stride_register_codec(napi_env env, napi_value exports) { return napi_ok; }
