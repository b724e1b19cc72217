// torch.optim.Adagrad. With g <- g + weight_decay p and the running sum of squares s:
//   lr_t = lr / (1 + (t - 1) lr_decay);   s' = s + g^2;   p' = p - lr_t g / (sqrt(s') + eps)
#include "update.h"

namespace rxt::optim_std {
namespace {

void Adagrad(Update& u) {
  Generator& g = u.g;
  u.ReadOptions({"lr_decay", "initial_accumulator_value", "eps"}, {.lr = 0.01});
  double lr_decay = g.Float("lr_decay", 0);
  g.Require(lr_decay >= 0, "lr_decay", "at least 0", lr_decay);
  double initial = g.Float("initial_accumulator_value", 0);
  g.Require(initial >= 0, "initial_accumulator_value", "at least 0", initial);
  double eps = g.Float("eps", 1e-10);
  g.Require(eps >= 0, "eps", "at least 0", eps);

  Expr decayed_lr = u.ToHyper(u.lr());
  if (lr_decay != 0) {
    Expr decay = g.Add(u.Hyper(1), g.Mul(g.Sub(u.step(), u.Hyper(1)), u.Hyper(lr_decay)));
    decayed_lr = g.Div(decayed_lr, decay);
  }
  for (int i = 0; i < u.size(); ++i) {
    Expr grad = u.CoupledDecay(i, u.grad(i));
    Expr sum = u.StateLike("sum", i, initial);
    Expr sum_next = g.Add(sum, g.Mul(grad, grad));
    g.SetState(sum, sum_next);
    Expr std = g.Add(g.Op("sqrt", {sum_next}), u.Const(i, eps));
    u.SetParam(i, g.Sub(u.param(i), g.Mul(u.In(i, decayed_lr), g.Div(grad, std))));
  }
}

const rxt_optimizer_t kOptimizers[] = {
    RXT_OPTIMIZER("adagrad",
                  "Adagrad (torch.optim.Adagrad); options: lr=0.01, lr_decay=0, weight_decay=0, "
                  "initial_accumulator_value=0, eps=1e-10, max_grad_norm",
                  Adagrad),
};

}  // namespace

std::span<const rxt_optimizer_t> AdagradOptimizers() { return kOptimizers; }

}  // namespace rxt::optim_std
