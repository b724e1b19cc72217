// Fuzz target ir_build: `rxt build` on any text. A module that parses and is well formed goes
// through the build pipeline (LowerGradientOf, FoldBatchNorm, TrimConvTaps, LegalizeOps, FuseOps,
// FuseKernels, ParallelizeLoops, ScheduleCollectives, ReorderForMemory; no kernel library) and the VM compiler with its memory
// plan: each gives a result or an rxt::Error naming the problem, never a crash or a hang, and
// what it gives is well formed and validates. Where ir_structured builds only modules it
// generates (always valid), this one takes what a user can write: ops with any attributes,
// gradient_of calls, odd struct info.
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "rxt/exec/build.h"
#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"
#include "rxt/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // small modules reach every pass; big ones only take longer
  std::string_view text(reinterpret_cast<const char*>(data), size);
  rxt::IRModule module;
  try {
    module = rxt::ParseModule(text, "fuzz.rxt");
  } catch (const rxt::Error&) {
    return 0;
  }
  if (!rxt::CheckWellFormed(module).empty()) return 0;  // `rxt build` refuses those first
  rxt::IRModule lowered;
  try {
    lowered = rxt::LowerForBuild(module, {.backend = "reference", .opt_level = 2});
  } catch (const rxt::Error&) {
    return 0;  // refused with a message: what a user would see
  }
  std::vector<rxt::Diagnostic> problems = rxt::CheckWellFormed(lowered);
  FUZZ_CHECK(problems.empty(), "the lowered module is not well formed: " +
                                   (problems.empty() ? std::string() : problems[0].ToString()) + "\n" +
                                   rxt::PrintModule(lowered));
  try {
    rxt::Executable exec = rxt::CompileToExecutable(lowered, {.backend = "reference"});
    exec.Validate();
  } catch (const rxt::Error&) {
  }
  return 0;
}
