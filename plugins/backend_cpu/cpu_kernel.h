// One kernel of the CPU backend, ready to call: its argument binding (rxt/plugin_support/kernel_binding.h)
// prepared, its code compiled in memory, and the arrays a call fills reused call after call
// (so a call allocates nothing). One call at a time per kernel; kernels are independent.
#pragma once

#include <dlpack/dlpack.h>

#include <memory>
#include <string>

#include "jit_compiler.h"
#include "rxt/plugin_support/kernel_binding.h"
#include "rxt/rxt.h"

namespace rxt::backend_cpu {

class CpuKernel {
 public:
  /// Decodes |size| bytes in the portable kernel format and compiles them. Throws
  /// std::runtime_error with the decoder's or the compiler's message.
  static std::unique_ptr<CpuKernel> Load(JitCompiler& jit, const uint8_t* bytes, size_t size);

  /// Binds |args| (DLTensor*, one per parameter) and runs the kernel with |runtime| (may be
  /// null: parallel loops then run serially). Returns RXT_OK, or an error code after setting
  /// |error|.
  rxt_code_t Call(const DLTensor* const* args, int num_args, const rxt_kernel_runtime_t* runtime, std::string& error);

  const plugin_support::kernel_format::Kernel& kernel() const { return binder_.kernel(); }
  const CompileTimes& compile_times() const { return code_->times(); }
  /// Whether its code came from the on-disk cache (object_cache.h).
  bool from_cache() const { return code_->from_cache(); }

 private:
  explicit CpuKernel(plugin_support::kernel_format::Kernel kernel) : binder_(std::move(kernel)), call_(binder_.NewCall()) {}

  plugin_support::kernel_binding::KernelBinder binder_;
  plugin_support::kernel_binding::BoundCall call_;
  std::shared_ptr<const JitKernel> code_;
};

/// What a compiled kernel's return code (rxt/compiled_kernel.h) means as a status.
rxt_code_t KernelCodeStatus(int32_t code);

}  // namespace rxt::backend_cpu
