// Fusion end to end: modules lowered with and without FuseOps/FuseKernels run on the VM with
// the reference interpreter and give the same results (including symbolic dims, and the
// primitive functions FuseOps makes, called as functions before FuseKernels merges them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "test_util/reference_provider.h"
#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/runtime/vm.h"
#include "rxt/transform/passes.h"
#include "test_util/seed_mlp_reference.h"

namespace rxt {
namespace {

using test::RandomTensor;

const std::vector<std::string> kUnfused = {"LegalizeOps"};
const std::vector<std::string> kGrouped = {"LegalizeOps", "FuseOps"};
const std::vector<std::string> kFused = {"LegalizeOps", "FuseOps", "FuseKernels"};

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

IRModule Lower(const IRModule& module, const std::vector<std::string>& passes) {
  PassContext context;
  context.verify_well_formed_after_each = true;
  return RunPasses(module, passes, context);
}

size_t CountKernels(const IRModule& module) {
  size_t n = 0;
  for (const IRModule::Entry& entry : module.entries()) n += entry.kernel != nullptr;
  return n;
}

class FusionRun : public ::testing::Test {
 protected:
  Value Run(const IRModule& lowered, const std::string& fn, const std::vector<Value>& args) {
    VirtualMachine vm(CompileToExecutable(lowered, {.backend = "reference"}), provider_);
    return vm.Invoke(fn, args);
  }

  /// Runs |module| lowered unfused, grouped and fused; the three results must be equal.
  void ExpectSameResults(const IRModule& module, const std::string& fn, const std::vector<Value>& args) {
    Value unfused = Run(Lower(module, kUnfused), fn, args);
    Value grouped = Run(Lower(module, kGrouped), fn, args);
    Value fused = Run(Lower(module, kFused), fn, args);
    ExpectClose(grouped, unfused, "FuseOps");
    ExpectClose(fused, unfused, "FuseOps + FuseKernels");
  }

  static void ExpectClose(const Value& actual, const Value& expected, const char* what) {
    const Tensor& a = actual.tensor();
    const Tensor& e = expected.tensor();
    ASSERT_EQ(a.shape(), e.shape()) << what;
    ASSERT_EQ(a.dtype(), e.dtype()) << what;
    for (int64_t i = 0; i < a.numel(); ++i) {
      double x = a.GetAsDouble(i), y = e.GetAsDouble(i);
      ASSERT_NEAR(x, y, 1e-5 + 1e-5 * std::fabs(y)) << what << ", element " << i;
    }
  }

  testing::ReferenceKernelProvider provider_;
  std::mt19937 rng_{42};
};

/// |text| with every whole-word occurrence of |from| replaced by |to|.
std::string ReplaceNumber(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos;) {
    bool word = (at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]))) &&
                (at + from.size() == text.size() || !std::isalnum(static_cast<unsigned char>(text[at + from.size()])));
    if (word) text.replace(at, from.size(), to);
    at += word ? to.size() : from.size();
  }
  return text;
}

TEST_F(FusionRun, SeedMlpFusesToThreeKernelsWithTheSameResult) {
  IRModule mlp = ParseModule(ReadExample("mlp.rxt"));
  EXPECT_EQ(CountKernels(Lower(mlp, kUnfused)), 6u);  // 3 matmuls, 2 bias adds, 1 relu
  EXPECT_EQ(CountKernels(Lower(mlp, kFused)), 3u);    // 3 matmuls with bias (+ relu) epilogues
  // Run the same model at a smaller size (batch 4, 20-16-16-10): the interpreter is slow.
  std::string text = ReadExample("mlp.rxt");
  for (auto [from, to] : {std::pair{"64", "4"}, {"784", "20"}, {"128", "16"}}) text = ReplaceNumber(text, from, to);
  IRModule small = ParseModule(text);
  std::vector<Value> args;
  for (std::vector<int64_t> shape :
       std::vector<std::vector<int64_t>>{{4, 20}, {20, 16}, {16}, {16, 16}, {16}, {16, 10}, {10}}) {
    args.push_back(Value(RandomTensor(shape, rng_)));
  }
  Value unfused = Run(Lower(small, kUnfused), "backbone", args);
  Value fused = Run(Lower(small, kFused), "backbone", args);
  // The epilogue adds the bias after the complete reduction, as the unfused kernels do.
  EXPECT_TRUE(BitwiseEqual(fused, unfused));
  ExpectClose(Run(Lower(small, kGrouped), "backbone", args), unfused, "FuseOps");
}

constexpr const char* kSymbolicModule = R"(
def @main(%x: Tensor((n, 4), float32), %y: Tensor((n, 4), float32), %w: Tensor((4, 3), float32),
          %b: Tensor((3,), float32)) -> Tensor((n,), float32) {
  dataflow {
    %e: Tensor((n, 4), float32) = exp(%x)
    %a: Tensor((n, 4), float32) = subtract(%e, %y)
    %m: Tensor((n, 3), float32) = matmul(%a, %w)
    %c: Tensor((n, 3), float32) = add(%m, %b)
    %r: Tensor((n, 3), float32) = tanh(%c)
    %t: Tensor((3, n), float32) = permute_dims(%r, axes=[1, 0])
    %s: Tensor((n,), float32) = sum(%t, axis=[0])
    output %s
  }
  return %s
})";

TEST_F(FusionRun, SymbolicDimsChainAndReduction) {
  IRModule module = ParseModule(kSymbolicModule);
  IRModule fused = Lower(module, kFused);
  // {exp, subtract}, matmul, {add, tanh, permute_dims, sum}: the sum takes in its injective
  // producers; the matmul takes no producers and, followed by a reduction, no epilogue.
  EXPECT_EQ(CountKernels(fused), 3u);
  for (int64_t n : {1, 2, 5}) {
    std::vector<Value> args = {Value(RandomTensor({n, 4}, rng_)), Value(RandomTensor({n, 4}, rng_)),
                               Value(RandomTensor({4, 3}, rng_)), Value(RandomTensor({3}, rng_))};
    ExpectSameResults(module, "main", args);
  }
  // One executable serves every n.
  VirtualMachine vm(CompileToExecutable(fused, {.backend = "reference"}), provider_);
  VirtualMachine reference(CompileToExecutable(Lower(module, kUnfused), {.backend = "reference"}), provider_);
  for (int64_t n : {3, 1, 4}) {
    std::vector<Value> args = {Value(RandomTensor({n, 4}, rng_)), Value(RandomTensor({n, 4}, rng_)),
                               Value(RandomTensor({4, 3}, rng_)), Value(RandomTensor({3}, rng_))};
    ExpectClose(vm.Invoke("main", args), reference.Invoke("main", args), "one executable, n varies");
  }
}

constexpr const char* kBroadcastModule = R"(
def @main(%x: Tensor((n, 4), int32), %c: Tensor((n, 1), float32), %b: Tensor((4,), float32))
    -> Tensor((n, 4), float32) {
  dataflow {
    %f: Tensor((n, 4), float32) = astype(%x, dtype="float32")
    %p: Tensor((n, 4), float32) = multiply(%f, %c)
    %q: Tensor((n, 4), float32) = add(%p, %b)
    %g: Tensor((n, 4), bool) = greater(%q, %f)
    %w: Tensor((n, 4), float32) = where(%g, %q, %c)
    %z: Tensor((n, 4), float32) = clip(%w, min=-1.5, max=1.5)
    output %z
  }
  return %z
})";

TEST_F(FusionRun, BroadcastsAndDtypeChanges) {
  IRModule module = ParseModule(kBroadcastModule);
  IRModule fused = Lower(module, kFused);
  // %f, %q are used twice, each time at the element being written: inlined at each load.
  EXPECT_EQ(CountKernels(fused), 1u);
  for (int64_t n : {2, 7}) {
    Tensor x = Tensor::Empty({n, 4}, DType::kInt32);
    for (int64_t i = 0; i < x.numel(); ++i) x.data_as<int32_t>()[i] = static_cast<int32_t>(i % 5) - 2;
    ExpectSameResults(module, "main", {Value(x), Value(RandomTensor({n, 1}, rng_)), Value(RandomTensor({4}, rng_))});
  }
}

constexpr const char* kConvModule = R"(
def @main(%d: Tensor((2, 2, 5, 5), float32), %k: Tensor((3, 2, 3, 3), float32), %b: Tensor((1, 3, 1, 1), float32))
    -> Tensor((2, 3, 5, 5), float32) {
  dataflow {
    %c: Tensor((2, 3, 5, 5), float32) = nn.conv2d(%d, %k, padding=[1, 1, 1, 1])
    %a: Tensor((2, 3, 5, 5), float32) = add(%c, %b)
    %r: Tensor((2, 3, 5, 5), float32) = nn.relu(%a)
    output %r
  }
  return %r
})";

TEST_F(FusionRun, ConvolutionWithPaddingTakesABiasReluEpilogue) {
  IRModule module = ParseModule(kConvModule);
  EXPECT_EQ(CountKernels(Lower(module, kFused)), 1u);  // the padding stage stays inside the kernel
  ExpectSameResults(module, "main",
                    {Value(RandomTensor({2, 2, 5, 5}, rng_)), Value(RandomTensor({3, 2, 3, 3}, rng_)),
                     Value(RandomTensor({1, 3, 1, 1}, rng_))});
}

TEST_F(FusionRun, ADotProductTakesAnEpilogueAfterItsLoop) {
  // A 0-d result: no spatial loops, so the epilogue block follows the reduction loop.
  IRModule module = ParseModule(R"(
def @main(%a: Tensor((5,), float32), %b: Tensor((5,), float32), %c: Tensor((), float32)) -> Tensor((), float32) {
  dataflow {
    %m: Tensor((), float32) = matmul(%a, %b)
    %s: Tensor((), float32) = add(%m, %c)
    %r: Tensor((), float32) = sigmoid(%s)
    output %r
  }
  return %r
})");
  EXPECT_EQ(CountKernels(Lower(module, kFused)), 1u);
  ExpectSameResults(module, "main",
                    {Value(RandomTensor({5}, rng_)), Value(RandomTensor({5}, rng_)), Value(RandomTensor({}, rng_))});
}

// max_pool2d_backward of 2x2 windows keeps its first maxima in a local buffer (a stage before
// the one inlined into the where): ties and zeros in the data, as after a ReLU. Then the same
// producer as a side input of a convolution's epilogue, whose stage runs before the anchor.
constexpr const char* kPoolGradientModule = R"(
def @main(%y: Tensor((2, 3, 6, 4), float32), %g: Tensor((2, 3, 3, 2), float32), %k: Tensor((3, 3, 3, 3), float32))
    -> Tensor((2, 3, 6, 4), float32) {
  dataflow {
    %dy: Tensor((2, 3, 6, 4), float32) = nn.max_pool2d_backward(%g, %y, pool_size=[2, 2], strides=[2, 2])
    %m: Tensor((2, 3, 6, 4), bool) = greater(%y, const(0, float32))
    %dx: Tensor((2, 3, 6, 4), float32) = where(%m, %dy, const(0, float32))
    %c: Tensor((2, 3, 6, 4), float32) = nn.conv2d(%dx, %k, padding=[1, 1, 1, 1])
    %dz: Tensor((2, 3, 6, 4), float32) = nn.max_pool2d_backward(%g, %y, pool_size=[2, 2], strides=[2, 2])
    %r: Tensor((2, 3, 6, 4), float32) = add(%c, %dz)
    output %r
  }
  return %r
})";

TEST_F(FusionRun, PoolingGradientKeepsItsFirstMaximaStage) {
  IRModule module = ParseModule(kPoolGradientModule);
  EXPECT_EQ(CountKernels(Lower(module, kFused)), 2u);  // {pool gradient, greater, where}, {conv2d, pool gradient, add}
  Tensor y = Tensor::Empty({2, 3, 6, 4}, DType::kFloat32);
  for (int64_t i = 0; i < y.numel(); ++i) y.data_as<float>()[i] = static_cast<float>((i * 7) % 4) - 1;  // -1 to 2
  for (int64_t i = 0; i < y.numel(); i += 5) y.data_as<float>()[i] = std::max(y.data_as<float>()[i], 0.0f);
  ExpectSameResults(module, "main",
                    {Value(y), Value(RandomTensor({2, 3, 3, 2}, rng_)), Value(RandomTensor({3, 3, 3, 3}, rng_))});
}

TEST_F(FusionRun, FusedModuleSurvivesTheTextFormat) {
  IRModule fused = Lower(ParseModule(kSymbolicModule), kFused);
  IRModule reparsed = ParseModule(PrintModule(fused));
  std::vector<Value> args = {Value(RandomTensor({3, 4}, rng_)), Value(RandomTensor({3, 4}, rng_)),
                             Value(RandomTensor({4, 3}, rng_)), Value(RandomTensor({3}, rng_))};
  EXPECT_TRUE(BitwiseEqual(Run(fused, "main", args), Run(reparsed, "main", args)));
}

}  // namespace
}  // namespace rxt
