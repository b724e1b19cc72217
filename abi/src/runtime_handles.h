// Internal to the C ABI: the handles behind rxt_context_t, rxt_executable_t and rxt_vm_t.
#pragma once

#include <atomic>
#include <memory>

#include "api.h"
#include "rxt/exec/context.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/runtime/executable.h"
#include "rxt/runtime/vm.h"

struct rxt_context_s {
  std::atomic<int> references{1};
  std::unique_ptr<rxt::Context> own;  // null for the default context's handle
  rxt::Context* context = nullptr;
};

namespace rxt::abi_impl {

/// |context|'s rxt::Context; the default context's for NULL.
Context& ContextOf(rxt_context_t* context);

/// One reference to a context, held by what was made in it (a VM, a trainer) so that its
/// threads, allocator and plugins outlive them; the default context when NULL.
class ContextReference {
 public:
  explicit ContextReference(rxt_context_t* context);
  ~ContextReference();
  ContextReference(const ContextReference&) = delete;
  ContextReference& operator=(const ContextReference&) = delete;
  Context& get() const { return ContextOf(handle_); }

 private:
  rxt_context_t* handle_;
};

}  // namespace rxt::abi_impl

struct rxt_executable_s {
  std::atomic<int> references{1};
  rxt::Executable executable;
};

struct rxt_vm_s {
  std::atomic<int> references{1};
  // First, so it is released last: the VM runs on its threads and allocator.
  std::unique_ptr<rxt::abi_impl::ContextReference> context;
  // The provider outlives the VM, which keeps a reference to it.
  std::unique_ptr<rxt::KernelProvider> provider;
  std::unique_ptr<rxt::VirtualMachine> vm;
};
