// The VM compiler: legalized Relax functions to VM bytecode (rxt/runtime/executable.h).
//
//   IRModule legal = RunPasses(module, {"LegalizeOps"});
//   Executable exec = CompileToExecutable(legal, {.backend = "reference"});
//   exec.Save("model.rxtx");
#pragma once

#include <string>

#include "rxt/ir/module.h"
#include "rxt/runtime/executable.h"

namespace rxt {

struct VMCompileOptions {
  /// Recorded in the executable: the VM refuses to load it with another backend. Empty: any.
  std::string backend;
  /// Plans the memory of kernel outputs (docs/vm.md, "Memory plan"): outputs that do not
  /// escape their function share storage when their lifetimes do not overlap. Off: every
  /// output is allocated when its call runs.
  bool plan_memory = true;
};

/// Compiles every Relax function of |module| (whose calls are call_kernel, call_extern or calls
/// of other functions of the module, i.e. legalized) and encodes every kernel function they
/// call in the portable kernel format. Each function checks its arguments against its
/// parameters' struct info on entry and binds its symbolic dims from them.
///
/// Throws kInvalidArgument naming the function and the problem: an op that was not legalized
/// ("main: op 'nn.relu' was not legalized; run LegalizeOps first"), an output dim that the
/// arguments do not determine, a construct the VM does not support.
Executable CompileToExecutable(const IRModule& module, const VMCompileOptions& options = {});

}  // namespace rxt
