#include "rxt/exec/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "rxt/ir/builder.h"
#include "rxt/ir/op.h"
#include "rxt/ir/printer.h"
#include "rxt/runtime/vm.h"

namespace rxt {
namespace {

constexpr const char* kChecked = "gradient_check_f";

/// A dim's value with the options' symbols bound (results may have dims like n * 3 + 1).
int64_t Evaluate(const PrimExpr& d, const GradientCheckOptions& options) {
  int64_t value = 0;
  if (GetConstInt(d, &value)) return value;
  if (const auto* var = d->As<PrimVarNode>()) {
    auto found = options.dims.find(var->name);
    if (found == options.dims.end()) Throw(ErrorCode::kInvalidArgument, "no value for the symbolic dim '", var->name, "'");
    return found->second;
  }
  if (const auto* bin = d->As<BinaryNode>()) {
    int64_t a = Evaluate(bin->a, options), b = Evaluate(bin->b, options);
    auto floor_div = [](int64_t x, int64_t y) { return x / y - ((x % y != 0) && ((x < 0) != (y < 0))); };
    switch (bin->op) {
      case BinaryOp::kAdd: return a + b;
      case BinaryOp::kSub: return a - b;
      case BinaryOp::kMul: return a * b;
      case BinaryOp::kFloorDiv: if (b != 0) return floor_div(a, b); break;
      case BinaryOp::kFloorMod: if (b != 0) return a - floor_div(a, b) * b; break;
      case BinaryOp::kMin: return std::min(a, b);
      case BinaryOp::kMax: return std::max(a, b);
      default: break;
    }
  }
  Throw(ErrorCode::kInvalidArgument, "cannot evaluate the dim ", ToString(d));
}

Tensor RandomInput(const Var& param, const GradientCheckOptions& options, std::mt19937& rng) {
  const auto* t = param->struct_info->As<TensorSINode>();
  if (t == nullptr || !t->shape) {
    Throw(ErrorCode::kInvalidArgument, "parameter %", param->name, " is ", ToString(param->struct_info),
          ": a gradient check takes tensors of known rank");
  }
  std::vector<int64_t> shape;
  for (const PrimExpr& d : *t->shape) shape.push_back(Evaluate(d, options));
  auto found = options.ranges.find(param->name);
  ValueRange range = found != options.ranges.end() ? found->second : ValueRange{};
  Tensor x = Tensor::Empty(shape, t->dtype);
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (t->dtype == DType::kFloat64) {
      x.data_as<double>()[i] = std::uniform_real_distribution<double>(range.lo, range.hi)(rng);
    } else if (t->dtype == DType::kInt64) {
      x.data_as<int64_t>()[i] =
          std::uniform_int_distribution<int64_t>(static_cast<int64_t>(range.lo), static_cast<int64_t>(range.hi))(rng);
    } else if (t->dtype == DType::kBool) {
      x.data_as<bool>()[i] = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    } else {
      Throw(ErrorCode::kInvalidArgument, "parameter %", param->name, " is ", DTypeName(t->dtype),
            ": a gradient check takes float64, int64 and bool parameters");
    }
  }
  return x;
}

/// f(params, weights) = sum_i sum(F_i * w_i), with F's own blocks and a block that weighs its
/// result; the weights' struct infos are the fields of F's result.
Function WeightedSum(const Function& f) {
  const Expr& result = f->body->body;
  std::vector<Expr> fields;
  if (const auto* tuple = GetStructInfo(result)->As<TupleSINode>()) {
    for (size_t i = 0; i < tuple->fields.size(); ++i) fields.push_back(MakeTupleGetItem(result, static_cast<int>(i)));
  } else {
    fields.push_back(result);
  }
  BlockBuilder builder;
  builder.BeginBindingBlock();
  std::vector<Var> params = f->params;
  Expr total;
  for (size_t i = 0; i < fields.size(); ++i) {
    Expr field = builder.Normalize(fields[i]);
    const auto* t = GetStructInfo(field)->As<TensorSINode>();
    if (t == nullptr || t->dtype != DType::kFloat64) {
      Throw(ErrorCode::kInvalidArgument, "the result's field ", i, " is ", ToString(GetStructInfo(field)),
            ": a gradient check needs float64 tensors");
    }
    Var weight = MakeVar(StrCat("weight", i), GetStructInfo(field));
    params.push_back(weight);
    Expr sum = builder.Emit(MakeOpCall("sum", {builder.Emit(MakeOpCall("multiply", {field, weight}))}));
    total = total ? builder.Emit(MakeOpCall("add", {total, sum})) : sum;
  }
  std::vector<BindingBlock> blocks = f->body->blocks;
  blocks.push_back(builder.EndBlock());
  return MakeFunction(params, MakeSeqExpr(std::move(blocks), total), GetStructInfo(total));
}

double Scalar(const Value& v) { return v.tensor().data_as<double>()[0]; }

}  // namespace

GradientCheckResult CheckGradient(const IRModule& module, const std::string& function,
                                  const GradientCheckOptions& options, Session& session) {
  Function f = module.GetFunction(function);
  Function weighted = WeightedSum(f);
  // f takes F's place: it reuses F's variables, which one module may not define twice.
  IRModule checked = module;
  checked.Remove(function);
  checked.Add(kChecked, weighted);

  std::mt19937 rng(options.seed);
  std::vector<Value> args;
  std::vector<int> differentiated;  // parameter indices
  for (size_t i = 0; i < weighted->params.size(); ++i) {
    const Var& p = weighted->params[i];
    args.emplace_back(RandomInput(p, options, rng));
    bool weight = i >= f->params.size();
    bool constant = std::find(options.constant.begin(), options.constant.end(), p->name) != options.constant.end();
    if (args.back().tensor().dtype() == DType::kFloat64 && !weight && !constant) {
      differentiated.push_back(static_cast<int>(i));
    }
  }
  if (differentiated.empty()) Throw(ErrorCode::kInvalidArgument, function, " has no float64 parameter to differentiate");

  IRModule with_adjoint = session.Differentiate(checked, kChecked, differentiated);
  Executable exec = session.Build(with_adjoint, {.backend = options.backend, .libraries = std::vector<std::string>{},
                                                 .opt_level = 0});
  RunnableExecutable run = session.CreateVM(std::move(exec));
  VirtualMachine& vm = *run.vm;
  const std::string adjoint_name = StrCat(kChecked, "_adjoint");
  Value adjoint = vm.Invoke(adjoint_name, args);
  double loss = Scalar(adjoint.tuple()[0]);
  const std::vector<Value>& grads = adjoint.tuple()[1].tuple();

  GradientCheckResult result;
  result.gradients = static_cast<int>(differentiated.size());
  std::ostringstream failures;
  int reported = 0;
  auto report = [&](const std::string& line) {
    if (reported++ < 5) failures << line << "\n";
  };
  double forward = Scalar(vm.Invoke(kChecked, args));
  if (std::abs(forward - loss) > 1e-12 * (1 + std::abs(forward))) {
    report(StrCat("the adjoint's loss ", loss, " differs from the function's ", forward));
  }
  constexpr double kStep = 1e-6;
  constexpr int64_t kMaxPerElement = 24;
  constexpr int64_t kDirections = 6;
  for (size_t k = 0; k < differentiated.size(); ++k) {
    int index = differentiated[k];
    const std::string& name = weighted->params[index]->name;
    Tensor& x = args[index].mutable_tensor();
    const Tensor& grad = grads[k].tensor();
    if (grad.shape() != x.shape()) {
      report(StrCat("the gradient of %", name, " has the wrong shape"));
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
        return Scalar(vm.Invoke(kChecked, args));
      };
      double numeric = (evaluate_at(kStep) - evaluate_at(-kStep)) / (2 * kStep);
      double analytic = 0;
      for (size_t e = 0; e < v.size(); ++e) analytic += grad.data_as<double>()[e] * v[e];
      ++result.checks;
      if (std::abs(analytic - numeric) > options.tolerance * (1 + std::abs(numeric))) {
        report(StrCat("d/d %", name, per_element ? StrCat("[", j, "]") : StrCat(" along random direction ", j),
                      ": gradient ", analytic, ", finite differences ", numeric));
      }
    }
    std::copy(saved.begin(), saved.end(), x.data_as<double>());
  }
  result.failures = failures.str();
  return result;
}

}  // namespace rxt
