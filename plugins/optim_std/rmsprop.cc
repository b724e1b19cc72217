// torch.optim.RMSprop. With g <- g + weight_decay p and the running mean of squares s:
//   s' = alpha s + (1 - alpha) g^2;   centered: a' = alpha a + (1 - alpha) g, s~ = s' - a'^2
//   avg = sqrt(s~) + eps;   momentum > 0: b' = momentum b + g / avg, p' = p - lr b'
//                           else:         p' = p - lr g / avg
#include "update.h"

namespace rxt::optim_std {
namespace {

void Rmsprop(Update& u) {
  Generator& g = u.g;
  u.ReadOptions({"alpha", "eps", "momentum", "centered"}, {.lr = 0.01});
  double alpha = g.Float("alpha", 0.99);
  g.Require(alpha >= 0, "alpha", "at least 0", alpha);
  double eps = g.Float("eps", 1e-8);
  g.Require(eps >= 0, "eps", "at least 0", eps);
  double momentum = g.Float("momentum", 0);
  g.Require(momentum >= 0, "momentum", "at least 0", momentum);
  bool centered = g.Bool("centered", false);

  for (int i = 0; i < u.size(); ++i) {
    Expr grad = u.CoupledDecay(i, u.grad(i));
    Expr square_avg = u.StateLike("square_avg", i, 0);
    Expr square_next =
        g.Add(g.Mul(square_avg, u.Const(i, alpha)), g.Mul(g.Mul(grad, grad), u.Const(i, 1 - alpha)));
    g.SetState(square_avg, square_next);
    Expr variance = square_next;
    if (centered) {
      Expr grad_avg = u.StateLike("grad_avg", i, 0);
      Expr grad_next = g.Add(g.Mul(grad_avg, u.Const(i, alpha)), g.Mul(grad, u.Const(i, 1 - alpha)));
      g.SetState(grad_avg, grad_next);
      variance = g.Sub(variance, g.Mul(grad_next, grad_next));
    }
    Expr avg = g.Add(g.Op("sqrt", {variance}), u.Const(i, eps));
    Expr step = g.Div(grad, avg);
    if (momentum > 0) {
      Expr buffer = u.StateLike("momentum_buffer", i, 0);
      step = g.Add(g.Mul(buffer, u.Const(i, momentum)), step);
      g.SetState(buffer, step);
    }
    u.SetParam(i, g.Sub(u.param(i), g.Mul(u.In(i, u.lr()), step)));
  }
}

const rxt_optimizer_t kOptimizers[] = {
    RXT_OPTIMIZER("rmsprop",
                  "RMSprop (torch.optim.RMSprop); options: lr=0.01, alpha=0.99, eps=1e-8, weight_decay=0, "
                  "momentum=0, centered=false, max_grad_norm",
                  Rmsprop),
};

}  // namespace

std::span<const rxt_optimizer_t> RmspropOptimizers() { return kOptimizers; }

}  // namespace rxt::optim_std
