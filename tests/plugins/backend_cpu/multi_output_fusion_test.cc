// Multi-output fusion end to end (core/src/transform/fusion/fuse_ops.cc, kernel_merge.cc): an
// optimizer update whose new state is both read by the new parameter and returned becomes one
// kernel with several output buffers. Its results on the CPU backend (one and two threads)
// and on the reference interpreter must equal, bit for bit, those of the unfused build.
#include <random>

#include "cpu_kernel_provider.h"
#include "rxt/exec/build.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/op.h"
#include "rxt/runtime/vm.h"
#include "test_util/reference_provider.h"

namespace rxt::backend_cpu::testing {
namespace {

// torch.optim.Adam's update of one parameter (weight decay 0.01), as the optimizer plugin
// writes it: m' and v' feed p' and are returned.
constexpr const char* kAdam = R"(
def @main(%p: Tensor((n, 37), float32), %g: Tensor((n, 37), float32), %m: Tensor((n, 37), float32),
          %v: Tensor((n, 37), float32), %step: Tensor((), float32), %bc2: Tensor((), float32))
    -> Tuple(Tensor((n, 37), float32), Tensor((n, 37), float32), Tensor((n, 37), float32)) {
  dataflow {
    %g1: Tensor((n, 37), float32) = add(%g, multiply(%p, const(0.01, float32)))
    %m1: Tensor((n, 37), float32) = add(multiply(%m, const(0.9, float32)), multiply(%g1, const(0.1, float32)))
    %gg: Tensor((n, 37), float32) = multiply(%g1, %g1)
    %v1: Tensor((n, 37), float32) = add(multiply(%v, const(0.999, float32)), multiply(%gg, const(0.001, float32)))
    %den: Tensor((n, 37), float32) = add(divide(sqrt(%v1), %bc2), const(1e-08, float32))
    %p1: Tensor((n, 37), float32) = subtract(%p, multiply(%step, divide(%m1, %den)))
    %out = (%p1, %m1, %v1)
    output %out
  }
  return %out
}
)";

// Momentum SGD: v' = mu v + g; p' = p - lr v'.
constexpr const char* kMomentum = R"(
def @main(%p: Tensor((n, 37), float32), %g: Tensor((n, 37), float32), %v: Tensor((n, 37), float32))
    -> Tuple(Tensor((n, 37), float32), Tensor((n, 37), float32)) {
  dataflow {
    %v1: Tensor((n, 37), float32) = add(multiply(%v, const(0.9, float32)), %g)
    %p1: Tensor((n, 37), float32) = subtract(%p, multiply(%v1, const(0.05, float32)))
    %out = (%p1, %v1)
    output %out
  }
  return %out
}
)";

Tensor Random(std::vector<int64_t> shape, double lo, double hi, std::mt19937& rng) {
  Tensor t = Tensor::Empty(std::move(shape), DType::kFloat32);
  std::uniform_real_distribution<double> real(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.SetFromDouble(i, real(rng));
  return t;
}

std::vector<Tensor> Results(const Value& v) {
  std::vector<Tensor> out;
  for (const Value& field : v.tuple()) out.push_back(field.tensor());
  return out;
}

::testing::AssertionResult SameBits(const std::vector<Tensor>& expected, const std::vector<Tensor>& actual) {
  if (expected.size() != actual.size()) return ::testing::AssertionFailure() << "result counts differ";
  for (size_t k = 0; k < expected.size(); ++k) {
    if (expected[k].shape() != actual[k].shape()) return ::testing::AssertionFailure() << "result " << k << ": shapes differ";
    for (int64_t i = 0; i < expected[k].numel(); ++i) {
      double x = expected[k].GetAsDouble(i), y = actual[k].GetAsDouble(i);
      if (x != y) return ::testing::AssertionFailure() << "result " << k << " element " << i << ": " << x << " vs " << y;
    }
  }
  return ::testing::AssertionSuccess();
}

/// Runs |text| unfused (opt_level 0) and fused (opt_level 2) on both backends; every run
/// must give the unfused reference results. |outputs|: the fused kernel's output count.
void CheckFusedAgainstUnfused(const char* text, const std::vector<Value>& args, size_t outputs) {
  IRModule lowered = LowerForBuild(ParseModule(text, "case.rxt"), {.backend = "", .opt_level = 2});
  size_t kernels = 0;
  for (const IRModule::Entry& entry : lowered.entries()) kernels += entry.kernel != nullptr;
  EXPECT_EQ(kernels, 1u) << PrintModule(lowered);
  std::vector<size_t> output_counts;  // of every call_kernel of main
  for (const BindingBlock& block : lowered.FindFunction("main")->body->blocks) {
    for (const Binding& binding : block.bindings) {
      const auto* call = binding.value->As<CallNode>();
      const OpDef* op = call ? AsOp(call->callee) : nullptr;
      if (op != nullptr && op->name() == "call_kernel") output_counts.push_back(call->sinfo_args.size());
    }
  }
  EXPECT_EQ(output_counts, std::vector<size_t>{outputs}) << PrintModule(lowered);

  Executable unfused = Build(ParseModule(text, "case.rxt"), {.backend = "", .opt_level = 0});
  Executable fused = Build(ParseModule(text, "case.rxt"), {.backend = "", .opt_level = 2});
  rxt::testing::ReferenceKernelProvider reference_kernels;
  std::vector<Tensor> expected = Results(VirtualMachine(unfused, reference_kernels).Invoke("main", args));
  EXPECT_TRUE(SameBits(expected, Results(VirtualMachine(fused, reference_kernels).Invoke("main", args))));
  for (int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    CpuKernelProvider cpu_unfused(threads), cpu_fused(threads);
    EXPECT_TRUE(SameBits(expected, Results(VirtualMachine(unfused, cpu_unfused).Invoke("main", args))));
    EXPECT_TRUE(SameBits(expected, Results(VirtualMachine(fused, cpu_fused).Invoke("main", args))));
  }
}

TEST(MultiOutputFusion, AdamUpdateIsOneKernelWithTheUnfusedResults) {
  std::mt19937 rng(7);
  const std::vector<int64_t> shape = {64, 37};  // rows enough to run the parallel loop on 2 threads
  std::vector<Value> args = {Value(Random(shape, -1, 1, rng)), Value(Random(shape, -0.1, 0.1, rng)),
                             Value(Random(shape, -0.01, 0.01, rng)), Value(Random(shape, 0, 1e-4, rng)),
                             Value(Random({}, 0.001, 0.001, rng)), Value(Random({}, 0.05, 0.05, rng))};
  CheckFusedAgainstUnfused(kAdam, args, 3);
}

TEST(MultiOutputFusion, MomentumUpdateIsOneKernelWithTheUnfusedResults) {
  std::mt19937 rng(8);
  const std::vector<int64_t> shape = {5, 37};
  std::vector<Value> args = {Value(Random(shape, -1, 1, rng)), Value(Random(shape, -0.1, 0.1, rng)),
                             Value(Random(shape, -0.1, 0.1, rng))};
  CheckFusedAgainstUnfused(kMomentum, args, 2);
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
