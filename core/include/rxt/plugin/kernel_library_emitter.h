// Ahead-of-time kernels: an executable's kernels compiled by its backend's plugin into one
// shared library (rxt_backend_t.emit_library), which AotKernelProvider (rxt/runtime/
// aot_library.h) runs in a process without a compiler or LLVM.
//
//   Executable exec = Build(module, {.backend = "cpu", .emit_library = "mlp.so"});
//   exec.Save("mlp.rxtx");   // records mlp.so next to it
#pragma once

#include <string>

#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/executable.h"

namespace rxt {

/// The machine a kernel library is compiled for (rxt_aot_target_t): empty fields take this
/// machine's values. {.triple = "aarch64-linux-gnu"}: 64-bit Arm Linux, its baseline CPU.
struct AotTarget {
  std::string triple;    // "aarch64-linux-gnu"
  std::string cpu;       // "cortex-a72"
  std::string features;  // "+sve"
  bool IsThisMachine() const { return triple.empty() && cpu.empty() && features.empty(); }
  /// "aarch64-linux-gnu", "aarch64-linux-gnu (cortex-a72, +sve)", "this machine".
  std::string Describe() const;
  /// Whether |triple| names another architecture than this process's ("aarch64-..." on x86_64):
  /// code for it cannot run here, nor the host's kernel libraries there.
  bool IsOtherArchitecture() const;
};

/// Compiles every kernel of |exec| with its backend (found among |host|'s plugins, loading the
/// search path if needed) into the shared library |path| for |target|, then records the
/// library's absolute path and each kernel's symbol in |exec|. Throws kNotFound for an unknown
/// backend, kFailedPrecondition for a backend that cannot compile ahead of time (or not for
/// another machine), and the plugin's message (kInternal unless it says otherwise) if compiling
/// or linking fails.
void EmitKernelLibrary(Executable& exec, const std::string& path, PluginHost& host = PluginHost::Global(),
                       const AotTarget& target = {});

}  // namespace rxt
