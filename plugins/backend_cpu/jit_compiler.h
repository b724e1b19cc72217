// Compiling kernels in memory: code generation, O3, machine code for this host, linked into
// the process by ORC's LLJIT (libm and libc resolved from the process). One JitCompiler serves
// any number of kernels, from several threads at once.
//
//   JitCompiler jit;
//   std::unique_ptr<JitKernel> k = jit.Compile(decoded.kernel);
//   k->function()(buffers, int_vars, float_vars, runtime);
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "kernel_codegen.h"
#include "object_cache.h"
#include "rxt/compiled_kernel.h"

namespace rxt::backend_cpu {

/// CPU milliseconds spent compiling one kernel, by phase (the compiling thread's time).
struct CompileTimes {
  double codegen_ms = 0;   // kernel -> LLVM IR
  double optimize_ms = 0;  // O3
  double machine_ms = 0;   // machine code, linking
};

/// With RXT_CPU_COMPILE_TIMES=1, one line on stderr per kernel compiled (not per one loaded from
/// the cache): its name and the milliseconds of each phase, to find what makes a cold start slow.
void ReportCompileTimes(const std::string& kernel, const CompileTimes& times);

/// A kernel compiled into the process; its code is freed with it.
class JitKernel {
 public:
  ~JitKernel();
  JitKernel(const JitKernel&) = delete;
  JitKernel& operator=(const JitKernel&) = delete;

  rxt_compiled_kernel_fn function() const { return function_; }
  const CompileTimes& times() const { return times_; }
  /// Whether its object came from the on-disk cache (times().machine_ms is then the load).
  bool from_cache() const { return from_cache_; }

 private:
  friend class JitCompiler;
  struct Code;  // the JIT and the resources its code holds there
  explicit JitKernel(std::unique_ptr<Code> code);

  std::unique_ptr<Code> code_;
  rxt_compiled_kernel_fn function_ = nullptr;
  CompileTimes times_;
  bool from_cache_ = false;
};

class JitCompiler {
 public:
  /// Sets up the JIT for this host; with |cache_directory|, CompileShared keeps compiled objects
  /// there (object_cache.h). Throws std::runtime_error if LLVM cannot.
  explicit JitCompiler(CodegenOptions options = {}, std::optional<std::string> cache_directory = std::nullopt);
  ~JitCompiler();

  /// Compiles a valid kernel. Throws std::runtime_error if it cannot.
  std::unique_ptr<JitKernel> Compile(const plugin_support::kernel_format::Kernel& kernel);
  /// Compile, reusing the code of a kernel with the same portable bytes |key| that is still
  /// loaded (two VMs of one executable, a kernel shared by executables; nothing is kept in
  /// memory once every user has freed it), else its object from the on-disk cache when there is
  /// one, else compiling it (and storing the object there).
  std::shared_ptr<const JitKernel> CompileShared(const plugin_support::kernel_format::Kernel& kernel, const std::string& key);

  struct Jit;  // LLVM's JIT (jit_compiler.cc)

 private:
  /// Kernel -> LLVM IR -> O3 -> an object file defining kSymbol.
  std::vector<char> CompileObject(const plugin_support::kernel_format::Kernel& kernel, CompileTimes& times);
  /// The object linked into a JITDylib of its own.
  std::unique_ptr<JitKernel> Link(const std::vector<char>& object, const CompileTimes& times);

  CodegenOptions options_;
  std::optional<ObjectCache> disk_;
  std::shared_ptr<Jit> jit_;  // shared with the kernels, which may outlive this
  std::mutex cache_mutex_;
  std::unordered_map<std::string, std::weak_ptr<const JitKernel>> cache_;
};

}  // namespace rxt::backend_cpu
