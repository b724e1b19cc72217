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

/// Compiles every kernel of |exec| with its backend (found among |host|'s plugins, loading the
/// search path if needed) into the shared library |path|, then records the library's absolute
/// path and each kernel's symbol in |exec|. Throws kNotFound for an unknown backend,
/// kFailedPrecondition for a backend that cannot compile ahead of time, and the plugin's
/// message (kInternal unless it says otherwise) if compiling or linking fails.
void EmitKernelLibrary(Executable& exec, const std::string& path, PluginHost& host = PluginHost::Global());

}  // namespace rxt
