// Losses. nll_loss: each counted target t_j adds -w[t_j] p[j, t_j]; its adjoint puts
// -w[t_j] times the target's share of dz (dz_j for "none", dz for "sum", dz / total weight for
// "mean") at the target's class. Integer targets take no gradient; class weights do.
#include <algorithm>

#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

void NllLossGrad(Rule& r) {
  Expr pred = r.arg(0), targets = r.arg(1), dz = r.grad(), z = r.output();
  bool has_weights = r.num_args() == 3;
  int ndim = r.KnownNdim(pred, "predictions");
  int class_axis = ndim == 1 ? 0 : 1;
  int64_t classes = r.StaticDim(pred, class_axis, "the number of classes");
  std::string reduction = r.String("reduction");
  std::string dtype = r.DType(pred);

  // one_hot[j, c] = (t_j == c), shaped like pred.
  std::vector<int64_t> arange_shape = {classes};
  for (int d = 2; d < ndim; ++d) arange_shape.push_back(1);
  Expr targets_at_class = ndim == 1 ? targets : r.Op("expand_dims", {targets}, "axis=[1]");
  Expr one_hot = r.Op("astype", {r.Op("equal", {targets_at_class, Arange(r, classes, r.DType(targets), arange_shape)})},
                      "dtype=" + dtype);
  auto at_class = [&](Expr per_target) {
    return ndim == 1 ? per_target : r.Op("expand_dims", {per_target}, "axis=[1]");
  };

  Expr counted = r.Op("not_equal", {targets, r.ScalarLike(static_cast<double>(r.Int("ignore_index")), targets)});
  Expr counted_f = r.Op("astype", {counted}, "dtype=" + dtype);
  Expr weight = has_weights ? KeepWhere(r, counted, r.Op("take", {r.arg(2), targets}, "axis=0")) : counted_f;
  Expr share = dz;  // each target's share of dz
  if (reduction == "mean") share = Div(r, dz, r.Op("sum", {weight}));
  r.SetGrad(0, Neg(r, Mul(r, one_hot, at_class(Mul(r, weight, share)))));

  if (!has_weights) return;
  // d w[c] = sum over the targets of class c of d loss / d w[t_j].
  Expr picked = r.Op("sum", {Mul(r, one_hot, pred)}, "axis=[" + std::to_string(class_axis) + "]");  // p[j, t_j]
  Expr per_target = Neg(r, picked);
  if (reduction == "mean") per_target = Sub(r, per_target, z);  // (-p - loss) / total weight
  per_target = Mul(r, counted_f, Mul(r, per_target, share));
  Expr spread = Mul(r, one_hot, at_class(per_target));
  std::vector<int> non_class;
  for (int d = 0; d < ndim; ++d) {
    if (d != class_axis) non_class.push_back(d);
  }
  r.SetGrad(2, non_class.empty() ? spread : r.Op("sum", {spread}, "axis=" + AxesText(non_class)));
}

// loss = -sum(labels pred) / N (N the batch, 1 for 1-D predictions).
void CrossEntropyWithLogitsGrad(Rule& r) {
  Expr pred = r.arg(0), labels = r.arg(1);
  int ndim = r.KnownNdim(pred, "predictions");
  Expr scale = Neg(r, r.grad());
  if (ndim > 1) scale = Div(r, scale, CountAlong(r, pred, {0}));
  r.SetGrad(0, Mul(r, labels, scale));
  r.SetGrad(1, Mul(r, pred, scale));
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("nn.nll_loss",
                  "dpred = -w[t] share(dz) at each counted target's class; dweights likewise; none for the targets",
                  NllLossGrad),
    RXT_GRADIENT_RULE("nn.cross_entropy_with_logits", "dpred = -dz labels / N, dlabels = -dz pred / N",
                  CrossEntropyWithLogitsGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> LossGradients() { return kRules; }

}  // namespace rxt::grad_std
