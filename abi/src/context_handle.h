// Internal to librxt's C ABI: rxt_context_t over the compiler's Context (with its plugin host).
// librxt_runtime has its own (abi/src/runtime_alone/context.cc).
#pragma once

#include <atomic>
#include <memory>

#include "api.h"
#include "runtime/handles.h"
#include "rxt/exec/context.h"

struct rxt_context_s {
  std::atomic<int> references{1};
  std::unique_ptr<rxt::Context> own;  // null for the default context's handle
  rxt::Context* context = nullptr;
};

namespace rxt::abi_impl {

/// |context|'s rxt::Context; the default context's for NULL.
Context& ContextOf(rxt_context_t* context);

}  // namespace rxt::abi_impl
