// Internal to the C ABI: the handles behind rxt_executable_t and rxt_vm_t.
#pragma once

#include <atomic>
#include <memory>

#include "api.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/runtime/executable.h"
#include "rxt/runtime/vm.h"

struct rxt_executable_s {
  std::atomic<int> references{1};
  rxt::Executable executable;
};

struct rxt_vm_s {
  std::atomic<int> references{1};
  // The provider outlives the VM, which keeps a reference to it.
  std::unique_ptr<rxt::KernelProvider> provider;
  std::unique_ptr<rxt::VirtualMachine> vm;
};
