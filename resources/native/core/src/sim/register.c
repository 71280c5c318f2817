/* The simulator's exports (filled in by the simulator work). */
#include "addon.h"

napi_status stride_register_sim(napi_env env, napi_value exports) { return napi_ok; }
