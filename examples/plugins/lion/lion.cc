// Lion (Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms", arXiv:2302.06675)
// as an rxt optimizer plugin, built outside rxt's tree against the installed package.
//
// For every parameter p with gradient g and momentum m (zero at the start):
//   c  = beta1 m + (1 - beta1) g
//   p' = p - lr (sign(c) + weight_decay p)        decoupled weight decay; sign(0) = 0
//   m' = beta2 m + (1 - beta2) g
//
// An optimizer does not run per tensor: it builds IR, which rxt compiles and fuses into the
// training step. Its state follows rxt's standard optimizers (docs/plugins.md): the 0-d float32
// "lr" and "weight_decay", which the trainer may change between steps without recompiling (the
// learning-rate schedule), the 0-d int64 "step", then one momentum "exp_avg.<i>" per parameter.
#include <rxt/plugin.h>
#include <rxt/plugin_support/generator.h>
#include <rxt/plugin_support/host.h>

#include <string>
#include <vector>

namespace {

using rxt::plugin_support::Expr;
using rxt::plugin_support::Generator;

/// The dtype a parameter of |dtype| is updated in: half-precision values in float32.
std::string UpdateDType(const std::string& dtype) {
  return dtype == "float16" || dtype == "bfloat16" ? "float32" : dtype;
}

/// sign(x) in x's dtype: 1 where x > 0, -1 where x < 0, 0 elsewhere (as torch.sign).
Expr Sign(Generator& g, Expr x) {
  Expr zero = g.ScalarLike(0, x);
  std::string as_x = "dtype=" + g.DType(x);
  Expr positive = g.Op("astype", {g.Op("greater", {x, zero})}, as_x);
  Expr negative = g.Op("astype", {g.Op("less", {x, zero})}, as_x);
  return g.Sub(positive, negative);
}

void Lion(Generator& g, const Expr* params, const Expr* grads, int num_params, Expr* new_params) {
  g.CheckOptions({"lr", "weight_decay", "betas"});
  double lr = g.Float("lr", 1e-4);
  g.Require(lr >= 0, "lr", "at least 0", lr);
  double weight_decay = g.Float("weight_decay", 0);
  g.Require(weight_decay >= 0, "weight_decay", "at least 0", weight_decay);
  std::vector<double> betas = g.Floats("betas").value_or(std::vector<double>{0.9, 0.99});
  if (betas.size() != 2) g.Fail("option 'betas' must hold 2 numbers, got " + std::to_string(betas.size()));
  g.Require(betas[0] >= 0 && betas[0] <= 1, "betas", "in [0, 1]", betas[0]);
  g.Require(betas[1] >= 0 && betas[1] <= 1, "betas", "in [0, 1]", betas[1]);
  if (num_params <= 0) g.Fail("there are no parameters to update");

  // Runtime state first, in the order of rxt's standard optimizers.
  Expr lr_state = g.State("lr", "Tensor((), float32)", lr);
  Expr decay_state = g.State("weight_decay", "Tensor((), float32)", weight_decay);
  Expr step = g.State("step", "Tensor((), int64)", 0);
  g.SetState(step, g.Add(step, g.Scalar(1, "int64")));

  for (int i = 0; i < num_params; ++i) {
    if (!g.IsFloat(params[i]) || g.Ndim(params[i]) < 0) {
      g.Fail("parameter " + std::to_string(i) + " must be a float tensor of known ndim, got " +
             g.StructInfoText(params[i]));
    }
    std::string dtype = UpdateDType(g.DType(params[i]));
    Expr p = g.Cast(params[i], dtype), grad = g.Cast(grads[i], dtype);
    Expr m = g.State("exp_avg." + std::to_string(i), g.TensorLike(p, dtype), 0);

    Expr c = g.Add(g.Mul(m, g.Scalar(betas[0], dtype)), g.Mul(grad, g.Scalar(1 - betas[0], dtype)));
    Expr update = g.Add(Sign(g, c), g.Mul(g.Cast(decay_state, dtype), p));
    Expr p_next = g.Sub(p, g.Mul(g.Cast(lr_state, dtype), update));
    new_params[i] = g.Cast(p_next, g.DType(params[i]));
    g.SetState(m, g.Add(g.Mul(m, g.Scalar(betas[1], dtype)), g.Mul(grad, g.Scalar(1 - betas[1], dtype))));
  }
}

/// The optimizer's build function (rxt_optimizer_t): RunGenerator turns a failure into a status,
/// so no C++ exception crosses into the host.
rxt_status_t BuildLion(void* /*state*/, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                       const rxt_ir_expr_t* params, const rxt_ir_expr_t* grads, int num_params,
                       rxt_ir_expr_t* new_params) {
  return rxt::plugin_support::RunGenerator(
      ir, b, options, [&](Generator& g) { Lion(g, params, grads, num_params, new_params); });
}

const rxt_optimizer_t kLion = {
    sizeof(rxt_optimizer_t), "lion",
    "Lion (Chen et al. 2023): the sign of interpolated momentum; options: lr=1e-4, betas=[0.9, 0.99], "
    "weight_decay=0 (decoupled)",
    nullptr, &BuildLion};
const rxt_optimizer_t* const kOptimizers[] = {&kLion};

// Zero first, then the members used: lists appended to the descriptor in later versions stay
// empty, and the source keeps compiling with -Wextra -Werror.
const rxt_plugin_descriptor_t kPlugin = [] {
  rxt_plugin_descriptor_t d{};
  d.struct_size = sizeof(rxt_plugin_descriptor_t);
  d.abi_version = RXT_PLUGIN_ABI_VERSION;
  d.name = "lion";
  d.version = "1.0.0";
  d.summary = "The Lion optimizer (an out-of-tree example plugin).";
  d.optimizers = kOptimizers;
  d.num_optimizers = 1;
  return d;
}();

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  // Plugin ABI 3 (typed vtables, rxt_status_t); declines an older host, saying why.
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "lion")) return nullptr;
  return &kPlugin;
}
