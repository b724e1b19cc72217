// The pattern of softmax: dnnl.softmax (docs/libraries.md).
#include "patterns.h"

namespace rxt::lib_dnnl {

/// softmax(x, axis) of a static float32 x (at least one dim) becomes dnnl.softmax(x, axis) with
/// the axis counted from the front.
void SoftmaxPattern(Pattern& p) {
  Expr softmax = p.call(0);
  Expr x = p.Arg(softmax, 0);
  int ndim = p.Ndim(x);
  if (ndim < 1 || !IsStaticFloat32(p, x, ndim) || p.DType(p.result(0)) != "float32") return;
  int64_t axis = p.AttrInt(softmax, "axis").value_or(-1);
  if (axis < 0) axis += ndim;
  if (axis < 0 || axis >= ndim) return;
  p.Replace(1, p.CallExtern("dnnl.softmax", {x, p.PrimInt(axis)}, {p.result(0)}));
}

}  // namespace rxt::lib_dnnl
