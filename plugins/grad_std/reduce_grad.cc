// Reductions, cumsum and softmax. The adjoint of a reduction is dz broadcast back over the
// reduced axes; max and min share it evenly among the positions that hold the extreme (as
// PyTorch's amax/amin); prod scales it by the product of the other elements. argmax has no
// rule: its result is an integer.
#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

struct Reduction {
  Expr x;
  std::vector<int> axes;
  bool keepdims;
};
Reduction ReadReduction(Rule& r) {
  Expr x = r.arg(0);
  int ndim = r.KnownNdim(x, "x");
  return {x, ReducedAxes(r, "axis", ndim), r.Bool("keepdims")};
}

/// |value| (a result of the reduction) broadcast to x's shape.
Expr BroadcastBack(Rule& r, const Reduction& red, Expr value) {
  return r.Op("broadcast_to", {KeepReducedDims(r, value, red.axes, red.keepdims), r.ShapeOf(red.x)});
}

void SumGrad(Rule& r) {
  Reduction red = ReadReduction(r);
  r.SetGrad(0, BroadcastBack(r, red, r.grad()));
}

void MeanGrad(Rule& r) {
  Reduction red = ReadReduction(r);
  r.SetGrad(0, BroadcastBack(r, red, Div(r, r.grad(), CountAlong(r, red.x, red.axes))));
}

// var = mean((x - m)^2): dx = dz 2 (x - m) / count.
void VarianceGrad(Rule& r) {
  Reduction red = ReadReduction(r);
  Expr mean = r.Op("mean", {red.x}, "axis=" + AxesText(red.axes) + ", keepdims=true");
  Expr scale = Div(r, Scale(r, r.grad(), 2), CountAlong(r, red.x, red.axes));
  r.SetGrad(0, Mul(r, Sub(r, red.x, mean), KeepReducedDims(r, scale, red.axes, red.keepdims)));
}

// dz shared evenly by the positions equal to the extreme z.
void ExtremeGrad(Rule& r) {
  Reduction red = ReadReduction(r);
  Expr at_extreme = r.Op("equal", {red.x, KeepReducedDims(r, r.output(), red.axes, red.keepdims)});
  Expr hits = r.Op("astype", {at_extreme}, "dtype=" + r.DType(red.x));
  Expr ties = r.Op("sum", {hits}, "axis=" + AxesText(red.axes) + ", keepdims=true");
  Expr share = Div(r, KeepReducedDims(r, r.grad(), red.axes, red.keepdims), ties);
  r.SetGrad(0, Mul(r, hits, share));
}

// z = prod(x): dx = dz times the product of the group's other elements. Not z / x, which is
// 0 / 0 at a zero: with p1 the product of the group's non-zero elements and nz its number of
// zeros, the other elements' product is p1 / x when nz = 0, p1 at the zero when nz = 1, and 0
// when nz > 1 (as PyTorch's prod backward).
void ProdGrad(Rule& r) {
  Reduction red = ReadReduction(r);
  Expr x = red.x;
  const std::string along = "axis=" + AxesText(red.axes) + ", keepdims=true";
  Expr is_zero = r.Op("equal", {x, r.ScalarLike(0, x)});
  Expr nonzero = r.Op("where", {is_zero, r.ScalarLike(1, x), x});  // no division by 0 below
  Expr p1 = r.Op("prod", {nonzero}, along);
  Expr nz = r.Op("sum", {r.Op("astype", {is_zero}, "dtype=" + r.DType(x))}, along);
  Expr at_zero = KeepWhere(r, r.Op("equal", {nz, r.ScalarLike(1, nz)}), p1);
  Expr elsewhere = KeepWhere(r, r.Op("equal", {nz, r.ScalarLike(0, nz)}), Div(r, p1, nonzero));
  Expr others = r.Op("where", {is_zero, at_zero, elsewhere});
  r.SetGrad(0, Mul(r, KeepReducedDims(r, r.grad(), red.axes, red.keepdims), others));
}

// z = cumsum(x): x[k] is a term of the z[i] that take it (i >= k, or i <= k reversed), so dx
// is the running sum of dz the other way, with the same exclusivity.
void CumsumGrad(Rule& r) {
  std::string attrs = CopyAttrs(r, {"axis", "exclusive"});
  attrs += std::string(attrs.empty() ? "" : ", ") + "reverse=" + (r.Bool("reverse") ? "false" : "true");
  r.SetGrad(0, r.Op("cumsum", {r.grad()}, attrs));
}

// z = softmax(x): dx = z (dz - sum(dz z)).
void SoftmaxGrad(Rule& r) {
  Expr z = r.output(), dz = r.grad();
  std::string axis = "axis=[" + std::to_string(r.Int("axis")) + "], keepdims=true";
  Expr dot = r.Op("sum", {Mul(r, dz, z)}, axis);
  r.SetGrad(0, Mul(r, z, Sub(r, dz, dot)));
}

// z = log_softmax(x): dx = dz - exp(z) sum(dz).
void LogSoftmaxGrad(Rule& r) {
  Expr z = r.output(), dz = r.grad();
  std::string axis = "axis=[" + std::to_string(r.Int("axis")) + "], keepdims=true";
  r.SetGrad(0, Sub(r, dz, Mul(r, r.Op("exp", {z}), r.Op("sum", {dz}, axis))));
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("sum", "dx = dz broadcast over the reduced axes", SumGrad),
    RXT_GRADIENT_RULE("mean", "dx = dz / count broadcast over the reduced axes", MeanGrad),
    RXT_GRADIENT_RULE("max", "dz shared evenly by the positions holding the maximum", ExtremeGrad),
    RXT_GRADIENT_RULE("min", "dz shared evenly by the positions holding the minimum", ExtremeGrad),
    RXT_GRADIENT_RULE("prod", "dx = dz times the product of the other elements (exact with zeros)", ProdGrad),
    RXT_GRADIENT_RULE("variance", "dx = dz 2 (x - mean) / count", VarianceGrad),
    RXT_GRADIENT_RULE("cumsum", "dx = cumsum(dz) along the axis in the other direction, same exclusive", CumsumGrad),
    RXT_GRADIENT_RULE("softmax", "dx = z (dz - sum(dz z, axis))", SoftmaxGrad),
    RXT_GRADIENT_RULE("log_softmax", "dx = dz - exp(z) sum(dz, axis)", LogSoftmaxGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> ReduceGradients() { return kRules; }

}  // namespace rxt::grad_std
