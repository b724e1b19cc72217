// What every optimizer of optim_std shares: the common options and runtime state, the dtype
// each parameter is updated in, gradient clipping, and per-parameter state. Each optimizer
// (sgd.cc, adam.cc, ...) reads like torch.optim's update of one parameter:
//
//   void Sgd(Update& u) {
//     u.ReadOptions({}, {.lr = 0.01});
//     for (int i = 0; i < u.size(); ++i) {
//       Expr d = u.CoupledDecay(i, u.grad(i));             // g + weight_decay p
//       u.SetParam(i, u.g.Sub(u.param(i), u.g.Mul(u.In(i, u.lr()), d)));
//     }
//   }
//
// Dtypes: a float32 or float64 parameter is updated in its own dtype; float16 and bfloat16
// parameters (and their gradients) are converted to float32, updated, and converted back; their
// optimizer state is float32. Scalar factors (bias corrections, decayed learning rates) are
// computed in float64 and converted to the parameter's update dtype.
#pragma once

#include <rxt/plugin.h>

#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <rxt/plugin_support/generator.h>

namespace rxt::optim_std {

using plugin_support::Expr;
using plugin_support::Generator;

/// Defaults of the options every optimizer takes.
struct CommonDefaults {
  double lr = 0.01;
  double weight_decay = 0;
};

class Update {
 public:
  Update(Generator& generator, const Expr* params, const Expr* grads, int num_params, Expr* new_params);

  /// Checks the option names (|own| plus lr, weight_decay, max_grad_norm), declares the
  /// states "lr" and "weight_decay" (0-d float32, from the options) and "step" (0-d int64,
  /// counting updates), and prepares the gradients: in the update dtype, clipped to a global
  /// norm of max_grad_norm when that option is given (torch.nn.utils.clip_grad_norm_).
  void ReadOptions(const std::vector<const char*>& own, CommonDefaults defaults);

  int size() const { return static_cast<int>(params_.size()); }
  /// The learning rate and weight decay of this step (0-d float32 states).
  Expr lr() const { return lr_; }
  Expr weight_decay() const { return weight_decay_; }
  /// This update's number, 1 for the first (0-d float64), as torch.optim's `step`.
  Expr step() const { return step_; }

  /// Parameter i and its (clipped) gradient in its update dtype.
  Expr param(int i) const { return params_[i]; }
  Expr grad(int i) const { return grads_[i]; }
  const std::string& dtype(int i) const { return dtypes_[i]; }
  /// A 0-d |scalar| (any float dtype) converted to parameter i's update dtype (once per dtype).
  Expr In(int i, Expr scalar);
  /// A 0-d constant of parameter i's update dtype.
  Expr Const(int i, double value) { return g.Scalar(value, dtypes_[i]); }
  /// A 0-d float64 constant, for scalar factors.
  Expr Hyper(double value) { return g.Scalar(value, "float64"); }
  /// |scalar| converted to float64.
  Expr ToHyper(Expr scalar) { return g.Cast(scalar, "float64"); }
  /// grad + weight_decay * param (torch.optim's coupled weight decay).
  Expr CoupledDecay(int i, Expr grad);
  /// Declares state "<name>.<i>" shaped like parameter i, in its update dtype, every element
  /// |init| at the start.
  Expr StateLike(const std::string& name, int i, double init);
  /// The updated parameter i, given in its update dtype.
  void SetParam(int i, Expr value);

  Generator& g;

 private:
  void ClipGradients(double max_norm);

  std::vector<Expr> params_, grads_;
  std::vector<std::string> dtypes_, param_dtypes_;
  Expr* new_params_;
  Expr lr_ = nullptr, weight_decay_ = nullptr, step_ = nullptr;
  std::map<std::pair<Expr, std::string>, Expr> conversions_;  // In(): one astype per scalar and dtype
};

using UpdateBody = void (*)(Update& u);

template <UpdateBody Body>
rxt_status_t OptimizerCallback(void* /*state*/, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                               const rxt_ir_expr_t* params, const rxt_ir_expr_t* grads, int num_params,
                               rxt_ir_expr_t* new_params) {
  return plugin_support::RunGenerator(ir, b, options, [&](Generator& g) {
    Update update(g, params, grads, num_params, new_params);
    Body(update);
  });
}

/// The vtable of the optimizer |name| built by |body|.
#define RXT_OPTIMIZER(name, summary, body) \
  rxt_optimizer_t { sizeof(rxt_optimizer_t), name, summary, nullptr, &OptimizerCallback<body> }

std::span<const rxt_optimizer_t> SgdOptimizers();      // sgd, momentum
std::span<const rxt_optimizer_t> AdamOptimizers();     // adam, adamw
std::span<const rxt_optimizer_t> RmspropOptimizers();  // rmsprop
std::span<const rxt_optimizer_t> AdagradOptimizers();  // adagrad

}  // namespace rxt::optim_std
