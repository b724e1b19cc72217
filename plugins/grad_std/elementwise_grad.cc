// Elementwise ops. Binary ops broadcast, so each operand's adjoint is collapsed back to its
// shape. Comparisons (bool results) have no rule: no adjoint reaches a bool value. Ties of
// maximum/minimum go to the first operand, as in TVM.
#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

void NegativeGrad(Rule& r) { r.SetGrad(0, Neg(r, r.grad())); }

// d|x| = sign(x) (0 at 0, as PyTorch).
void AbsGrad(Rule& r) {
  Expr x = r.arg(0), dz = r.grad(), zero = r.ScalarLike(0, x);
  Expr negative_side = r.Op("where", {r.Op("less", {x, zero}), Neg(r, dz), zero});
  r.SetGrad(0, r.Op("where", {r.Op("greater", {x, zero}), dz, negative_side}));
}

void ExpGrad(Rule& r) { r.SetGrad(0, Mul(r, r.grad(), r.output())); }
void LogGrad(Rule& r) { r.SetGrad(0, Div(r, r.grad(), r.arg(0))); }
// z = sqrt(x): dx = dz / (2 z).
void SqrtGrad(Rule& r) { r.SetGrad(0, Div(r, Scale(r, r.grad(), 0.5), r.output())); }
// z = x^-1/2: dx = -dz z / (2 x).
void RsqrtGrad(Rule& r) { r.SetGrad(0, Mul(r, r.grad(), Div(r, Scale(r, r.output(), -0.5), r.arg(0)))); }
void TanhGrad(Rule& r) {
  Expr z = r.output();
  r.SetGrad(0, Mul(r, r.grad(), Sub(r, r.ScalarLike(1, z), Mul(r, z, z))));
}
void SigmoidGrad(Rule& r) {
  Expr z = r.output();
  r.SetGrad(0, Mul(r, r.grad(), Mul(r, z, Sub(r, r.ScalarLike(1, z), z))));
}
// d erf(x) = 2 / sqrt(pi) * exp(-x^2).
void ErfGrad(Rule& r) {
  Expr x = r.arg(0);
  Expr bell = r.Op("exp", {Neg(r, Mul(r, x, x))});
  r.SetGrad(0, Mul(r, r.grad(), Scale(r, bell, 1.1283791670955126)));
}

// Trigonometric and hyperbolic functions and their inverses.
void SinGrad(Rule& r) { r.SetGrad(0, Mul(r, r.grad(), r.Op("cos", {r.arg(0)}))); }
void CosGrad(Rule& r) { r.SetGrad(0, Neg(r, Mul(r, r.grad(), r.Op("sin", {r.arg(0)})))); }
// z = tan(x): dx = dz (1 + z^2).
void TanGrad(Rule& r) {
  Expr z = r.output();
  r.SetGrad(0, Mul(r, r.grad(), r.Op("add", {r.ScalarLike(1, z), Mul(r, z, z)})));
}
/// dz / sqrt(sign (x^2 - 1) ...): |root| is sqrt(1 - x^2), sqrt(x^2 + 1) or sqrt(x^2 - 1).
Expr InverseRoot(Rule& r, double x2_sign, double one) {
  Expr x = r.arg(0);
  Expr x2 = Mul(r, x, x);
  return r.Op("sqrt", {r.Op("add", {Scale(r, x2, x2_sign), r.ScalarLike(one, x)})});
}
void AsinGrad(Rule& r) { r.SetGrad(0, Div(r, r.grad(), InverseRoot(r, -1, 1))); }
void AcosGrad(Rule& r) { r.SetGrad(0, Neg(r, Div(r, r.grad(), InverseRoot(r, -1, 1)))); }
void AtanGrad(Rule& r) {
  Expr x = r.arg(0);
  r.SetGrad(0, Div(r, r.grad(), r.Op("add", {r.ScalarLike(1, x), Mul(r, x, x)})));
}
void SinhGrad(Rule& r) { r.SetGrad(0, Mul(r, r.grad(), r.Op("cosh", {r.arg(0)}))); }
void CoshGrad(Rule& r) { r.SetGrad(0, Mul(r, r.grad(), r.Op("sinh", {r.arg(0)}))); }
void AsinhGrad(Rule& r) { r.SetGrad(0, Div(r, r.grad(), InverseRoot(r, 1, 1))); }
void AcoshGrad(Rule& r) { r.SetGrad(0, Div(r, r.grad(), InverseRoot(r, 1, -1))); }
void AtanhGrad(Rule& r) {
  Expr x = r.arg(0);
  r.SetGrad(0, Div(r, r.grad(), Sub(r, r.ScalarLike(1, x), Mul(r, x, x))));
}

// floor, ceil, round, sign: piecewise constant, so zero almost everywhere (as PyTorch).
void ZeroGrad(Rule& r) { r.SetGrad(0, r.Op("zeros_like", {r.arg(0)})); }

// z = x1 - q x2 with q the rounded quotient (floor for mod, truncated for fmod), constant
// between its jumps: dx1 = dz, dx2 = -dz q.
void RoundedQuotientGrad(Rule& r, Expr q) {
  Expr a = r.arg(0), b = r.arg(1), dz = r.grad();
  if (!r.IsFloat(a)) return;  // integers take no gradient
  r.SetGrad(0, CollapseTo(r, dz, a));
  r.SetGrad(1, CollapseTo(r, Neg(r, Mul(r, dz, q)), b));
}
void ModGrad(Rule& r) { RoundedQuotientGrad(r, r.Op("floor", {Div(r, r.arg(0), r.arg(1))})); }
void FmodGrad(Rule& r) {
  Expr q = Div(r, r.arg(0), r.arg(1));
  Expr negative = r.Op("less", {q, r.ScalarLike(0, q)});
  RoundedQuotientGrad(r, r.Op("where", {negative, r.Op("ceil", {q}), r.Op("floor", {q})}));
}

void AddGrad(Rule& r) {
  r.SetGrad(0, CollapseTo(r, r.grad(), r.arg(0)));
  r.SetGrad(1, CollapseTo(r, r.grad(), r.arg(1)));
}
void SubtractGrad(Rule& r) {
  r.SetGrad(0, CollapseTo(r, r.grad(), r.arg(0)));
  r.SetGrad(1, CollapseTo(r, Neg(r, r.grad()), r.arg(1)));
}
void MultiplyGrad(Rule& r) {
  Expr a = r.arg(0), b = r.arg(1), dz = r.grad();
  r.SetGrad(0, CollapseTo(r, Mul(r, dz, b), a));
  r.SetGrad(1, CollapseTo(r, Mul(r, dz, a), b));
}
// z = a / b: da = dz / b, db = -dz a / b^2 = -(dz / b) z.
void DivideGrad(Rule& r) {
  Expr a = r.arg(0), b = r.arg(1);
  Expr da = Div(r, r.grad(), b);
  r.SetGrad(0, CollapseTo(r, da, a));
  r.SetGrad(1, CollapseTo(r, Neg(r, Mul(r, da, r.output())), b));
}
// z = a^b: da = dz b a^(b-1); db = dz z log(a), taken as 0 where a <= 0 (log undefined).
void PowerGrad(Rule& r) {
  Expr a = r.arg(0), b = r.arg(1), dz = r.grad(), z = r.output();
  Expr da = Mul(r, dz, Mul(r, b, r.Op("power", {a, Sub(r, b, r.ScalarLike(1, b))})));
  Expr positive = r.Op("greater", {a, r.ScalarLike(0, a)});
  Expr log_a = r.Op("log", {r.Op("where", {positive, a, r.ScalarLike(1, a)})});
  Expr db = KeepWhere(r, positive, Mul(r, Mul(r, dz, z), log_a));
  r.SetGrad(0, CollapseTo(r, da, a));
  r.SetGrad(1, CollapseTo(r, db, b));
}

// The operand |first_wins| picks gets dz, the other operand gets the rest.
void SelectBetween(Rule& r, Expr first_wins) {
  Expr dz = r.grad(), zero = r.ScalarLike(0, dz);
  r.SetGrad(0, CollapseTo(r, r.Op("where", {first_wins, dz, zero}), r.arg(0)));
  r.SetGrad(1, CollapseTo(r, r.Op("where", {first_wins, zero, dz}), r.arg(1)));
}
void MaximumGrad(Rule& r) { SelectBetween(r, r.Op("greater_equal", {r.arg(0), r.arg(1)})); }
void MinimumGrad(Rule& r) { SelectBetween(r, r.Op("less_equal", {r.arg(0), r.arg(1)})); }

// where(c, a, b): the condition (bool) takes no gradient.
void WhereGrad(Rule& r) {
  Expr c = r.arg(0), dz = r.grad(), zero = r.ScalarLike(0, dz);
  r.SetGrad(1, CollapseTo(r, r.Op("where", {c, dz, zero}), r.arg(1)));
  r.SetGrad(2, CollapseTo(r, r.Op("where", {c, zero, dz}), r.arg(2)));
}

// The adjoint converts back; an integer or bool input takes none.
void AstypeGrad(Rule& r) {
  Expr x = r.arg(0);
  if (!r.IsFloat(x) || !r.IsFloat(r.grad())) return;
  r.SetGrad(0, r.Op("astype", {r.grad()}, "dtype=" + r.DType(x)));
}

// Passes where min <= x <= max (as PyTorch's clamp).
void ClipGrad(Rule& r) {
  Expr x = r.arg(0), dz = r.grad(), zero = r.ScalarLike(0, dz);
  Expr below = r.Op("less", {x, r.ScalarLike(r.Float("min"), x)});
  Expr above = r.Op("greater", {x, r.ScalarLike(r.Float("max"), x)});
  r.SetGrad(0, r.Op("where", {below, zero, r.Op("where", {above, zero, dz})}));
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("negative", "dx = -dz", NegativeGrad),
    RXT_GRADIENT_RULE("abs", "dx = sign(x) dz (0 at 0)", AbsGrad),
    RXT_GRADIENT_RULE("exp", "dx = dz z", ExpGrad),
    RXT_GRADIENT_RULE("log", "dx = dz / x", LogGrad),
    RXT_GRADIENT_RULE("sqrt", "dx = dz / (2 z)", SqrtGrad),
    RXT_GRADIENT_RULE("rsqrt", "dx = -dz z / (2 x)", RsqrtGrad),
    RXT_GRADIENT_RULE("tanh", "dx = dz (1 - z^2)", TanhGrad),
    RXT_GRADIENT_RULE("sigmoid", "dx = dz z (1 - z)", SigmoidGrad),
    RXT_GRADIENT_RULE("erf", "dx = dz 2 / sqrt(pi) exp(-x^2)", ErfGrad),
    RXT_GRADIENT_RULE("sin", "dx = dz cos(x)", SinGrad),
    RXT_GRADIENT_RULE("cos", "dx = -dz sin(x)", CosGrad),
    RXT_GRADIENT_RULE("tan", "dx = dz (1 + z^2)", TanGrad),
    RXT_GRADIENT_RULE("asin", "dx = dz / sqrt(1 - x^2)", AsinGrad),
    RXT_GRADIENT_RULE("acos", "dx = -dz / sqrt(1 - x^2)", AcosGrad),
    RXT_GRADIENT_RULE("atan", "dx = dz / (1 + x^2)", AtanGrad),
    RXT_GRADIENT_RULE("sinh", "dx = dz cosh(x)", SinhGrad),
    RXT_GRADIENT_RULE("cosh", "dx = dz sinh(x)", CoshGrad),
    RXT_GRADIENT_RULE("asinh", "dx = dz / sqrt(x^2 + 1)", AsinhGrad),
    RXT_GRADIENT_RULE("acosh", "dx = dz / sqrt(x^2 - 1)", AcoshGrad),
    RXT_GRADIENT_RULE("atanh", "dx = dz / (1 - x^2)", AtanhGrad),
    RXT_GRADIENT_RULE("floor", "dx = 0", ZeroGrad),
    RXT_GRADIENT_RULE("ceil", "dx = 0", ZeroGrad),
    RXT_GRADIENT_RULE("round", "dx = 0", ZeroGrad),
    RXT_GRADIENT_RULE("sign", "dx = 0", ZeroGrad),
    RXT_GRADIENT_RULE("mod", "dx1 = dz, dx2 = -dz floor(x1 / x2), collapsed; none for integers", ModGrad),
    RXT_GRADIENT_RULE("fmod", "dx1 = dz, dx2 = -dz trunc(x1 / x2), collapsed; none for integers", FmodGrad),
    RXT_GRADIENT_RULE("add", "dx1 = dz, dx2 = dz, each collapsed to its operand's shape", AddGrad),
    RXT_GRADIENT_RULE("subtract", "dx1 = dz, dx2 = -dz, collapsed", SubtractGrad),
    RXT_GRADIENT_RULE("multiply", "dx1 = dz x2, dx2 = dz x1, collapsed", MultiplyGrad),
    RXT_GRADIENT_RULE("divide", "dx1 = dz / x2, dx2 = -dz z / x2, collapsed", DivideGrad),
    RXT_GRADIENT_RULE("power", "dx1 = dz x2 x1^(x2-1), dx2 = dz z log(x1) (0 where x1 <= 0), collapsed", PowerGrad),
    RXT_GRADIENT_RULE("maximum", "dz to the larger operand (x1 on ties), collapsed", MaximumGrad),
    RXT_GRADIENT_RULE("minimum", "dz to the smaller operand (x1 on ties), collapsed", MinimumGrad),
    RXT_GRADIENT_RULE("where", "dx1 = where(c, dz, 0), dx2 = where(c, 0, dz), collapsed; none for c", WhereGrad),
    RXT_GRADIENT_RULE("astype", "dx = astype(dz, x's dtype); none for integer or bool x", AstypeGrad),
    RXT_GRADIENT_RULE("clip", "dx = dz where min <= x <= max, else 0", ClipGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> ElementwiseGradients() { return kRules; }

}  // namespace rxt::grad_std
