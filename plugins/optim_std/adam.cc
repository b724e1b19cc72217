// torch.optim.Adam and AdamW. With t the step, m and v the moment estimates:
//   adam:  g <- g + weight_decay p            adamw: p <- p (1 - lr weight_decay)
//   m' = beta1 m + (1 - beta1) g;   v' = beta2 v + (1 - beta2) g^2   (amsgrad: v^ = max(v^, v'))
//   p' = p - lr / (1 - beta1^t) * m' / (sqrt(v') / sqrt(1 - beta2^t) + eps)
#include "update.h"

namespace rxt::optim_std {
namespace {

void AdamUpdate(Update& u, bool decoupled) {
  Generator& g = u.g;
  u.ReadOptions({"betas", "eps", "amsgrad"}, {.lr = 0.001, .weight_decay = decoupled ? 0.01 : 0.0});
  std::vector<double> betas = g.Floats("betas").value_or(std::vector<double>{0.9, 0.999});
  if (betas.size() != 2) g.Fail("option 'betas' must hold 2 numbers, got " + std::to_string(betas.size()));
  g.Require(betas[0] >= 0 && betas[0] < 1, "betas", "in [0, 1)", betas[0]);
  g.Require(betas[1] >= 0 && betas[1] < 1, "betas", "in [0, 1)", betas[1]);
  double eps = g.Float("eps", 1e-8);
  g.Require(eps >= 0, "eps", "at least 0", eps);
  bool amsgrad = g.Bool("amsgrad", false);

  // Scalar factors, in float64 as torch.optim computes them (in Python).
  Expr lr = u.ToHyper(u.lr());
  Expr one = u.Hyper(1);
  Expr bias_correction1 = g.Sub(one, g.Op("power", {u.Hyper(betas[0]), u.step()}));
  Expr bias_correction2 = g.Sub(one, g.Op("power", {u.Hyper(betas[1]), u.step()}));
  Expr step_size = g.Div(lr, bias_correction1);
  Expr bias_correction2_sqrt = g.Op("sqrt", {bias_correction2});
  Expr decay_factor = decoupled ? g.Sub(one, g.Mul(lr, u.ToHyper(u.weight_decay()))) : nullptr;

  for (int i = 0; i < u.size(); ++i) {
    Expr p = u.param(i), grad = u.grad(i);
    if (decoupled) {
      p = g.Mul(p, u.In(i, decay_factor));
    } else {
      grad = u.CoupledDecay(i, grad);
    }
    Expr m = u.StateLike("exp_avg", i, 0), v = u.StateLike("exp_avg_sq", i, 0);
    Expr m_next = g.Add(g.Mul(m, u.Const(i, betas[0])), g.Mul(grad, u.Const(i, 1 - betas[0])));
    Expr v_next = g.Add(g.Mul(v, u.Const(i, betas[1])), g.Mul(g.Mul(grad, grad), u.Const(i, 1 - betas[1])));
    g.SetState(m, m_next);
    g.SetState(v, v_next);
    Expr second = v_next;
    if (amsgrad) {
      Expr v_max = u.StateLike("max_exp_avg_sq", i, 0);
      second = g.Op("maximum", {v_max, v_next});
      g.SetState(v_max, second);
    }
    Expr denom = g.Add(g.Div(g.Op("sqrt", {second}), u.In(i, bias_correction2_sqrt)), u.Const(i, eps));
    u.SetParam(i, g.Sub(p, g.Mul(u.In(i, step_size), g.Div(m_next, denom))));
  }
}

void Adam(Update& u) { AdamUpdate(u, /*decoupled=*/false); }
void AdamW(Update& u) { AdamUpdate(u, /*decoupled=*/true); }

const rxt_optimizer_t kOptimizers[] = {
    RXT_OPTIMIZER("adam",
                  "Adam (torch.optim.Adam); options: lr=0.001, betas=[0.9, 0.999], eps=1e-8, weight_decay=0, "
                  "amsgrad=false, max_grad_norm",
                  Adam),
    RXT_OPTIMIZER("adamw",
                  "Adam with decoupled weight decay (torch.optim.AdamW); options: lr=0.001, betas=[0.9, 0.999], "
                  "eps=1e-8, weight_decay=0.01, amsgrad=false, max_grad_norm",
                  AdamW),
};

}  // namespace

std::span<const rxt_optimizer_t> AdamOptimizers() { return kOptimizers; }

}  // namespace rxt::optim_std
