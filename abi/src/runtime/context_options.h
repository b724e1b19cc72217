// Internal to the C ABI: reading rxt_context_options_t, which both libraries' contexts take
// (librxt's over the compiler, librxt_runtime's over the runtime alone).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rxt/runtime/allocator.h"
#include "rxt/rxt.h"

namespace rxt::abi_impl {

/// The options as read, checked; fields past the caller's struct_size defaulted.
struct ContextSettings {
  int num_threads = 0;
  std::vector<std::string> plugins;
  bool search_path = true;
  std::function<void(rxt_log_level_t, const std::string& source, const std::string& message)> log;
  std::optional<Allocator> allocator;
};

/// Throws kInvalidArgument naming rxt_context_create and the field for a bad one.
ContextSettings ReadContextOptions(const rxt_context_options_t* options);

}  // namespace rxt::abi_impl
