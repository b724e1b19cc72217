// Shape manipulation: permute_dims, reshape, broadcast_to, collapse_sum_to, expand_dims,
// squeeze, flatten. The indexing half of the family is in manipulate_index.cc.
#include <algorithm>

#include "infer_util.h"
#include "op_families.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

StructInfo InferPermuteDims(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  std::optional<std::vector<int64_t>> axes = OptionalIntListAttr(call, "axes");
  int ndim = x.ndim;
  std::vector<int> perm;
  if (axes) {
    if (ndim >= 0 && static_cast<int>(axes->size()) != ndim) {
      OpError(call, StrCat("axes ", IntListToString(*axes), " has ", axes->size(), " entries but ",
                           DescribeArg(call, 0), " has ndim ", ndim));
    }
    ndim = static_cast<int>(axes->size());
    perm = NormalizeAxes(call, 0, *axes, ndim);  // ndim distinct axes: a permutation
  } else {
    if (ndim < 0) return TensorSI(x.dtype);
    for (int i = ndim - 1; i >= 0; --i) perm.push_back(i);
  }
  if (!x.shape) return TensorSI(x.dtype, ndim);
  Dims out;
  for (int p : perm) out.push_back((*x.shape)[p]);
  return TensorSI(out, x.dtype);
}

// The target's -1 (at most one) takes the element count of x divided by the other dims.
StructInfo InferReshape(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  const ShapeSINode& s = ShapeArg(call, 1);
  if (!s.values) return TensorSI(x.dtype, s.ndim);
  Dims target = *s.values;
  int inferred_at = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    std::optional<int64_t> v = StaticDim(target[i]);
    if (!v || *v >= 0) continue;
    if (*v != -1)
      OpError(call, StrCat("dim ", i, " of ", DescribeArg(call, 1), " is ", *v, "; only -1 may be negative"));
    if (inferred_at >= 0) OpError(call, StrCat(DescribeArg(call, 1), " has more than one -1"));
    inferred_at = static_cast<int>(i);
  }
  int ndim = static_cast<int>(target.size());
  if (!x.shape) return inferred_at >= 0 ? TensorSI(x.dtype, ndim) : TensorSI(target, x.dtype);

  Dims others = target;
  if (inferred_at >= 0) others.erase(others.begin() + inferred_at);
  Factors in = Factorize(*x.shape), out = Factorize(others);
  bool fully_static = in.symbols.empty() && out.symbols.empty();
  if (in.overflow || out.overflow) return inferred_at >= 0 ? TensorSI(x.dtype, ndim) : TensorSI(target, x.dtype);
  CancelCommonFactors(in, out);
  bool in_known = in.symbols.empty(), out_known = out.symbols.empty();
  if (inferred_at < 0) {
    if (in_known && out_known && in.constant != out.constant) {
      OpError(call, StrCat("element counts differ: ", DescribeArg(call, 0), " and ", DescribeArg(call, 1),
                           fully_static ? StrCat(" (", in.constant, " vs ", out.constant, ")") : std::string()));
    }
    return TensorSI(target, x.dtype);
  }
  if (!out_known || out.constant == 0) return TensorSI(x.dtype, ndim);
  if (in.constant % out.constant != 0) {
    if (in_known) {
      OpError(call, StrCat("cannot infer the -1 of ", DescribeArg(call, 1), ": ", in.constant, " elements of ",
                           DescribeArg(call, 0), " do not divide by ", out.constant));
    }
    return TensorSI(x.dtype, ndim);
  }
  target[inferred_at] = MulDims(Product(in.symbols), IntImm(in.constant / out.constant));
  return TensorSI(target, x.dtype);
}

StructInfo InferBroadcastTo(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  const ShapeSINode& s = ShapeArg(call, 1);
  if (!s.values) return TensorSI(x.dtype, s.ndim);
  const Dims& target = *s.values;
  if (x.ndim > static_cast<int>(target.size())) {
    OpError(call, StrCat(DescribeArg(call, 0), " has more dims than the target ", DescribeArg(call, 1)));
  }
  if (x.shape) {
    for (size_t k = 0; k < x.shape->size(); ++k) {
      std::optional<int64_t> from = StaticDim((*x.shape)[x.shape->size() - 1 - k]);
      std::optional<int64_t> to = StaticDim(target[target.size() - 1 - k]);
      if (from && to && *from != 1 && *from != *to) {
        OpError(call, StrCat("cannot broadcast ", DescribeArg(call, 0), " to ", DescribeArg(call, 1), ": axis -", k + 1,
                             " has ", *from, " but the target has ", *to));
      }
    }
  }
  return TensorSI(target, x.dtype);
}

// The inverse of broadcast_to: |shape| must broadcast to the shape of x.
StructInfo InferCollapseSumTo(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  const ShapeSINode& s = ShapeArg(call, 1);
  if (!s.values) return TensorSI(x.dtype, s.ndim);
  const Dims& target = *s.values;
  if (x.ndim >= 0 && x.ndim < static_cast<int>(target.size())) {
    OpError(call, StrCat("the target ", DescribeArg(call, 1), " has more dims than ", DescribeArg(call, 0)));
  }
  if (x.shape) {
    for (size_t k = 0; k < target.size(); ++k) {
      std::optional<int64_t> to = StaticDim(target[target.size() - 1 - k]);
      std::optional<int64_t> from = StaticDim((*x.shape)[x.shape->size() - 1 - k]);
      if (from && to && *to != 1 && *from != *to) {
        OpError(call, StrCat("cannot collapse ", DescribeArg(call, 0), " to ", DescribeArg(call, 1), ": axis -", k + 1,
                             " has ", *from, " but the target has ", *to));
      }
    }
  }
  return TensorSI(target, x.dtype);
}

// |axis| are positions in the result.
StructInfo InferExpandDims(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  std::vector<int64_t> axis = IntListAttr(call, "axis");
  if (x.ndim < 0) return TensorSI(x.dtype);
  int out_ndim = x.ndim + static_cast<int>(axis.size());
  std::vector<int> axes = NormalizeAxes(call, 0, axis, out_ndim);
  if (!x.shape) return TensorSI(x.dtype, out_ndim);
  Dims out(out_ndim);
  for (int a : axes) out[a] = IntImm(1);
  auto next = x.shape->begin();
  for (PrimExpr& d : out) {
    if (d == nullptr) d = *next++;
  }
  return TensorSI(out, x.dtype);
}

StructInfo InferSqueeze(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  std::optional<std::vector<int64_t>> axis = OptionalIntListAttr(call, "axis");
  if (x.ndim < 0) return TensorSI(x.dtype);
  std::vector<int> axes;
  if (axis) {
    axes = NormalizeAxes(call, 0, *axis, x.ndim);
    for (int a : axes) {
      std::optional<int64_t> size = x.shape ? StaticDim((*x.shape)[a]) : std::nullopt;
      if (size && *size != 1) {
        OpError(call,
                StrCat("cannot squeeze axis ", a, " of ", DescribeArg(call, 0), ": its size is ", *size, ", not 1"));
      }
    }
  } else {
    // Which dims are 1 is only known when every dim is static.
    if (!x.shape || !x.IsStatic()) return TensorSI(x.dtype);
    for (int i = 0; i < x.ndim; ++i) {
      if (StaticDim((*x.shape)[i]) == 1) axes.push_back(i);
    }
  }
  int out_ndim = x.ndim - static_cast<int>(axes.size());
  if (!x.shape) return TensorSI(x.dtype, out_ndim);
  Dims out;
  for (int i = 0; i < x.ndim; ++i) {
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) out.push_back((*x.shape)[i]);
  }
  return TensorSI(out, x.dtype);
}

// As torch.flatten: dims start_dim..end_dim (both included) become one; a 0-d tensor becomes (1,).
StructInfo InferFlatten(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  int64_t start_attr = IntAttr(call, "start_dim"), end_attr = IntAttr(call, "end_dim");
  if (x.ndim < 0) {
    bool whole = start_attr == 0 && end_attr == -1;
    return whole ? TensorSI(x.dtype, 1) : TensorSI(x.dtype);
  }
  if (x.ndim == 0) {
    NormalizeAxis(call, 0, start_attr, 1);  // only 0 and -1 name the one dim of a scalar
    NormalizeAxis(call, 0, end_attr, 1);
    return TensorSI(Dims{IntImm(1)}, x.dtype);
  }
  int start = NormalizeAxis(call, 0, start_attr, x.ndim), end = NormalizeAxis(call, 0, end_attr, x.ndim);
  if (start > end) {
    OpError(call, StrCat("start_dim ", start_attr, " comes after end_dim ", end_attr, " for ", DescribeArg(call, 0)));
  }
  int out_ndim = x.ndim - (end - start);
  if (!x.shape) return TensorSI(x.dtype, out_ndim);
  Dims out(x.shape->begin(), x.shape->begin() + start);
  out.push_back(Product(Dims(x.shape->begin() + start, x.shape->begin() + end + 1)));
  out.insert(out.end(), x.shape->begin() + end + 1, x.shape->end());
  return TensorSI(out, x.dtype);
}

}  // namespace

void RegisterManipulateOps(OpRegistry& r) {
  r.Def("permute_dims")
      .Describe("Permutes the dims of x: result dim i is x's dim axes[i].")
      .Input("x")
      .Attr("axes", AttrKind::kOptionalIntList, AttrValue(), "a permutation of the dims; none reverses them")
      .Set<FInferStructInfo>(InferPermuteDims);
  r.Def("reshape")
      .Describe("Gives x a new shape with the same element count; one dim of the shape may be -1 (inferred).")
      .Input("x")
      .Input("shape", "Shape")
      .Set<FInferStructInfo>(InferReshape);
  r.Def("broadcast_to")
      .Describe("Broadcasts x to a shape (NumPy rules).")
      .Input("x")
      .Input("shape", "Shape")
      .Set<FInferStructInfo>(InferBroadcastTo);
  r.Def("collapse_sum_to")
      .Describe(
          "Sums the broadcast dims of x away so that the result has the given shape (the gradient of "
          "broadcasting).")
      .Input("x")
      .Input("shape", "Shape")
      .Set<FInferStructInfo>(InferCollapseSumTo);
  r.Def("expand_dims")
      .Describe("Inserts size-1 dims at the given positions of the result.")
      .Input("x")
      .RequiredAttr("axis", AttrKind::kIntList, "positions of the new dims in the result")
      .Set<FInferStructInfo>(InferExpandDims);
  r.Def("squeeze")
      .Describe("Removes size-1 dims: the given ones, or every static 1 when axis is none.")
      .Input("x")
      .Attr("axis", AttrKind::kOptionalIntList, AttrValue(), "the dims to remove; none: every size-1 dim")
      .Set<FInferStructInfo>(InferSqueeze);
  r.Def("flatten")
      .Describe("Flattens dims start_dim to end_dim (both included) of x into one, as torch.flatten; the "
                "defaults give 1-D (numel,), and a 0-d x gives (1,).")
      .Input("x")
      .Attr("start_dim", AttrKind::kInt, int64_t{0}, "the first dim to flatten (negative: from the end)")
      .Attr("end_dim", AttrKind::kInt, int64_t{-1}, "the last dim to flatten (negative: from the end)")
      .Set<FInferStructInfo>(InferFlatten);
  RegisterIndexManipulateOps(r);
}

}  // namespace rxt
