// Losses between a prediction and a target of the same shape and dtype: l1 (torch.nn.L1Loss),
// mse (MSELoss), huber (HuberLoss). The target is the loss function's parameter "targets".
#include "losses.h"

namespace rxt::loss_std {
namespace {

/// prediction - targets, after declaring the targets shaped like the prediction.
Expr Difference(Generator& g, Expr prediction) {
  RequireFloatPrediction(g, prediction, 0);
  Expr targets = g.Param("targets", g.StructInfoText(prediction));
  return g.Sub(prediction, targets);
}

void L1(Generator& g, Expr prediction, Expr* loss) {
  g.CheckOptions({"reduction"});
  Reduction reduction = ReadReduction(g);
  *loss = Reduce(g, g.Op("abs", {Difference(g, prediction)}), reduction);
}

void Mse(Generator& g, Expr prediction, Expr* loss) {
  g.CheckOptions({"reduction"});
  Reduction reduction = ReadReduction(g);
  Expr d = Difference(g, prediction);
  *loss = Reduce(g, g.Mul(d, d), reduction);
}

// 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta): with c = min(|d|, delta) both are
// c (|d| - 0.5 c), one expression whose gradient is d where |d| < delta, else delta sign(d).
void Huber(Generator& g, Expr prediction, Expr* loss) {
  g.CheckOptions({"reduction", "delta"});
  Reduction reduction = ReadReduction(g);
  double delta = g.Float("delta", 1.0);
  g.Require(delta > 0, "delta", "positive", delta);
  Expr a = g.Op("abs", {Difference(g, prediction)});
  Expr c = g.Op("minimum", {a, g.ScalarLike(delta, prediction)});
  Expr elements = g.Mul(c, g.Sub(a, g.Mul(c, g.ScalarLike(0.5, prediction))));
  *loss = Reduce(g, elements, reduction);
}

const rxt_loss_t kLosses[] = {
    RXT_LOSS("l1", "mean absolute error |prediction - targets| (torch.nn.L1Loss); options: reduction", L1),
    RXT_LOSS("mse", "squared error (prediction - targets)^2 (torch.nn.MSELoss); options: reduction", Mse),
    RXT_LOSS("huber",
             "squared error below delta, absolute error above (torch.nn.HuberLoss); options: reduction, delta=1.0",
             Huber),
};

}  // namespace

std::span<const rxt_loss_t> RegressionLosses() { return kLosses; }

}  // namespace rxt::loss_std
