// torch.optim.SGD: "sgd" (plain, with weight decay) and "momentum" (momentum, dampening,
// nesterov). With d = g + weight_decay p, momentum buffer b (d itself at the first step):
//   b' = momentum b + (1 - dampening) d;   d' = nesterov ? d + momentum b' : b';   p' = p - lr d'
#include "update.h"

namespace rxt::optim_std {
namespace {

void Sgd(Update& u) {
  u.ReadOptions({}, {.lr = 0.01});
  for (int i = 0; i < u.size(); ++i) {
    Expr d = u.CoupledDecay(i, u.grad(i));
    u.SetParam(i, u.g.Sub(u.param(i), u.g.Mul(u.In(i, u.lr()), d)));
  }
}

void Momentum(Update& u) {
  Generator& g = u.g;
  u.ReadOptions({"momentum", "dampening", "nesterov"}, {.lr = 0.01});
  double momentum = g.Float("momentum", 0.9);
  g.Require(momentum >= 0, "momentum", "at least 0", momentum);
  double dampening = g.Float("dampening", 0);
  bool nesterov = g.Bool("nesterov", false);
  if (nesterov && (momentum <= 0 || dampening != 0)) g.Fail("nesterov needs momentum > 0 and dampening = 0");

  // torch.optim starts the buffer at d (no dampening at the first step): scale d by 1 at step
  // 1, by 1 - dampening after (the buffer starts at 0).
  Expr d_scale = nullptr;
  if (dampening != 0) {
    Expr first = g.Op("equal", {u.step(), u.Hyper(1)});
    d_scale = g.Op("where", {first, u.Hyper(1), u.Hyper(1 - dampening)});
  }
  for (int i = 0; i < u.size(); ++i) {
    Expr d = u.CoupledDecay(i, u.grad(i));
    if (momentum != 0) {
      Expr buffer = u.StateLike("momentum_buffer", i, 0);
      Expr scaled = d_scale != nullptr ? g.Mul(u.In(i, d_scale), d) : d;
      Expr next = g.Add(g.Mul(u.Const(i, momentum), buffer), scaled);
      g.SetState(buffer, next);
      d = nesterov ? g.Add(d, g.Mul(u.Const(i, momentum), next)) : next;
    }
    u.SetParam(i, g.Sub(u.param(i), g.Mul(u.In(i, u.lr()), d)));
  }
}

const rxt_optimizer_t kOptimizers[] = {
    RXT_OPTIMIZER("sgd", "stochastic gradient descent (torch.optim.SGD); options: lr=0.01, weight_decay=0, "
                  "max_grad_norm", Sgd),
    RXT_OPTIMIZER("momentum",
                  "SGD with momentum (torch.optim.SGD); options: lr=0.01, momentum=0.9, dampening=0, "
                  "nesterov=false, weight_decay=0, max_grad_norm",
                  Momentum),
};

}  // namespace

std::span<const rxt_optimizer_t> SgdOptimizers() { return kOptimizers; }

}  // namespace rxt::optim_std
