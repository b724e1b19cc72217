// Shape manipulation: each adjoint is the inverse manipulation of dz. The shape argument of
// reshape, broadcast_to and collapse_sum_to takes no gradient.
#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

// The inverse permutation (none reverses the dims, its own inverse).
void PermuteDimsGrad(Rule& r) {
  std::optional<std::vector<int64_t>> axes = r.OptionalInts("axes");
  if (!axes) {
    r.SetGrad(0, r.Op("permute_dims", {r.grad()}));
    return;
  }
  int ndim = static_cast<int>(axes->size());
  std::vector<int64_t> inverse(axes->size());
  for (int i = 0; i < ndim; ++i) inverse[NormalizeAxis(r, (*axes)[i], ndim)] = i;
  r.SetGrad(0, r.Op("permute_dims", {r.grad()}, "axes=" + IntsText(inverse)));
}

// reshape, expand_dims, squeeze, flatten: dz back to x's shape.
void ReshapeBackGrad(Rule& r) { r.SetGrad(0, r.Op("reshape", {r.grad(), r.ShapeOf(r.arg(0))})); }

void BroadcastToGrad(Rule& r) { r.SetGrad(0, CollapseTo(r, r.grad(), r.arg(0))); }
void CollapseSumToGrad(Rule& r) { r.SetGrad(0, r.Op("broadcast_to", {r.grad(), r.ShapeOf(r.arg(0))})); }

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("permute_dims", "dx = permute_dims(dz, inverse axes)", PermuteDimsGrad),
    RXT_GRADIENT_RULE("reshape", "dx = reshape(dz, shape of x); none for the shape", ReshapeBackGrad),
    RXT_GRADIENT_RULE("broadcast_to", "dx = collapse_sum_to(dz, shape of x); none for the shape", BroadcastToGrad),
    RXT_GRADIENT_RULE("collapse_sum_to", "dx = broadcast_to(dz, shape of x); none for the shape", CollapseSumToGrad),
    RXT_GRADIENT_RULE("expand_dims", "dx = reshape(dz, shape of x)", ReshapeBackGrad),
    RXT_GRADIENT_RULE("squeeze", "dx = reshape(dz, shape of x)", ReshapeBackGrad),
    RXT_GRADIENT_RULE("flatten", "dx = reshape(dz, shape of x)", ReshapeBackGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> ManipulateGradients() { return kRules; }

}  // namespace rxt::grad_std
