// A KernelProvider for tests that run executables on the CPU backend without the plugin host:
// each kernel record is compiled by the test JIT (what the plugin rxt_backend_cpu does).
#pragma once

#include "cpu_test_util.h"
#include "rxt/runtime/kernel.h"

namespace rxt::backend_cpu::testing {

class CpuKernelProvider : public KernelProvider {
 public:
  /// |threads|: the thread pool parallel loops run on.
  explicit CpuKernelProvider(int threads = 1) : runtime_(PoolRuntime(threads)) {}
  std::string name() const override { return "cpu"; }
  std::unique_ptr<Kernel> Load(const KernelRecord& record) override;

  /// CPU milliseconds the code of the kernels loaded so far took to compile (code shared with
  /// kernels loaded before counts too).
  double compile_ms() const { return compile_ms_; }

 private:
  const rxt_kernel_runtime_t* runtime_;
  double compile_ms_ = 0;
};

}  // namespace rxt::backend_cpu::testing
