// Indexing manipulation. concat and split are each other's adjoint; strided_slice and pad put
// dz back in place with pad and strided_slice; take sums dz into the gathered positions (a
// one-hot matrix product). Integer indices take no gradient. one_hot has no rule: its inputs
// (integer indices, Prim values) never carry adjoints.
#include <algorithm>
#include <limits>

#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

// An end at or past this means "to the end of the axis" (strided_slice's convention).
constexpr int64_t kEndOfAxis = std::numeric_limits<int32_t>::max();

// Splits dz at the fields' offsets along the axis (static sizes, but the last may be symbolic).
void ConcatGrad(Rule& r) {
  Expr tuple = r.arg(0);
  int n = r.TupleSize(tuple);
  if (n < 1) r.Fail("concat takes a tuple; got " + r.StructInfoText(tuple));
  int ndim = r.KnownNdim(r.output(), "the result");
  int axis = NormalizeAxis(r, r.Int("axis"), ndim);
  std::vector<int64_t> cuts;
  int64_t offset = 0;
  for (int i = 0; i + 1 < n; ++i) {
    offset += r.StaticDim(r.Item(tuple, i), axis, "the sizes of concat's inputs along the axis, but the last");
    cuts.push_back(offset);
  }
  Expr parts = r.Op("split", {r.grad()}, "indices=" + IntsText(cuts) + ", axis=" + std::to_string(axis));
  std::vector<Expr> fields;
  for (int i = 0; i < n; ++i) fields.push_back(r.Item(parts, i));
  r.SetGrad(0, r.Tuple(fields));
}

// The parts' adjoints, joined.
void SplitGrad(Rule& r) {
  int ndim = r.KnownNdim(r.arg(0), "x");
  int axis = NormalizeAxis(r, r.Int("axis"), ndim);
  int n = r.TupleSize(r.output());
  std::vector<Expr> fields;
  for (int i = 0; i < n; ++i) fields.push_back(r.GradField(i));
  r.SetGrad(0, r.Op("concat", {r.Tuple(fields)}, "axis=" + std::to_string(axis)));
}

// Python's slice x[begin:end:stride] on an axis of |size|: where it starts and how many.
struct Slice {
  int64_t start, length;
};
Slice PythonSlice(int64_t size, int64_t begin, int64_t end, int64_t stride) {
  auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); };
  if (stride > 0) {
    int64_t b = clamp(begin < 0 ? begin + size : begin, 0, size);
    int64_t e = clamp(end < 0 ? end + size : end, 0, size);
    return {b, e > b ? (e - b - 1) / stride + 1 : 0};
  }
  int64_t b = clamp(begin < 0 ? begin + size : begin, -1, size - 1);
  int64_t e = clamp(end < 0 ? end + size : end, -1, size - 1);
  return {b, b > e ? (b - e - 1) / -stride + 1 : 0};
}

std::vector<int64_t> PadWidth(int ndim, int axis, int64_t before, int64_t after) {
  std::vector<int64_t> width(2 * static_cast<size_t>(ndim), 0);
  width[2 * axis] = before;
  width[2 * axis + 1] = after;
  return width;
}

// dz placed back where the slice read it, zeros elsewhere, one sliced axis at a time: a
// negative stride reverses dz first; a stride > 1 interleaves zeros (a new axis padded, then
// merged); then padding puts the elements at their positions.
void StridedSliceGrad(Rule& r) {
  Expr x = r.arg(0), g = r.grad();
  int ndim = r.KnownNdim(x, "x");
  std::vector<int64_t> axes = r.Ints("axes"), begin = r.Ints("begin"), end = r.Ints("end"), strides = r.Ints("strides");
  if (strides.empty()) strides.assign(axes.size(), 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    int axis = NormalizeAxis(r, axes[i], ndim);
    int64_t b = begin[i], e = end[i], s = strides[i];
    std::optional<int64_t> size = r.Dim(x, axis);
    if (!size) {  // symbolic: only a unit-stride slice to the end from b >= 0
      if (s != 1 || b < 0 || e < kEndOfAxis) {
        r.Fail("the gradient of strided_slice on a symbolic axis needs stride 1, begin >= 0 and end to the end");
      }
      g = r.Op("pad", {g}, "pad_width=" + IntsText(PadWidth(ndim, axis, b, 0)));
      continue;
    }
    Slice slice = PythonSlice(*size, b, e, s);
    if (slice.length == 0) {
      r.SetGrad(0, r.Op("zeros_like", {x}));
      return;
    }
    int64_t first = slice.start, step = s;
    if (s < 0) {  // reverse: the elements then ascend from the last one read
      g = r.Op("strided_slice", {g},
               "axes=[" + std::to_string(axis) + "], begin=[" + std::to_string(slice.length - 1) + "], end=[" +
                   std::to_string(-slice.length - 1) + "], strides=[-1]");
      first = slice.start + (slice.length - 1) * s;
      step = -s;
    }
    int64_t span = slice.length;
    if (step > 1) {
      std::vector<std::optional<int64_t>> dims = DimsOf(r, g, "the adjoint");
      g = r.Op("expand_dims", {g}, "axis=[" + std::to_string(axis + 1) + "]");
      g = r.Op("pad", {g}, "pad_width=" + IntsText(PadWidth(ndim + 1, axis + 1, 0, step - 1)));
      dims[axis] = slice.length * step;
      g = r.Op("reshape", {g, ReshapeTarget(r, dims, "a strided_slice gradient with stride > 1")});
      span = (slice.length - 1) * step + 1;
      g = r.Op("strided_slice", {g},
               "axes=[" + std::to_string(axis) + "], begin=[0], end=[" + std::to_string(span) + "]");
    }
    g = r.Op("pad", {g}, "pad_width=" + IntsText(PadWidth(ndim, axis, first, *size - first - span)));
  }
  r.SetGrad(0, g);
}

// dx[.., s, ..] = sum of dz at the positions whose index is s: a one-hot matrix (indices x
// axis size) times dz viewed as (before, indices, after). Indices wrap when negative and are
// clipped to the axis, as take reads them.
void TakeGrad(Rule& r) {
  Expr x = r.arg(0), indices = r.arg(1), dz = r.grad();
  int ndim = r.KnownNdim(x, "x");
  std::optional<int64_t> axis_attr = r.OptionalInt("axis");
  int axis = axis_attr ? NormalizeAxis(r, *axis_attr, ndim) : 0;
  // x as (before, size, after): with no axis, x flattened.
  int64_t size = 1;
  std::vector<std::optional<int64_t>> before, after;
  if (axis_attr) {
    size = r.StaticDim(x, axis, "the size of the gathered axis");
    std::vector<std::optional<int64_t>> dims = DimsOf(r, x, "x");
    before.assign(dims.begin(), dims.begin() + axis);
    after.assign(dims.begin() + axis + 1, dims.end());
  } else {
    for (int d = 0; d < ndim; ++d) size *= r.StaticDim(x, d, "the size of x, gathered from flattened");
  }
  auto product = [](const std::vector<std::optional<int64_t>>& dims) -> std::optional<int64_t> {
    int64_t p = 1;
    for (const std::optional<int64_t>& d : dims) {
      if (!d) return std::nullopt;
      p *= *d;
    }
    return p;
  };
  std::string index_dtype = r.DType(indices);
  Expr wrapped = r.Op("where", {r.Op("less", {indices, r.ScalarLike(0, indices)}),
                                Add(r, indices, r.ScalarLike(static_cast<double>(size), indices)), indices});
  Expr clipped = r.Op("clip", {wrapped}, "min=0.0, max=" + FloatText(static_cast<double>(size - 1)));
  Expr one_hot = r.Op("equal", {r.Op("reshape", {clipped, r.Shape({-1, 1})}), Arange(r, size, index_dtype, {size})});
  Expr selector = r.Op("permute_dims", {r.Op("astype", {one_hot}, "dtype=" + r.DType(dz))});  // (size, count)
  Expr dz3 = r.Op("reshape",
                  {dz, ReshapeTarget(r, {product(before), product(DimsOf(r, indices, "the indices")), product(after)},
                                     "the dims of x around the gathered axis must be static")});
  Expr dx3 = r.Op("matmul", {selector, dz3});  // (before, size, after)
  r.SetGrad(0, r.Op("reshape", {dx3, r.ShapeOf(x)}));
}

// The adjoint is dz with the padding cut off.
void PadGrad(Rule& r) {
  Expr x = r.arg(0);
  int ndim = r.KnownNdim(x, "x");
  std::vector<int64_t> width = r.Ints("pad_width");
  std::vector<int64_t> axes, begin, end;
  for (int d = 0; d < ndim; ++d) {
    int64_t before = width[2 * d], after = width[2 * d + 1];
    if (before == 0 && after == 0) continue;
    axes.push_back(d);
    begin.push_back(before);
    if (after == 0) {
      end.push_back(kEndOfAxis);
    } else {
      end.push_back(before + r.StaticDim(x, d, "pad's gradient cuts trailing padding off a static dim"));
    }
  }
  if (axes.empty()) {
    r.SetGrad(0, r.grad());
    return;
  }
  r.SetGrad(0, r.Op("strided_slice", {r.grad()},
                    "axes=" + IntsText(axes) + ", begin=" + IntsText(begin) + ", end=" + IntsText(end)));
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("concat", "each input gets its part of split(dz) along the axis", ConcatGrad),
    RXT_GRADIENT_RULE("split", "dx = concat(the parts' adjoints) along the axis", SplitGrad),
    RXT_GRADIENT_RULE("strided_slice", "dz put back at the sliced positions (reverse, interleave zeros, pad)",
                  StridedSliceGrad),
    RXT_GRADIENT_RULE("take", "dz summed into the gathered positions (one-hot matmul); none for the indices", TakeGrad),
    RXT_GRADIENT_RULE("pad", "dx = dz with the padding sliced off", PadGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> IndexManipulateGradients() { return kRules; }

}  // namespace rxt::grad_std
