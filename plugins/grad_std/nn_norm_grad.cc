// Normalization. With xhat = (x - mean) rstd and g = dy gamma, the data adjoint is
// rstd (g - mean(g) - xhat mean(g xhat)) over the normalized axes (statistics recomputed from
// x, xhat by the op itself with gamma 1, beta 0); dgamma = sum(dy xhat) and dbeta = sum(dy)
// over the other axes. batch_norm's moving
// statistics and its updated ones are states, not parameters: as in PyTorch (buffers), no
// gradient flows through them, in training or inference.
#include <algorithm>

#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

struct Normalized {
  Expr xhat, rstd;
};

/// rstd (keepdims) of x over |axes| with the batch statistics, and |xhat|. The rules take xhat
/// from the forward op itself with gamma 1 and beta 0: its legalization centres x in float64,
/// which keeps xhat accurate where the mean is large next to the spread (x - mean in float32
/// would lose |mean| / spread ulps, as the issue measured: dgamma 5x further from float64).
Normalized BatchStatistics(Rule& r, Expr x, const std::vector<int>& axes, double epsilon, Expr xhat) {
  std::string reduce = "axis=" + AxesText(axes) + ", keepdims=true";
  Expr variance = r.Op("variance", {x}, reduce);
  Expr rstd = r.Op("rsqrt", {Add(r, variance, r.ScalarLike(epsilon, x))});
  return {xhat, rstd};
}

/// rstd (g - mean(g) - xhat mean(g xhat)) over |axes|.
Expr NormalizedDataGrad(Rule& r, const Normalized& n, Expr g, const std::vector<int>& axes) {
  std::string reduce = "axis=" + AxesText(axes) + ", keepdims=true";
  Expr centered = Sub(r, g, r.Op("mean", {g}, reduce));
  Expr projected = Mul(r, n.xhat, r.Op("mean", {Mul(r, g, n.xhat)}, reduce));
  return Mul(r, n.rstd, Sub(r, centered, projected));
}

/// sum of |value| over |axes| (none: the value itself).
Expr SumOver(Rule& r, Expr value, const std::vector<int>& axes) {
  return axes.empty() ? value : r.Op("sum", {value}, "axis=" + AxesText(axes));
}

void BatchNormGrad(Rule& r) {
  Expr x = r.arg(0), gamma = r.arg(1), dy = r.GradField(0);
  int ndim = r.KnownNdim(x, "data");
  int channel = NormalizeAxis(r, r.Int("axis"), ndim);
  double epsilon = r.Float("epsilon");
  std::vector<int> others;
  for (int d = 0; d < ndim; ++d) {
    if (d != channel) others.push_back(d);
  }
  auto per_channel = [&](Expr v) { return KeepReducedDims(r, v, others, false); };  // (C) -> (1, C, 1, 1)
  Expr gamma_b = per_channel(gamma);
  Normalized n;
  Expr dx;
  if (r.Bool("training")) {
    // Every attribute of the forward op (momentum and the running variance's kind too, though
    // only xhat is used): the same kernel as the forward's, so compiled once.
    Expr unit = r.Op("nn.batch_norm", {x, r.Op("ones_like", {gamma}), r.Op("zeros_like", {gamma}), r.arg(3), r.arg(4)},
                     CopyAttrs(r, {"axis", "epsilon", "momentum", "unbiased_running_var"}) + ", training=true");
    n = BatchStatistics(r, x, others, epsilon, r.Item(unit, 0));
    dx = NormalizedDataGrad(r, n, Mul(r, dy, gamma_b), others);
  } else {
    Expr rstd = r.Op("rsqrt", {Add(r, r.arg(4), r.ScalarLike(epsilon, x))});
    n.rstd = per_channel(rstd);
    n.xhat = Mul(r, Sub(r, x, per_channel(r.arg(3))), n.rstd);
    dx = Mul(r, dy, Mul(r, gamma_b, n.rstd));
  }
  r.SetGrad(0, dx);
  r.SetGrad(1, SumOver(r, Mul(r, dy, n.xhat), others));
  r.SetGrad(2, SumOver(r, dy, others));
}

// gamma and beta hold the normalized dims in the order `axes` lists them.
void LayerNormGrad(Rule& r) {
  Expr x = r.arg(0), gamma = r.arg(1), dy = r.grad();
  int ndim = r.KnownNdim(x, "data");
  std::vector<int> listed;
  for (int64_t a : r.Ints("axes")) listed.push_back(NormalizeAxis(r, a, ndim));
  std::vector<int> sorted = listed;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> kept;
  for (int d = 0; d < ndim; ++d) {
    if (!std::binary_search(sorted.begin(), sorted.end(), d)) kept.push_back(d);
  }
  // gamma's dims in ascending axis order: to_sorted[k] = gamma's dim holding axis sorted[k].
  std::vector<int64_t> to_sorted, from_sorted(listed.size());
  for (int axis : sorted) to_sorted.push_back(std::find(listed.begin(), listed.end(), axis) - listed.begin());
  for (size_t k = 0; k < to_sorted.size(); ++k) from_sorted[to_sorted[k]] = static_cast<int64_t>(k);
  bool in_order = listed == sorted;
  auto sorted_view = [&](Expr v) { return in_order ? v : r.Op("permute_dims", {v}, "axes=" + IntsText(to_sorted)); };
  auto listed_view = [&](Expr v) { return in_order ? v : r.Op("permute_dims", {v}, "axes=" + IntsText(from_sorted)); };

  Expr gamma_b = KeepReducedDims(r, sorted_view(gamma), kept, false);
  Expr unit = r.Op("nn.layer_norm", {x, r.Op("ones_like", {gamma}), r.Op("zeros_like", {gamma})},
                   CopyAttrs(r, {"axes", "epsilon"}));
  Normalized n = BatchStatistics(r, x, sorted, r.Float("epsilon"), unit);
  r.SetGrad(0, NormalizedDataGrad(r, n, Mul(r, dy, gamma_b), sorted));
  r.SetGrad(1, listed_view(SumOver(r, Mul(r, dy, n.xhat), kept)));
  r.SetGrad(2, listed_view(SumOver(r, dy, kept)));
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("nn.batch_norm",
                  "training: the batch-statistics gradient; inference: dx = dy gamma rstd; dgamma = sum(dy xhat), "
                  "dbeta = sum(dy); none for the moving statistics",
                  BatchNormGrad),
    RXT_GRADIENT_RULE("nn.layer_norm",
                  "dx = rstd (g - mean(g) - xhat mean(g xhat)), g = dy gamma; dgamma = sum(dy xhat), "
                  "dbeta = sum(dy)",
                  LayerNormGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> NormGradients() { return kRules; }

}  // namespace rxt::grad_std
