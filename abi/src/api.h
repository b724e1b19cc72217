// Internal to librxt's C ABI (the compiler's half): the module handle, on top of the boundary
// every function shares with the runtime's half (runtime/boundary.h).
#pragma once

#include <atomic>
#include <string>

#include "rxt/ir/module.h"
#include "runtime/boundary.h"

struct rxt_module_s {
  std::atomic<int> references{1};
  rxt::IRModule module;
};

namespace rxt::abi_impl {

/// The first line of a description (summaries are one line).
std::string FirstLine(const std::string& text);

inline const IRModule& Unwrap(const rxt_module_t* module) { return module->module; }
inline IRModule& Unwrap(rxt_module_t* module) { return module->module; }
/// A new handle with one reference.
rxt_module_t* Wrap(IRModule module);

}  // namespace rxt::abi_impl
