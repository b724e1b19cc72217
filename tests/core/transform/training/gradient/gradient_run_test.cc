// Whole-function gradients (the Gradient pass, core/src/transform/gradient/) checked against
// float64 central finite differences, both sides run on the reference backend: the adjoint
// function's adjoints must match (f(p + h) - f(p - h)) / 2h for every element of every
// required parameter. The rules are the test fixture's (tests/plugins/fixtures/grad_rules.c).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "test_util/fixture_grad_rules.h"
#include "test_util/reference_provider.h"
#include "rxt/exec/build.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/runtime/vm.h"
#include "rxt/transform/training/gradient.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

const PluginHost& Rules() { return testing::FixtureGradRules(); }

/// Random float64 values in [-1, 1] (bool tensors: |flag|) for every parameter of |f|; symbolic
/// dims take the value in |dims|.
std::vector<Value> RandomArgs(const Function& f, unsigned seed, const std::map<std::string, int64_t>& dims = {},
                              bool flag = true) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<Value> args;
  for (const Var& p : f->params) {
    const auto* t = p->struct_info->As<TensorSINode>();
    std::vector<int64_t> shape;
    for (const PrimExpr& d : *t->shape) {
      if (const auto* imm = d->As<IntImmNode>()) {
        shape.push_back(imm->value);
      } else {
        shape.push_back(dims.at(d->As<PrimVarNode>()->name));
      }
    }
    Tensor value = Tensor::Empty(shape, t->dtype);
    for (int64_t i = 0; i < value.numel(); ++i) value.SetFromDouble(i, t->dtype == DType::kBool ? flag : dist(rng));
    args.emplace_back(value);
  }
  return args;
}

double Scalar(const Value& v, int target_index) {
  const Value& target = v.is_tuple() ? v.tuple()[target_index] : v;
  return target.tensor().GetAsDouble(0);
}

struct GradientCheck {
  std::string text;
  std::string func = "main";
  std::vector<int> require;
  int target_index = 0;
  std::map<std::string, int64_t> dims;
  bool flag = true;  // the value of bool parameters (If conditions)
  bool simplify = false;
};

/// The module after Gradient (and SimplifyTransposes if asked), checked numerically.
IRModule CheckGradients(const GradientCheck& c) {
  IRModule module = ParseModule(c.text, "gradient check");
  IRModule with_adjoint = Gradient(module, c.func, c.require, c.target_index, &Rules());
  if (c.simplify) with_adjoint = SimplifyTransposes(with_adjoint);
  testing::ReferenceKernelProvider provider;
  VirtualMachine vm(Build(with_adjoint, {.backend = "reference", .opt_level = 0}), provider);
  std::vector<Value> args = RandomArgs(module.GetFunction(c.func), 7, c.dims, c.flag);

  Value out = vm.Invoke(c.func + "_adjoint", args);
  EXPECT_NEAR(Scalar(out.tuple()[0], c.target_index), Scalar(vm.Invoke(c.func, args), c.target_index), 1e-12);
  const std::vector<Value>& adjoints = out.tuple()[1].tuple();
  EXPECT_EQ(adjoints.size(), c.require.size());
  const double h = 1e-6;
  for (size_t k = 0; k < c.require.size() && k < adjoints.size(); ++k) {
    const Tensor& grad = adjoints[k].tensor();
    Tensor& param = args[c.require[k]].mutable_tensor();
    EXPECT_EQ(grad.shape(), param.shape());
    if (grad.shape() != param.shape()) break;
    for (int64_t i = 0; i < param.numel(); ++i) {
      double saved = param.GetAsDouble(i);
      param.SetFromDouble(i, saved + h);
      double up = Scalar(vm.Invoke(c.func, args), c.target_index);
      param.SetFromDouble(i, saved - h);
      double down = Scalar(vm.Invoke(c.func, args), c.target_index);
      param.SetFromDouble(i, saved);
      double numeric = (up - down) / (2 * h);
      EXPECT_NEAR(grad.GetAsDouble(i), numeric, 1e-6 * (1 + std::abs(numeric)))
          << "parameter " << c.require[k] << " element " << i << "\n"
          << PrintFunction(with_adjoint.GetFunction(c.func + "_adjoint"), c.func + "_adjoint");
    }
  }
  return with_adjoint;
}

int CountCalls(const Function& f, const std::string& op) {
  std::string text = PrintFunction(f, "f");
  int count = 0;
  for (size_t at = text.find(" " + op + "("); at != std::string::npos; at = text.find(" " + op + "(", at + 1)) ++count;
  return count;
}

TEST(GradientRun, TwoLayerPerceptronWithSquaredError) {
  CheckGradients({R"(
def @main(%x: Tensor((4, 5), float64), %w0: Tensor((5, 3), float64), %b0: Tensor((3,), float64),
          %w1: Tensor((3, 2), float64), %b1: Tensor((2,), float64), %y: Tensor((4, 2), float64)) -> Tensor((), float64) {
  dataflow {
    %lv0: Tensor((4, 3), float64) = matmul(%x, %w0)
    %lv1: Tensor((4, 3), float64) = add(%lv0, %b0)
    %lv2: Tensor((4, 3), float64) = nn.relu(%lv1)
    %lv3: Tensor((4, 2), float64) = matmul(%lv2, %w1)
    %lv4: Tensor((4, 2), float64) = add(%lv3, %b1)
    %d: Tensor((4, 2), float64) = subtract(%lv4, %y)
    %sq: Tensor((4, 2), float64) = multiply(%d, %d)
    %loss: Tensor((), float64) = sum(%sq)
    output %loss
  }
  return %loss
})", "main", {1, 2, 3, 4, 0}});
}

TEST(GradientRun, TuplesItemsAndVariablesUsedManyTimes) {
  CheckGradients({R"(
def @main(%a: Tensor((3,), float64), %b: Tensor((2, 3), float64)) -> Tuple(Tensor((), float64), Tensor((2, 3), float64)) {
  dataflow {
    %p: Tensor((2, 3), float64) = multiply(%a, %b)
    %t: Tuple(Tensor((2, 3), float64), Tensor((3,), float64)) = (%p, %a)
    %first: Tensor((2, 3), float64) = %t[0]
    %second: Tensor((3,), float64) = %t[1]
    %s: Tensor((2, 3), float64) = add(%first, %second)
    %s2: Tensor((2, 3), float64) = multiply(%s, %p)
    %r: Tensor((2,), float64) = sum(%s2, axis=[1])
    %loss: Tensor((), float64) = sum(%r)
    %out = (%loss, %s2)
    output %out
  }
  return %out
})", "main", {0, 1}, 0});
}

TEST(GradientRun, SeveralBlocksAndIfBothWays) {
  const std::string text = R"(
def @main(%c: Tensor((), bool), %x: Tensor((2, 3), float64), %w: Tensor((3, 3), float64)) -> Tensor((), float64) {
  %h: Tensor((2, 3), float64) = matmul(%x, %w)
  dataflow {
    %g: Tensor((2, 3), float64) = nn.relu(%h)
    output %g
  }
  %r: Tensor((2, 3), float64) = if %c {
    %p: Tensor((2, 3), float64) = multiply(%g, %x)
    %q: Tensor((2, 3), float64) = add(%p, %g)
    yield %q
  } else {
    %m: Tensor((2, 3), float64) = matmul(%g, %w)
    yield %m
  }
  %s: Tensor((2, 3), float64) = multiply(%r, %r)
  %loss: Tensor((), float64) = sum(%s)
  return %loss
})";
  for (bool flag : {true, false}) {
    SCOPED_TRACE(flag ? "then" : "else");
    CheckGradients({text, "main", {1, 2}, 0, {}, flag});
  }
}

TEST(GradientRun, SymbolicShapes) {
  CheckGradients({R"(
def @main(%x: Tensor((n, 3), float64), %w: Tensor((3, 2), float64), %b: Tensor((2,), float64)) -> Tensor((), float64) {
  dataflow {
    %y: Tensor((n, 2), float64) = matmul(%x, %w)
    %z: Tensor((n, 2), float64) = add(%y, %b)
    %r: Tensor((n, 2), float64) = nn.relu(%z)
    %s: Tensor((n, 2), float64) = multiply(%r, %z)
    %loss: Tensor((), float64) = sum(%s)
    output %loss
  }
  return %loss
})", "main", {0, 1, 2}, 0, {{"n", 5}}});
}

TEST(GradientRun, ParametersNotReachingTheTargetGetZeros) {
  IRModule m = CheckGradients({R"(
def @main(%x: Tensor((2, 2), float64), %unused: Tensor((3,), float64), %w: Tensor((2, 2), float64)) -> Tensor((), float64) {
  dataflow {
    %y: Tensor((2, 2), float64) = matmul(%x, %w)
    %z: Tensor((3,), float64) = multiply(%unused, %unused)
    %loss: Tensor((), float64) = sum(%y)
    output %loss
  }
  return %loss
})", "main", {1, 2}});
  EXPECT_EQ(CountCalls(m.GetFunction("main_adjoint"), "zeros"), 1);
}

TEST(GradientRun, CheckpointedSegmentIsRecomputedInTheBackwardPass) {
  IRModule m = CheckGradients({R"(
def @main(%x: Tensor((3, 4), float64), %w0: Tensor((4, 4), float64), %w1: Tensor((4, 2), float64)) -> Tensor((), float64) {
  dataflow {
    %s: Tensor((3, 4), float64) = checkpoint_start(%x)
    %a: Tensor((3, 4), float64) = matmul(%s, %w0)
    %r: Tensor((3, 4), float64) = nn.relu(%a)
    %e: Tensor((3, 4), float64) = checkpoint_end(%r)
    %o: Tensor((3, 2), float64) = matmul(%e, %w1)
    %p: Tensor((3, 2), float64) = multiply(%o, %o)
    %loss: Tensor((), float64) = sum(%p)
    output %loss
  }
  return %loss
})", "main", {0, 1, 2}});
  // The forward matmul(%s, %w0) runs again in the backward pass; relu's rule reads the copy.
  const Function& adjoint = m.GetFunction("main_adjoint");
  EXPECT_EQ(CountCalls(adjoint, "nn.relu"), 1);  // relu's rule needs %a, not %r
  std::string text = PrintFunction(adjoint, "main_adjoint");
  EXPECT_EQ(CountCalls(adjoint, "matmul"), 2 + 1 + 4) << text;  // forward 2, recomputed 1, rules 2 x 2
}

TEST(GradientRun, SimplifiedTransposesGiveTheSameGradients) {
  IRModule m = CheckGradients({R"(
def @main(%x: Tensor((3, 4), float64), %w: Tensor((2, 4), float64)) -> Tensor((), float64) {
  dataflow {
    %wt: Tensor((4, 2), float64) = permute_dims(%w)
    %y: Tensor((3, 2), float64) = matmul(%x, %wt)
    %s: Tensor((3, 2), float64) = multiply(%y, %y)
    %loss: Tensor((), float64) = sum(%s)
    output %loss
  }
  return %loss
})", "main", {0, 1}, 0, {}, true, /*simplify=*/true});
  // dx = dy (wᵀ)ᵀ = dy w; dw = (xᵀ dy)ᵀ = dyᵀ x: one transpose in the backward pass instead of four.
  EXPECT_EQ(CountCalls(m.GetFunction("main_adjoint"), "permute_dims"), 1 + 1)
      << PrintFunction(m.GetFunction("main_adjoint"), "main_adjoint");
}

}  // namespace
}  // namespace rxt
