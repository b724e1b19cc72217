// External functions registered from C into the process-wide registry.
#include "api.h"
#include "rxt/runtime/extern.h"

extern "C" {

rxt_status_t rxt_extern_register(const char* name, rxt_extern_callback_t callback, void* user_data, int replace) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(callback);
  // The registry passes inputs as DLTensor* const*; the C type drops the const for C callers.
  rxt::ExternFunction function = [name = std::string(name), callback, user_data](DLTensor* const* args, int num_args) {
    int status = callback(const_cast<DLTensor**>(args), num_args, user_data);
    if (status != 0) {
      rxt::Throw(rxt::ErrorCode::kInternal, "extern function '", name, "' failed with status ", status);
    }
  };
  rxt::ExternRegistry::Global().Register(name, std::move(function), replace != 0);
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
