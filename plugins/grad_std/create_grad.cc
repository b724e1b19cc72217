// Creation ops: their results do not depend on any input's values, except full's and
// full_like's fill value when it is a tensor (the sum of dz). A shape, a Prim fill value or
// the template x of the _like ops takes no gradient. zeros and ones have no rule: no input of
// theirs can carry an adjoint, so the Gradient pass never asks for one.
#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

void NoGrad(Rule&) {}

// A 0-d tensor fill value: dz summed (converted to its dtype if the result has another).
void FillValueGrad(Rule& r) {
  Expr fill = r.arg(1);
  if (r.Ndim(fill) != 0 || !r.IsFloat(fill) || !r.IsFloat(r.grad())) return;  // a Prim value or an integer
  Expr total = r.Op("sum", {r.grad()});
  if (r.DType(total) != r.DType(fill)) total = r.Op("astype", {total}, "dtype=" + r.DType(fill));
  r.SetGrad(1, total);
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("full", "d fill_value = sum(dz) for a 0-d tensor fill value; none for the shape", FillValueGrad),
    RXT_GRADIENT_RULE("zeros_like", "none (x gives only its shape)", NoGrad),
    RXT_GRADIENT_RULE("ones_like", "none (x gives only its shape)", NoGrad),
    RXT_GRADIENT_RULE("full_like", "d fill_value = sum(dz) for a 0-d tensor fill value; none for x", FillValueGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> CreateGradients() { return kRules; }

}  // namespace rxt::grad_std
