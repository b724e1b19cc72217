#include "grad_util.h"

#include <algorithm>

namespace rxt::grad_std {

Expr CollapseTo(Rule& r, Expr grad, Expr like) {
  if (r.StructInfoText(grad) == r.StructInfoText(like)) return grad;
  return r.Op("collapse_sum_to", {grad, r.ShapeOf(like)});
}

int NormalizeAxis(Rule& r, int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    r.Fail("axis " + std::to_string(axis) + " is out of range for ndim " + std::to_string(ndim));
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<int> ReducedAxes(Rule& r, const char* name, int ndim) {
  std::vector<int> axes;
  if (std::optional<std::vector<int64_t>> listed = r.OptionalInts(name)) {
    for (int64_t a : *listed) axes.push_back(NormalizeAxis(r, a, ndim));
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  } else {
    for (int i = 0; i < ndim; ++i) axes.push_back(i);
  }
  return axes;
}

std::string AxesText(const std::vector<int>& axes) { return IntsText(std::vector<int64_t>(axes.begin(), axes.end())); }

Expr KeepReducedDims(Rule& r, Expr grad, const std::vector<int>& axes, bool keepdims) {
  if (keepdims || axes.empty()) return grad;
  return r.Op("expand_dims", {grad}, "axis=" + AxesText(axes));
}

Expr CountAlong(Rule& r, Expr x, const std::vector<int>& axes) {
  int ndim = r.KnownNdim(x, "the reduced tensor");
  int64_t count = 1;
  bool known = true;
  for (int a : axes) {
    std::optional<int64_t> dim = r.Dim(x, a);
    if (dim) count *= *dim;
    known = known && dim.has_value();
  }
  if (known) return r.ScalarLike(static_cast<double>(count), x);
  // Symbolic: sum ones over a slice of x that keeps only the counted dims.
  std::vector<int64_t> kept, zeros, ones;
  for (int d = 0; d < ndim; ++d) {
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) continue;
    kept.push_back(d);
    zeros.push_back(0);
    ones.push_back(1);
  }
  Expr slice = kept.empty() ? x
                            : r.Op("strided_slice", {x},
                                   "axes=" + IntsText(kept) + ", begin=" + IntsText(zeros) + ", end=" + IntsText(ones));
  return r.Op("sum", {r.Op("ones_like", {slice})});
}

Expr Arange(Rule& r, int64_t n, const std::string& dtype, const std::vector<int64_t>& shape) {
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<double>(i);
  return r.Constant(values, shape, dtype);
}

Expr TransposeLast2(Rule& r, Expr x) {
  int ndim = r.KnownNdim(x, "a matmul operand");
  std::vector<int64_t> axes;
  for (int i = 0; i < ndim; ++i) axes.push_back(i);
  std::swap(axes[ndim - 1], axes[ndim - 2]);
  return r.Op("permute_dims", {x}, "axes=" + IntsText(axes));
}

Expr ReshapeTarget(Rule& r, const std::vector<std::optional<int64_t>>& dims, const char* why) {
  std::vector<int64_t> target;
  bool inferred = false;
  for (const std::optional<int64_t>& d : dims) {
    if (d) {
      target.push_back(*d);
      continue;
    }
    if (inferred) r.Fail(std::string("at most one dim may be symbolic (") + why + ")");
    inferred = true;
    target.push_back(-1);
  }
  return r.Shape(target);
}

std::vector<std::optional<int64_t>> DimsOf(Rule& r, Expr x, const char* what) {
  int ndim = r.KnownNdim(x, what);
  std::vector<std::optional<int64_t>> dims;
  for (int d = 0; d < ndim; ++d) dims.push_back(r.Dim(x, d));
  return dims;
}

std::string CopyAttrs(Rule& r, std::initializer_list<const char*> names) {
  std::string text;
  for (const char* name : names) {
    const char* value = r.AttrText(name);
    if (value == nullptr) continue;
    text += (text.empty() ? "" : ", ") + std::string(name) + "=" + value;
  }
  return text;
}

}  // namespace rxt::grad_std
