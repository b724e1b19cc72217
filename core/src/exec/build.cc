// The build pipeline: which passes lower a module for a backend, and the compile after them.
#include "rxt/exec/build.h"

#include "rxt/exec/vm_compiler.h"
#include "rxt/plugin/kernel_library_emitter.h"
#include "rxt/transform/passes.h"

namespace rxt {

std::vector<std::string> ChooseLibraries(const std::string& backend, const std::vector<std::string>& requested,
                                         const PluginHost& host) {
  if (requested.size() == 1 && requested[0] == "none") return {};
  if (!requested.empty()) return requested;
  return host.PreferredLibraries(backend);
}

std::vector<std::string> BuildPipeline(const BuildOptions& options) {
  std::vector<std::string> passes;
  // gradient_of (ONNX's Gradient op) becomes ordinary op calls first, so that library calls
  // and legalization see them; a module without it is left as it is.
  passes.push_back("LowerGradientOf");
  if (options.opt_level >= 1) {
    // Convolutions with constant weights (a model bound for inference): batch normalizations
    // go into their weights, taps that read only padding off them. A module whose weights
    // are parameters (a training step) is left as it is.
    passes.push_back("FoldBatchNorm");
    passes.push_back("TrimConvTaps");
  }
  // Library calls are matched on op calls, so before LegalizeOps turns the rest into kernels.
  if (!options.libraries.empty()) passes.push_back("LegalizeLibraryCalls");
  // Legalizing a module without op calls changes nothing, so it always runs.
  passes.push_back("LegalizeOps");
  if (options.opt_level >= 1) {
    // Group fusible kernel calls, then merge each group into one kernel (docs/passes.md).
    passes.push_back("FuseOps");
    passes.push_back("FuseKernels");
    // After fusion: the merged kernels' loops (RXT_NUM_THREADS threads at run time).
    passes.push_back("ParallelizeLoops");
    // A data-parallel step's allreduce starts as soon as its gradients exist (they overlap
    // with the rest of the backward pass).
    passes.push_back("ScheduleCollectives");
    // Last: the order the VM's memory plan sees (a training step's updates run as their
    // gradients are computed, so the gradients share memory).
    passes.push_back("ReorderForMemory");
  }
  return passes;
}

IRModule LowerForBuild(IRModule module, const BuildOptions& options) {
  PassContext context;
  context.opt_level = options.opt_level;
  std::string libraries;
  for (const std::string& name : options.libraries) libraries += (libraries.empty() ? "" : ",") + name;
  if (!libraries.empty()) context.options["LegalizeLibraryCalls.libraries"] = AttrValue(libraries);
  std::vector<Pass> passes;
  for (const std::string& name : BuildPipeline(options)) {
    // The one pass that takes something besides options: where the libraries come from.
    bool library_calls = name == "LegalizeLibraryCalls";
    passes.push_back(library_calls ? LegalizeLibraryCalls(options.library_provider) : CreatePass(name));
  }
  return Sequential(std::move(passes), "RunPasses")(std::move(module), context);
}

Executable Build(IRModule module, const BuildOptions& options) {
  IRModule lowered = LowerForBuild(std::move(module), options);
  Executable exec = CompileToExecutable(lowered, {.backend = options.backend, .plan_memory = options.opt_level >= 1});
  if (!options.emit_library.empty()) EmitKernelLibrary(exec, options.emit_library);
  return exec;
}

}  // namespace rxt
