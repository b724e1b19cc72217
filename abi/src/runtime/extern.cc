// External functions registered from C into the process-wide registry.
#include "boundary.h"
#include "rxt/runtime/extern.h"

extern "C" {

rxt_status_t rxt_extern_register(const char* name, rxt_extern_fn_t function, void* user_data, int replace) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(function);
  rxt::ExternRegistry::Global().Register(name, function, user_data, replace != 0);
  RXT_API_END();
}

rxt_status_t rxt_extern_remove(const char* name) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(name);
  if (!rxt::ExternRegistry::Global().Remove(name)) {
    rxt::Throw(rxt::ErrorCode::kNotFound, "rxt_extern_remove: extern function '", name, "' is not registered");
  }
  RXT_API_END();
}

}  // extern "C"
