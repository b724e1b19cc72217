// Fuzz target ir_structured: valid modules generated from the fuzz bytes (ir_module_generator.h)
// through what `rxt build` and `rxt run` do: the text round trip (print, parse, structurally
// equal), the build pipeline for the reference backend (LegalizeOps, FuseOps, FuseKernels,
// ParallelizeLoops, ScheduleCollectives, ReorderForMemory), well-formedness after it, the VM compile with its memory plan, the
// executable's save and load, and a run of @f0 fused and unfused, which must agree.
//
// A generated module is valid by construction, so every rxt::Error here is a finding too. Its
// sizes are bounded (ModuleLimits) so that a pipeline without super-linear steps runs each input
// well inside libFuzzer's -timeout and -rss_limit_mb; inputs that exceed them are findings.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "rxt/support/error.h"
#include "ir_module_generator.h"
#include "test_util/reference_provider.h"
#include "rxt/exec/build.h"
#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"
#include "rxt/runtime/vm.h"

namespace {

using rxt::IRModule;

IRModule Parse(const std::string& text, const std::string& what) {
  try {
    return rxt::ParseModule(text, what);
  } catch (const rxt::Error& e) {
    rxt::fuzz::Fail(__FILE__, __LINE__, what + " does not parse: " + e.what() + "\n" + text);
  }
}

void CheckWellFormed(const IRModule& module, const std::string& what) {
  std::vector<rxt::Diagnostic> problems = rxt::CheckWellFormed(module);
  FUZZ_CHECK(problems.empty(), what + " is not well formed: " + (problems.empty() ? "" : problems[0].ToString()) +
                                   "\n" + rxt::PrintModule(module));
}

void CheckTextRoundTrip(const IRModule& module, const std::string& what) {
  std::string printed = rxt::PrintModule(module);
  IRModule again = Parse(printed, "the printed " + what);
  FUZZ_CHECK(rxt::StructuralEqual(module, again), "the printed " + what + " parses to another module:\n" + printed);
  FUZZ_CHECK(rxt::PrintModule(again) == printed, "printing the " + what + " is not stable");
}

rxt::Executable Build(const IRModule& module, int opt_level) {
  try {
    rxt::BuildOptions options{.backend = "reference", .opt_level = opt_level};
    IRModule lowered = rxt::LowerForBuild(module, options);
    std::string what = "module lowered at opt_level " + std::to_string(opt_level);
    CheckWellFormed(lowered, what);
    CheckTextRoundTrip(lowered, what);
    return rxt::CompileToExecutable(lowered, {.backend = "reference", .plan_memory = opt_level >= 1});
  } catch (const rxt::Error& e) {
    rxt::fuzz::Fail(__FILE__, __LINE__, "a valid module does not build: " + std::string(e.what()) + "\n" +
                                            rxt::PrintModule(module));
  }
}

// Small deterministic arguments for @f0: each parameter's static shape, with n = 2.
std::vector<rxt::Value> Arguments(const rxt::Function& f) {
  std::vector<rxt::Value> args;
  int seed = 0;
  for (const rxt::Var& param : f->params) {
    std::vector<int64_t> shape;
    for (const rxt::PrimExpr& dim : *param->struct_info->As<rxt::TensorSINode>()->shape) {
      int64_t value = 2;  // n
      rxt::GetConstInt(dim, &value);
      shape.push_back(value);
    }
    rxt::Tensor t = rxt::Tensor::Empty(shape, rxt::DType::kFloat32);
    for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = static_cast<float>((seed++ * 37 % 17) - 8) / 16.0f;
    args.emplace_back(t);
  }
  return args;
}

// Fused and unfused kernels compute each element with the same operations in the same order.
bool SameResults(const rxt::Value& a, const rxt::Value& b) {
  if (a.is_tuple() != b.is_tuple()) return false;
  if (a.is_tuple()) {
    if (a.tuple().size() != b.tuple().size()) return false;
    for (size_t i = 0; i < a.tuple().size(); ++i) {
      if (!SameResults(a.tuple()[i], b.tuple()[i])) return false;
    }
    return true;
  }
  const rxt::Tensor &x = a.tensor(), &y = b.tensor();
  if (x.shape() != y.shape() || x.dtype() != y.dtype()) return false;
  for (int64_t i = 0; i < x.numel(); ++i) {
    float p = x.data_as<float>()[i], q = y.data_as<float>()[i];
    bool close = p == q || (std::isnan(p) && std::isnan(q)) || std::fabs(p - q) <= 1e-5f * std::max({1.0f, std::fabs(p), std::fabs(q)});
    if (!close) return false;
  }
  return true;
}

// The generator's limits; RXT_FUZZ_MAX_SHARED_CHAIN lowers one (to look past chains of shared
// values: docs/fuzzing.md).
const rxt::fuzz::ModuleLimits& Limits() {
  static const rxt::fuzz::ModuleLimits limits = [] {
    rxt::fuzz::ModuleLimits l;
    if (const char* chain = std::getenv("RXT_FUZZ_MAX_SHARED_CHAIN")) l.max_shared_chain = std::max(1, std::atoi(chain));
    return l;
  }();
  return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rxt::fuzz::FuzzInput in(data, size);
  std::string text = rxt::fuzz::GenerateModule(in, Limits());
  IRModule module = Parse(text, "the generated module");
  CheckWellFormed(module, "the generated module");
  CheckTextRoundTrip(module, "generated module");

  rxt::Executable fused = Build(module, 2);
  rxt::Executable unfused = Build(module, 0);
  std::vector<uint8_t> bytes = fused.Serialize();
  rxt::Executable loaded = rxt::Executable::Deserialize(bytes.data(), bytes.size(), "fused.rxtx");
  FUZZ_CHECK(loaded.Serialize() == bytes, "the executable changes through Serialize/Deserialize");

  std::vector<rxt::Value> args = Arguments(module.GetFunction("f0"));
  rxt::testing::ReferenceKernelProvider provider;
  try {
    rxt::VirtualMachine fused_vm(std::move(loaded), provider);
    rxt::VirtualMachine unfused_vm(std::move(unfused), provider);
    rxt::Value expected = unfused_vm.Invoke("f0", args);
    FUZZ_CHECK(SameResults(fused_vm.Invoke("f0", args), expected), "the fused build computes other values\n" + text);
  } catch (const rxt::Error& e) {
    FUZZ_CHECK(false, std::string("a valid module does not run: ") + e.what() + "\n" + text);
  }
  return 0;
}
