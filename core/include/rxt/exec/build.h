// The build pipeline shared by `rxt build`, the C ABI and the Trainer: from a module with op
// calls to an Executable for one backend.
//
//   Executable exec = Build(module, {.backend = "cpu"});
//   // = LowerForBuild (LegalizeOps, then the fusion passes at opt_level >= 1)
//   //   + CompileToExecutable (VM bytecode, memory plan, portable kernels)
#pragma once

#include <string>
#include <vector>

#include "rxt/ir/module.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/executable.h"
#include "rxt/transform/legalize/library_patterns.h"

namespace rxt {

struct BuildOptions {
  /// The backend the executable is for ("cpu", "reference"); recorded in it.
  std::string backend = "reference";
  /// 0: legalize only. 1 and above: fuse kernels, plan memory.
  int opt_level = 2;
  /// Kernel libraries whose extern functions may replace generated kernels (e.g. "dnnl":
  /// matmul and conv2d become call_extern of dnnl.* functions, which a loaded plugin must
  /// provide when the executable runs). Empty: generated kernels only.
  std::vector<std::string> libraries;
  /// Where the libraries' patterns come from (null: the process-wide plugin host).
  const LibraryProvider* library_provider = nullptr;
  /// If set, the kernels are also compiled ahead of time into this shared library by the
  /// backend's plugin (rxt/plugin/kernel_library_emitter.h), which the executable then names.
  std::string emit_library;
};

/// The libraries a build uses: |requested| if given ("none" alone: no library), else those
/// |backend| prefers (its plugin's rxt_backend_t.preferred_libraries; cpu: dnnl) among |host|'s.
std::vector<std::string> ChooseLibraries(const std::string& backend, const std::vector<std::string>& requested = {},
                                         const PluginHost& host = PluginHost::Global());

/// The passes LowerForBuild runs for |options|, in order (for `rxt show --passes` and docs).
std::vector<std::string> BuildPipeline(const BuildOptions& options);

/// Runs BuildPipeline(options) on |module|: op calls become kernel (or library) calls.
IRModule LowerForBuild(IRModule module, const BuildOptions& options = {});

/// LowerForBuild, then CompileToExecutable (then EmitKernelLibrary if options.emit_library).
Executable Build(IRModule module, const BuildOptions& options = {});

}  // namespace rxt
