// LowerGradientOf (core/src/transform/training/lower_gradient_of.cc) run end to end: the
// gradients gradient_of gives, built and run on the reference backend, match float64 central
// finite differences of sum(y); the pass cases (tests/data/passes/LowerGradientOf) show its
// output and refusals. The rules are the test fixture's (tests/plugins/fixtures/grad_rules.c).
#include <gtest/gtest.h>

#include <cmath>

#include "rxt/exec/build.h"
#include "rxt/ir/equality.h"
#include "rxt/ir/well_formed.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/runtime/vm.h"
#include "rxt/transform/passes.h"
#include "test_util/fixture_grad_rules.h"
#include "test_util/reference_provider.h"

namespace rxt {
namespace {

const PluginHost& Rules() { return testing::FixtureGradRules(); }

Tensor Filled(const std::vector<int64_t>& shape, double start, double step) {
  Tensor t = Tensor::Empty(shape, DType::kFloat64);
  for (int64_t i = 0; i < t.numel(); ++i) t.SetFromDouble(i, start + step * static_cast<double>(i));
  return t;
}

double SumOf(const Tensor& t) {
  double s = 0;
  for (int64_t i = 0; i < t.numel(); ++i) s += t.GetAsDouble(i);
  return s;
}

// @main returns (y, gradient_of(y, (w, h, b))): y = relu(x @ w + b) * (x @ w), with h = x @ w also
// a variable of wrt (so w's gradient is zero: h stops the walk back from y); the batch n is
// symbolic. Checked against finite differences of sum(y) in w (zero), h and b through @f, the
// same bindings with h a parameter.
constexpr const char* kModule = R"(
def @main(%x: Tensor((n, 3), float64), %w: Tensor((3, 2), float64), %b: Tensor((2,), float64))
    -> Tuple(Tensor((n, 2), float64), Tuple(Tensor((3, 2), float64), Tensor((n, 2), float64), Tensor((2,), float64))) {
  dataflow {
    %h: Tensor((n, 2), float64) = matmul(%x, %w)
    %z: Tensor((n, 2), float64) = add(%h, %b)
    %r: Tensor((n, 2), float64) = nn.relu(%z)
    %y: Tensor((n, 2), float64) = multiply(%r, %h)
    %g: Tuple(Tensor((3, 2), float64), Tensor((n, 2), float64), Tensor((2,), float64)) = gradient_of(%y, (%w, %h, %b))
    %out = (%y, %g)
    output %out
  }
  return %out
}

def @f(%h: Tensor((n, 2), float64), %b: Tensor((2,), float64)) -> Tensor((n, 2), float64) {
  dataflow {
    %z: Tensor((n, 2), float64) = add(%h, %b)
    %r: Tensor((n, 2), float64) = nn.relu(%z)
    %y: Tensor((n, 2), float64) = multiply(%r, %h)
    output %y
  }
  return %y
}
)";

TEST(LowerGradientOf, GradientsMatchFiniteDifferences) {
  IRModule lowered = LowerGradientOf(&Rules())(ParseModule(kModule, "gradient_of.rxt"), PassContext());
  EXPECT_TRUE(CheckWellFormed(lowered).empty());
  // The printed module parses back to the same module (symbols of the inlined adjoint included).
  EXPECT_TRUE(StructuralEqual(ParseModule(PrintModule(lowered), "printed.rxt"), lowered)) << PrintModule(lowered);
  testing::ReferenceKernelProvider provider;
  VirtualMachine vm(Build(lowered, {.backend = "reference", .opt_level = 0}), provider);

  const int64_t n = 4;
  Tensor x = Filled({n, 3}, -0.9, 0.17), w = Filled({3, 2}, 0.5, -0.21), b = Filled({2}, 0.1, -0.3);
  Value out = vm.Invoke("main", {Value(x), Value(w), Value(b)});
  const std::vector<Value>& gradients = out.tuple()[1].tuple();
  ASSERT_EQ(gradients.size(), 3u);
  Tensor h = Tensor::Empty({n, 2}, DType::kFloat64);  // x @ w
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      double s = 0;
      for (int64_t k = 0; k < 3; ++k) s += x.GetAsDouble(i * 3 + k) * w.GetAsDouble(k * 2 + j);
      h.SetFromDouble(i * 2 + j, s);
    }
  }
  for (int64_t i = 0; i < w.numel(); ++i) EXPECT_EQ(gradients[0].tensor().GetAsDouble(i), 0.0) << "w " << i;

  const double step = 1e-6;
  auto check = [&](Tensor& param, const Tensor& grad, const std::string& name) {
    ASSERT_EQ(grad.shape(), param.shape()) << name;
    for (int64_t i = 0; i < param.numel(); ++i) {
      const double saved = param.GetAsDouble(i);
      param.SetFromDouble(i, saved + step);
      const double up = SumOf(vm.Invoke("f", {Value(h), Value(b)}).tensor());
      param.SetFromDouble(i, saved - step);
      const double down = SumOf(vm.Invoke("f", {Value(h), Value(b)}).tensor());
      param.SetFromDouble(i, saved);
      const double numeric = (up - down) / (2 * step);
      EXPECT_NEAR(grad.GetAsDouble(i), numeric, 1e-6 * (1 + std::abs(numeric))) << name << " element " << i;
    }
  };
  check(h, gradients[1].tensor(), "h");
  check(b, gradients[2].tensor(), "b");
}

TEST(LowerGradientOf, LeavesModulesWithoutItAlone) {
  IRModule module = ParseModule(R"(
def @main(%a: Tensor((2,), float32)) -> Tensor((2,), float32) {
  %b: Tensor((2,), float32) = add(%a, %a)
  return %b
})", "plain.rxt");
  EXPECT_TRUE(StructuralEqual(LowerGradientOf(&Rules())(module, PassContext()), module));
}

TEST(LowerGradientOf, LegalizeOpsNamesThePassItNeeds) {
  IRModule module = ParseModule(R"(
def @main(%a: Tensor((2,), float32)) -> Tuple(Tensor((2,), float32)) {
  dataflow {
    %b: Tensor((2,), float32) = multiply(%a, %a)
    %g: Tuple(Tensor((2,), float32)) = gradient_of(%b, (%a,))
    output %g
  }
  return %g
})", "unlowered.rxt");
  try {
    LegalizeOps()(module, PassContext());
    FAIL() << "LegalizeOps legalized gradient_of";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kUnimplemented);
    EXPECT_NE(std::string(error.what()).find("gradient_of (1 call) in @main: run the LowerGradientOf pass before LegalizeOps"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace rxt
