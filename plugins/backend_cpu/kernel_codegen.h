// Code generation: a decoded kernel (rxt/kernel_format.h) becomes one LLVM function with the
// signature of rxt_compiled_kernel_fn (rxt/compiled_kernel.h):
//
//   i32 @symbol(ptr buffers, ptr int_vars, ptr float_vars, ptr runtime)
//
// Loops become loops (vectorize metadata on `vectorized` and innermost ones), parallel loops are
// outlined into a body function that runs through runtime->parallel_for when the loop has
// enough work to pay for waking threads, and serially otherwise. docs/backend_cpu.md has the
// long form.
#pragma once

#include <string>

#include "rxt/plugin_support/kernel_codec.h"

namespace llvm {
class Function;
class Module;
}  // namespace llvm

namespace rxt::backend_cpu {

struct CodegenOptions {
  /// A parallel loop runs on the thread pool only when (its extent) x (the iterations of its
  /// body, estimated) reaches this; below, handing work to a thread costs more than it saves.
  /// The pool's workers poll between jobs, so a few microseconds of work pay already (LeNet's
  /// pooling-gradient kernels at 2 threads, 0.54 -> 0.34 ms, were under the former 1 << 17).
  double parallel_work_threshold = 1 << 14;
  /// Target attributes put on every function ("" = the module's target machine decides).
  std::string target_cpu;
  std::string target_features;
};

/// Emits |kernel| (valid: decoded or validated) into |module| as an externally visible
/// function named |symbol|, plus internal functions for its parallel loop bodies. Throws
/// std::runtime_error for a kernel this backend cannot compile.
llvm::Function* EmitKernel(const plugin_support::kernel_format::Kernel& kernel, const std::string& symbol, llvm::Module& module,
                           const CodegenOptions& options = {});

}  // namespace rxt::backend_cpu
