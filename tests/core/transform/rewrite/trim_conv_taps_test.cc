// TrimConvTaps (core/src/transform/rewrite/trim_conv_taps.cc) run end to end: convolutions
// with constant weights whose kernels reach into padding only, for every output position,
// give the same result (reference backend) with those taps cut, over strides, dilations,
// uneven padding and both layouts. tests/data/passes/TrimConvTaps has the rewritten text and
// what the pass leaves alone.
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

struct Case {
  std::vector<int64_t> data, weight;
  std::string window;  // the conv2d attributes
  std::string layouts = "";
  std::vector<int64_t> trimmed;  // the weight's shape after the pass
};

std::vector<int64_t> WeightShape(const IRModule& module) {
  const Expr& value = module.GetFunction("main")->body->blocks[0].bindings[0].value;
  return value->As<CallNode>()->args[1]->As<ConstantNode>()->data.shape();
}

void Check(const Case& c) {
  SCOPED_TRACE(c.window);
  std::string text = StrCat(R"(
def @main(%x: Tensor()", Dims(c.data), R"(, float32), %w: Tensor()", Dims(c.weight), R"(, float32)) -> Tensor(ndim=4, float32) {
  dataflow {
    %y = nn.conv2d(%x, %w, )", c.window, c.layouts, R"()
    output %y
  }
  return %y
})");
  IRModule bound = BindParams("main", {{"w", test::DeterministicTensor(c.weight, 1, -1, 1)}})(ParseModule(text, "conv.rxt"));
  IRModule trimmed = TrimConvTaps()(bound);
  EXPECT_TRUE(CheckWellFormed(trimmed).empty());
  EXPECT_EQ(WeightShape(trimmed), c.trimmed) << PrintModule(trimmed);
  testing::ReferenceKernelProvider provider;
  Tensor x = test::DeterministicTensor(c.data, 2, -2, 2);
  VirtualMachine before(Build(bound, {.backend = "reference", .opt_level = 0}), provider);
  VirtualMachine after(Build(trimmed, {.backend = "reference", .opt_level = 0}), provider);
  Tensor expected = before.Invoke("main", {Value(x)}).tensor(), actual = after.Invoke("main", {Value(x)}).tensor();
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double e = expected.GetAsDouble(i);
    EXPECT_NEAR(actual.GetAsDouble(i), e, 1e-5 * (1 + std::abs(e))) << "element " << i;
  }
}

TEST(TrimConvTaps, KeepsTheResult) {
  // 1x1 maps: the centre tap.
  Check({{2, 3, 1, 1}, {4, 3, 3, 3}, "padding=[1, 1, 1, 1]", "", {4, 3, 1, 1}});
  // Stride 2 from 2x2 to 1x1: rows and columns 1-2.
  Check({{2, 3, 2, 2}, {4, 3, 3, 3}, "strides=[2, 2], padding=[1, 1, 1, 1]", "", {4, 3, 2, 2}});
  // A 1x4 map: rows cut, columns all live.
  Check({{1, 2, 1, 4}, {3, 2, 3, 3}, "padding=[1, 1, 1, 1]", "", {3, 2, 1, 3}});
  // Dilation 2 on a 2x2 map with padding 2: only the middle tap reads data.
  Check({{1, 2, 2, 2}, {2, 2, 3, 3}, "padding=[2, 2, 2, 2], dilation=[2, 2]", "", {2, 2, 1, 1}});
  // Uneven padding: all of it after the data, so only the first row of taps is live.
  Check({{1, 2, 1, 3}, {2, 2, 3, 3}, "padding=[0, 1, 2, 1]", "", {2, 2, 1, 3}});
  // Groups, and NHWC with HWIO weights.
  Check({{2, 4, 1, 1}, {4, 2, 3, 3}, "padding=[1, 1, 1, 1], groups=2", "", {4, 2, 1, 1}});
  Check({{2, 1, 1, 3}, {3, 3, 3, 4}, "padding=[1, 1, 1, 1]", R"(, data_layout="NHWC", kernel_layout="HWIO")",
         {1, 1, 3, 4}});
}

}  // namespace
}  // namespace rxt
