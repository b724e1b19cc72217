#include "update.h"

namespace rxt::optim_std {
namespace {

/// The dtype parameter values of |dtype| are updated in (see update.h).
std::string UpdateDType(const std::string& dtype) {
  return dtype == "float16" || dtype == "bfloat16" ? "float32" : dtype;
}

}  // namespace

Update::Update(Generator& generator, const Expr* params, const Expr* grads, int num_params, Expr* new_params)
    : g(generator), new_params_(new_params) {
  if (num_params <= 0) g.Fail("there are no parameters to update");
  for (int i = 0; i < num_params; ++i) {
    if (!g.IsFloat(params[i]) || g.Ndim(params[i]) < 0) {
      g.Fail("parameter " + std::to_string(i) + " must be a float tensor of known ndim, got " +
             g.StructInfoText(params[i]));
    }
    param_dtypes_.push_back(g.DType(params[i]));
    dtypes_.push_back(UpdateDType(param_dtypes_.back()));
    params_.push_back(g.Cast(params[i], dtypes_.back()));
    grads_.push_back(grads[i]);
  }
}

void Update::ReadOptions(const std::vector<const char*>& own, CommonDefaults defaults) {
  std::vector<const char*> known = {"lr", "weight_decay", "max_grad_norm"};
  known.insert(known.end(), own.begin(), own.end());
  g.CheckOptions(known);
  double lr = g.Float("lr", defaults.lr);
  g.Require(lr >= 0, "lr", "at least 0", lr);
  double weight_decay = g.Float("weight_decay", defaults.weight_decay);
  g.Require(weight_decay >= 0, "weight_decay", "at least 0", weight_decay);
  std::optional<double> max_grad_norm = g.OptionalFloat("max_grad_norm");
  if (max_grad_norm) g.Require(*max_grad_norm > 0, "max_grad_norm", "positive", *max_grad_norm);

  lr_ = g.State("lr", "Tensor((), float32)", lr);
  weight_decay_ = g.State("weight_decay", "Tensor((), float32)", weight_decay);
  Expr count = g.State("step", "Tensor((), int64)", 0);
  Expr next = g.Add(count, g.Scalar(1, "int64"));
  g.SetState(count, next);
  step_ = g.Cast(next, "float64");

  for (int i = 0; i < size(); ++i) grads_[i] = g.Cast(grads_[i], dtypes_[i]);
  if (max_grad_norm) ClipGradients(*max_grad_norm);
}

// torch.nn.utils.clip_grad_norm_(norm_type=2): total = sqrt(sum of every squared gradient
// element); every gradient is scaled by min(max_norm / (total + 1e-6), 1).
void Update::ClipGradients(double max_norm) {
  std::string norm_dtype = "float32";
  for (const std::string& dtype : dtypes_) {
    if (dtype == "float64") norm_dtype = "float64";
  }
  Expr total = nullptr;
  for (int i = 0; i < size(); ++i) {
    Expr squares = g.Cast(g.Op("sum", {g.Mul(grads_[i], grads_[i])}), norm_dtype);
    total = total == nullptr ? squares : g.Add(total, squares);
  }
  Expr norm = g.Op("sqrt", {total});
  Expr coef = g.Div(g.Scalar(max_norm, norm_dtype), g.Add(norm, g.Scalar(1e-6, norm_dtype)));
  coef = g.Op("minimum", {coef, g.Scalar(1, norm_dtype)});
  for (int i = 0; i < size(); ++i) grads_[i] = g.Mul(grads_[i], In(i, coef));
}

Expr Update::In(int i, Expr scalar) {
  Expr& converted = conversions_[{scalar, dtypes_[i]}];
  if (converted == nullptr) converted = g.Cast(scalar, dtypes_[i]);
  return converted;
}

Expr Update::CoupledDecay(int i, Expr grad) { return g.Add(grad, g.Mul(In(i, weight_decay_), params_[i])); }

Expr Update::StateLike(const std::string& name, int i, double init) {
  return g.State(name + "." + std::to_string(i), g.TensorLike(params_[i], dtypes_[i]), init);
}

void Update::SetParam(int i, Expr value) { new_params_[i] = g.Cast(value, param_dtypes_[i]); }

}  // namespace rxt::optim_std
