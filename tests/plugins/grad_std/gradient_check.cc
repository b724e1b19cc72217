#include "gradient_check.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "reference_provider.h"
#include "rxt/exec/build.h"
#include "rxt/ir/parser.h"
#include "rxt/runtime/vm.h"
#include "rxt/support/error.h"
#include "rxt/transform/training/gradient.h"

namespace rxt::grad_test {
namespace {

bool IsFloatDType(DType t) { return t == DType::kFloat32 || t == DType::kFloat64; }

/// A dim's value with the case's symbols bound (results may have dims like n * 3 + 1).
int64_t Evaluate(const PrimExpr& d, const GradCase& c) {
  if (const auto* imm = d->As<IntImmNode>()) return imm->value;
  if (const auto* var = d->As<PrimVarNode>()) return c.dims.at(var->name);
  if (const auto* bin = d->As<BinaryNode>()) {
    int64_t a = Evaluate(bin->a, c), b = Evaluate(bin->b, c);
    auto floor_div = [](int64_t x, int64_t y) { return x / y - ((x % y != 0) && ((x < 0) != (y < 0))); };
    switch (bin->op) {
      case BinaryOp::kAdd:
        return a + b;
      case BinaryOp::kSub:
        return a - b;
      case BinaryOp::kMul:
        return a * b;
      case BinaryOp::kFloorDiv:
        return floor_div(a, b);
      case BinaryOp::kFloorMod:
        return a - floor_div(a, b) * b;
      case BinaryOp::kMin:
        return std::min(a, b);
      case BinaryOp::kMax:
        return std::max(a, b);
      default:
        break;
    }
  }
  Throw(ErrorCode::kInvalidArgument, "cannot evaluate a dim of a gradient case");
}

std::vector<int64_t> ConcreteShape(const TensorSINode& t, const GradCase& c) {
  std::vector<int64_t> shape;
  for (const PrimExpr& d : *t.shape) shape.push_back(Evaluate(d, c));
  return shape;
}

Tensor RandomInput(const TensorSINode& t, const std::vector<int64_t>& shape, Range range, std::mt19937& rng) {
  Tensor x = Tensor::Empty(shape, t.dtype);
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (t.dtype == DType::kFloat64) {
      x.data_as<double>()[i] = std::uniform_real_distribution<double>(range.lo, range.hi)(rng);
    } else if (t.dtype == DType::kInt64) {
      x.data_as<int64_t>()[i] =
          std::uniform_int_distribution<int64_t>(static_cast<int64_t>(range.lo), static_cast<int64_t>(range.hi))(rng);
    } else if (t.dtype == DType::kBool) {
      x.data_as<bool>()[i] = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    } else {
      Throw(ErrorCode::kInvalidArgument, "gradient cases use float64, int64 and bool parameters");
    }
  }
  return x;
}

/// The result fields of the probe function (the body alone): their struct info texts.
std::vector<std::string> ResultFields(const GradCase& c) {
  IRModule probe = ParseModule("def @probe(" + c.params + ") -> Object {\n" + c.body + "\n  return %r\n}\n", "probe");
  const StructInfo& result = GetStructInfo(probe.GetFunction("probe")->body->body);
  std::vector<std::string> fields;
  if (const auto* tuple = result->As<TupleSINode>()) {
    for (const StructInfo& f : tuple->fields) fields.push_back(ToString(f));
  } else {
    fields.push_back(ToString(result));
  }
  return fields;
}

/// f(params, weights) = sum_i sum(r_i * w_i).
std::string TestModuleText(const GradCase& c, const std::vector<std::string>& fields) {
  std::ostringstream text;
  text << "def @f(" << c.params;
  for (size_t i = 0; i < fields.size(); ++i) text << ", %weight" << i << ": " << fields[i];
  text << ") -> Tensor((), float64) {\n" << c.body << "\n";
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string field = fields.size() == 1 ? "%r" : "%r_" + std::to_string(i);
    if (fields.size() > 1) text << "  " << field << " = %r[" << i << "]\n";
    text << "  %weighted" << i << " = multiply(" << field << ", %weight" << i << ")\n";
    text << "  %total" << i << " = sum(%weighted" << i << ")\n";
  }
  std::string loss = "%total0";
  for (size_t i = 1; i < fields.size(); ++i) {
    text << "  %loss" << i << " = add(" << loss << ", %total" << i << ")\n";
    loss = "%loss" + std::to_string(i);
  }
  text << "  return " << loss << "\n}\n";
  return text.str();
}

double Scalar(const Value& v) { return v.tensor().data_as<double>()[0]; }

}  // namespace

std::string CheckGradient(const GradCase& c, uint32_t seed) {
  std::vector<std::string> fields = ResultFields(c);
  std::string text = TestModuleText(c, fields);
  IRModule module = ParseModule(text, c.op + ".rxt");
  Function f = module.GetFunction("f");

  std::mt19937 rng(seed);
  std::vector<Value> args;
  std::vector<int> differentiated;  // parameter indices
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Var& p = f->params[i];
    const auto* t = p->struct_info->As<TensorSINode>();
    RXT_CHECK(t != nullptr && t->shape, "gradient cases take tensors of known shape");
    bool weight = p->name.rfind("weight", 0) == 0 && i >= f->params.size() - fields.size();
    auto range = c.ranges.find(p->name);
    args.emplace_back(RandomInput(*t, ConcreteShape(*t, c), range != c.ranges.end() ? range->second : Range{}, rng));
    bool constant = std::find(c.constant.begin(), c.constant.end(), p->name) != c.constant.end();
    if (IsFloatDType(t->dtype) && !weight && !constant) differentiated.push_back(static_cast<int>(i));
  }
  if (differentiated.empty()) return "the case has no float parameter to differentiate";

  IRModule with_adjoint = Gradient(module, "f", differentiated);
  testing::ReferenceKernelProvider provider;
  VirtualMachine vm(Build(with_adjoint, {.backend = "reference", .opt_level = 0}), provider);
  Value adjoint = vm.Invoke("f_adjoint", args);
  double loss = Scalar(adjoint.tuple()[0]);
  const std::vector<Value>& grads = adjoint.tuple()[1].tuple();

  std::ostringstream failures;
  double forward = Scalar(vm.Invoke("f", args));
  if (std::abs(forward - loss) > 1e-12 * (1 + std::abs(forward))) {
    failures << "f_adjoint's loss " << loss << " differs from f's " << forward << "\n";
  }
  constexpr double kStep = 1e-6;
  constexpr int64_t kMaxPerElement = 24;
  constexpr int64_t kDirections = 6;
  int reported = 0;
  for (size_t k = 0; k < differentiated.size(); ++k) {
    int index = differentiated[k];
    Tensor& x = args[index].mutable_tensor();
    const Tensor& grad = grads[k].tensor();
    if (grad.shape() != x.shape()) {
      failures << "the gradient of %" << f->params[index]->name << " has the wrong shape\n";
      continue;
    }
    // Small inputs element by element; larger ones along random directions v (<grad, v>
    // against the difference quotient along v), which any wrong element changes as well.
    bool per_element = x.numel() <= kMaxPerElement;
    int64_t directions = per_element ? x.numel() : kDirections;
    std::vector<double> saved(x.data_as<double>(), x.data_as<double>() + x.numel());
    for (int64_t j = 0; j < directions; ++j) {
      std::vector<double> v(saved.size(), 0.0);
      if (per_element) {
        v[j] = 1;
      } else {
        for (double& e : v) e = std::uniform_real_distribution<double>(-1, 1)(rng);
      }
      auto evaluate_at = [&](double step) {
        for (size_t e = 0; e < v.size(); ++e) x.data_as<double>()[e] = saved[e] + step * v[e];
        return Scalar(vm.Invoke("f", args));
      };
      double numeric = (evaluate_at(kStep) - evaluate_at(-kStep)) / (2 * kStep);
      double analytic = 0;
      for (size_t e = 0; e < v.size(); ++e) analytic += grad.data_as<double>()[e] * v[e];
      if (std::abs(analytic - numeric) > c.tolerance * (1 + std::abs(numeric)) && reported++ < 5) {
        failures << "d/d %" << f->params[index]->name << (per_element ? "[" : " along random direction ") << j
                 << (per_element ? "]" : "") << ": rule " << analytic << ", finite differences " << numeric << "\n";
      }
    }
    std::copy(saved.begin(), saved.end(), x.data_as<double>());
  }
  return failures.str();
}

}  // namespace rxt::grad_test
