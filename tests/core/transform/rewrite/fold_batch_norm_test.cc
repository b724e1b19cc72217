// FoldBatchNorm (core/src/transform/rewrite/fold_batch_norm.cc) run end to end: a convolution
// followed by an inference batch normalization, its weights and statistics bound as constants,
// gives the same result (reference backend) with the normalization folded into the
// convolution, in both layouts. tests/data/passes/FoldBatchNorm has the rewritten text and what
// the pass leaves alone.
#include <gtest/gtest.h>

#include <cmath>

#include "rxt/exec/build.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"
#include "rxt/runtime/vm.h"
#include "rxt/support/message_text.h"
#include "rxt/transform/passes.h"
#include "test_util/deterministic_tensor.h"
#include "test_util/reference_provider.h"

namespace rxt {
namespace {

/// "(2, 3, 5, 5)": a shape as the text format writes it.
std::string Dims(const std::vector<int64_t>& shape) { return ShapeText(shape.data(), shape.size()); }

Tensor Run(const IRModule& module, const Tensor& x) {
  testing::ReferenceKernelProvider provider;
  VirtualMachine vm(Build(module, {.backend = "reference", .opt_level = 0}), provider);
  return vm.Invoke("main", {Value(x)}).tensor();
}

void ExpectClose(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double e = expected.GetAsDouble(i);
    EXPECT_NEAR(actual.GetAsDouble(i), e, 1e-5 * (1 + std::abs(e))) << "element " << i;
  }
}

struct Layout {
  const char* data_layout;
  const char* kernel_layout;
  std::vector<int64_t> data, weight;
  int axis;
};

void CheckFoldKeepsTheResult(const Layout& l) {
  std::string text = StrCat(R"(
def @main(%x: Tensor()", Dims(l.data), R"(, float32), %w: Tensor()", Dims(l.weight), R"(, float32),
          %g: Tensor((4,), float32), %b: Tensor((4,), float32), %m: Tensor((4,), float32), %v: Tensor((4,), float32)) -> Tensor(ndim=4, float32) {
  dataflow {
    %c = nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], data_layout=")", l.data_layout, R"(", kernel_layout=")",
                            l.kernel_layout, R"(")
    %t = nn.batch_norm(%c, %g, %b, %m, %v, axis=)", l.axis, R"(, epsilon=0.001, training=false)
    %y = %t[0]
    output %y
  }
  return %y
})");
  IRModule module = ParseModule(text, "conv_norm.rxt");
  std::map<std::string, Tensor> params = {{"w", test::DeterministicTensor(l.weight, 1, -1, 1)},
                                          {"g", test::DeterministicTensor({4}, 2, 0.5, 2)},
                                          {"b", test::DeterministicTensor({4}, 3, -1, 1)},
                                          {"m", test::DeterministicTensor({4}, 4, -0.5, 0.5)},
                                          {"v", test::DeterministicTensor({4}, 5, 0.1, 3)}};
  IRModule bound = BindParams("main", params)(module);
  IRModule folded = FoldBatchNorm()(bound);
  EXPECT_TRUE(CheckWellFormed(folded).empty());
  std::string printed = PrintModule(folded);
  EXPECT_EQ(printed.find("nn.batch_norm"), std::string::npos) << printed;
  EXPECT_NE(printed.find("add("), std::string::npos) << printed;
  Tensor x = test::DeterministicTensor(l.data, 6, -2, 2);
  ExpectClose(Run(folded, x), Run(bound, x));
}

TEST(FoldBatchNorm, KeepsTheResultNCHW) { CheckFoldKeepsTheResult({"NCHW", "OIHW", {2, 3, 5, 5}, {4, 3, 3, 3}, 1}); }

TEST(FoldBatchNorm, KeepsTheResultNHWC) { CheckFoldKeepsTheResult({"NHWC", "HWIO", {2, 5, 5, 3}, {3, 3, 3, 4}, 3}); }

TEST(FoldBatchNorm, LeavesAModuleWithoutConstantsAsItIs) {
  IRModule module = ParseModule(R"(
def @main(%x: Tensor((1, 2, 3, 3), float32), %w: Tensor((2, 2, 1, 1), float32), %g: Tensor((2,), float32)) -> Tensor(ndim=4, float32) {
  dataflow {
    %c = nn.conv2d(%x, %w)
    %t = nn.batch_norm(%c, %g, %g, %g, %g, training=false)
    %y = %t[0]
    output %y
  }
  return %y
})", "params.rxt");
  EXPECT_EQ(FoldBatchNorm()(module).GetFunction("main"), module.GetFunction("main"));
}

}  // namespace
}  // namespace rxt
