// Indexing manipulation: concat, split, strided_slice, take, pad, one_hot.
#include <algorithm>
#include <limits>

#include "infer_util.h"
#include "op_families.h"

namespace rxt {
namespace {

using namespace infer;

StructInfo InferConcat(const CallNode& call) {
  const TupleSINode& tuple = TupleArg(call, 0);
  if (tuple.fields.empty()) OpError(call, StrCat(DescribeArg(call, 0), " must hold at least one tensor"));
  int n = static_cast<int>(tuple.fields.size());
  DType dtype = DType::kUnknown;
  int dtype_field = -1, ndim = -1, ndim_field = -1;
  bool shapes_known = true;
  for (int i = 0; i < n; ++i) {
    const TensorSINode& t = TensorField(call, 0, i);
    if (t.dtype != DType::kUnknown) {
      if (dtype != DType::kUnknown && t.dtype != dtype) {
        OpError(call,
                StrCat("dtype mismatch: ", DescribeField(call, 0, dtype_field), " and ", DescribeField(call, 0, i)));
      }
      dtype = t.dtype;
      dtype_field = i;
    }
    if (t.ndim >= 0) {
      if (ndim >= 0 && t.ndim != ndim) {
        OpError(call,
                StrCat("ndim mismatch: ", DescribeField(call, 0, ndim_field), " and ", DescribeField(call, 0, i)));
      }
      ndim = t.ndim;
      ndim_field = i;
    }
    shapes_known = shapes_known && t.shape.has_value();
  }
  if (ndim < 0) return TensorSI(dtype);
  if (ndim == 0) OpError(call, StrCat("cannot concatenate scalars: ", DescribeField(call, 0, ndim_field)));
  int axis = NormalizeAxis(call, 0, IntAttr(call, "axis"), ndim);
  if (!shapes_known) return TensorSI(dtype, ndim);

  Dims out = *TensorField(call, 0, 0).shape;
  bool related = true;
  for (int i = 1; i < n; ++i) {
    const Dims& dims = *TensorField(call, 0, i).shape;
    for (int d = 0; d < ndim; ++d) {
      if (d == axis) {
        std::optional<int64_t> s = StaticDim(dims[d]);
        out[d] = s ? AddConst(out[d], *s) : MakeBinary(BinaryOp::kAdd, out[d], dims[d]);
        continue;
      }
      std::optional<int64_t> a = StaticDim(out[d]), b = StaticDim(dims[d]);
      if (a && b && *a != *b) {
        OpError(call, StrCat("shapes differ at axis ", d, ": ", DescribeField(call, 0, 0), " has ", *a, ", ",
                             DescribeField(call, 0, i), " has ", *b));
      }
      if (!ProvablyEqual(out[d], dims[d])) related = false;
    }
  }
  if (!related) return TensorSI(dtype, ndim);
  return TensorSI(out, dtype);
}

// sections > 0: that many equal parts; otherwise cut points |indices| (NumPy array_split).
StructInfo InferSplit(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  std::vector<int64_t> indices = IntListAttr(call, "indices");
  int64_t sections = IntAttr(call, "sections");
  if (sections < 0) OpError(call, StrCat("attribute sections must not be negative, got ", sections));
  if (sections > 0 && !indices.empty()) {
    OpError(call, StrCat("give either sections (", sections, ") or indices ", IntListToString(indices), ", not both"));
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0 || (i > 0 && indices[i] < indices[i - 1])) {
      OpError(call, StrCat("indices ", IntListToString(indices), " must be non-negative and non-decreasing"));
    }
  }
  size_t parts = sections > 0 ? static_cast<size_t>(sections) : indices.size() + 1;
  auto all_parts = [&](const StructInfo& part) { return TupleSI(std::vector<StructInfo>(parts, part)); };
  if (x.ndim < 0) return all_parts(TensorSI(x.dtype));
  int axis = NormalizeAxis(call, 0, IntAttr(call, "axis"), x.ndim);
  if (!x.shape) return all_parts(TensorSI(x.dtype, x.ndim));

  const PrimExpr& dim = (*x.shape)[axis];
  std::optional<int64_t> size = StaticDim(dim);
  auto part_with = [&](PrimExpr length) {
    Dims dims = *x.shape;
    dims[axis] = std::move(length);
    return TensorSI(dims, x.dtype);
  };
  if (sections > 0) {
    if (size && *size % sections != 0) {
      OpError(call, StrCat("axis ", axis, " of ", DescribeArg(call, 0), " has ", *size, ", which does not divide into ",
                           sections, " equal sections"));
    }
    return all_parts(part_with(size ? IntImm(*size / sections) : FloorDivConst(dim, sections)));
  }
  std::vector<StructInfo> fields;
  int64_t start = 0;
  for (int64_t cut : indices) {
    int64_t end = size ? std::min(cut, *size) : cut;  // with a symbolic dim, cuts are assumed in bounds
    fields.push_back(part_with(IntImm(end - start)));
    start = end;
  }
  fields.push_back(part_with(AddConst(dim, -start)));
  return TupleSI(std::move(fields));
}

// Python's slice length of x[begin:end:stride] on a dim of |size|.
int64_t SliceLength(int64_t size, int64_t begin, int64_t end, int64_t stride) {
  auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); };
  if (stride > 0) {
    int64_t b = clamp(begin < 0 ? begin + size : begin, 0, size);
    int64_t e = clamp(end < 0 ? end + size : end, 0, size);
    return e > b ? (e - b - 1) / stride + 1 : 0;
  }
  int64_t b = clamp(begin < 0 ? begin + size : begin, -1, size - 1);
  int64_t e = clamp(end < 0 ? end + size : end, -1, size - 1);
  uint64_t step = uint64_t{0} - static_cast<uint64_t>(stride);  // -stride, even for INT64_MIN
  return b > e ? static_cast<int64_t>(static_cast<uint64_t>(b - e - 1) / step) + 1 : 0;
}

// An end at or past this means "to the end of the axis", even for a symbolic dim.
constexpr int64_t kEndOfAxis = std::numeric_limits<int32_t>::max();

StructInfo InferStridedSlice(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  std::vector<int64_t> axes = IntListAttr(call, "axes"), begin = IntListAttr(call, "begin"),
                       end = IntListAttr(call, "end"), strides = IntListAttr(call, "strides");
  if (begin.size() != axes.size() || end.size() != axes.size() || (!strides.empty() && strides.size() != axes.size())) {
    OpError(call, StrCat("axes, begin, end and strides must have the same length (strides may be empty); got ",
                         axes.size(), ", ", begin.size(), ", ", end.size(), ", ", strides.size()));
  }
  if (strides.empty()) strides.assign(axes.size(), 1);
  if (std::find(strides.begin(), strides.end(), 0) != strides.end()) {
    OpError(call, StrCat("strides ", IntListToString(strides), " must not contain 0"));
  }
  if (x.ndim < 0) return TensorSI(x.dtype);
  std::vector<int> norm_axes = NormalizeAxes(call, 0, axes, x.ndim);
  if (!x.shape) return TensorSI(x.dtype, x.ndim);
  Dims out = *x.shape;
  for (size_t i = 0; i < norm_axes.size(); ++i) {
    PrimExpr& dim = out[norm_axes[i]];
    int64_t b = begin[i], e = end[i], s = strides[i];
    if (std::optional<int64_t> size = StaticDim(dim)) {
      dim = IntImm(SliceLength(*size, b, e, s));
    } else if (s > 0 && b >= 0 && e >= kEndOfAxis) {
      dim = FloorDivConst(AddConst(dim, s - 1 - b), s);  // ceil((n - b) / s), b assumed in bounds
    } else {
      return TensorSI(x.dtype, x.ndim);
    }
  }
  return TensorSI(out, x.dtype);
}

StructInfo InferTake(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  const TensorSINode& indices = TensorArg(call, 1);
  RequireInt(call, 1);
  std::optional<int64_t> axis = OptionalIntAttr(call, "axis");
  if (!axis) return MakeTensorSI(x.dtype, indices.ndim, indices.shape);  // from flattened x
  if (x.ndim < 0) return TensorSI(x.dtype);
  int a = NormalizeAxis(call, 0, *axis, x.ndim);
  if (indices.ndim < 0) return TensorSI(x.dtype);
  int out_ndim = x.ndim - 1 + indices.ndim;
  if (!x.shape || !indices.shape) return TensorSI(x.dtype, out_ndim);
  Dims out(x.shape->begin(), x.shape->begin() + a);
  out.insert(out.end(), indices.shape->begin(), indices.shape->end());
  out.insert(out.end(), x.shape->begin() + a + 1, x.shape->end());
  return TensorSI(out, x.dtype);
}

// Bounds the widths so that dim arithmetic cannot overflow.
constexpr int64_t kMaxPad = (int64_t{1} << 31) - 1;

StructInfo InferPad(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  std::vector<int64_t> pad_width = IntListAttr(call, "pad_width");
  FloatAttr(call, "pad_value");  // checks its kind
  for (int64_t p : pad_width) {
    if (p < 0 || p > kMaxPad) {
      OpError(call, StrCat("pad_width ", IntListToString(pad_width), " must be in [0, ", kMaxPad, "]"));
    }
  }
  if (pad_width.size() % 2 != 0 || (x.ndim >= 0 && pad_width.size() != 2 * static_cast<size_t>(x.ndim))) {
    OpError(call, StrCat("pad_width ", IntListToString(pad_width), " must have 2 entries (before, after) per dim of ",
                         DescribeArg(call, 0)));
  }
  int ndim = static_cast<int>(pad_width.size() / 2);
  if (!x.shape) return TensorSI(x.dtype, ndim);
  Dims out = *x.shape;
  for (int i = 0; i < ndim; ++i) out[i] = AddConst(out[i], pad_width[2 * i] + pad_width[2 * i + 1]);
  return TensorSI(out, x.dtype);
}

StructInfo InferOneHot(const CallNode& call) {
  const TensorSINode& indices = TensorArg(call, 0);
  RequireInt(call, 0);
  const PrimSINode& on = PrimArg(call, 1);
  const PrimSINode& off = PrimArg(call, 2);
  if (on.dtype != off.dtype) {
    OpError(call, StrCat("dtype mismatch: ", DescribeArg(call, 1), " and ", DescribeArg(call, 2),
                         " must have the same dtype"));
  }
  int64_t depth = IntAttr(call, "depth");
  if (depth <= 0) OpError(call, StrCat("attribute depth must be positive, got ", depth));
  if (indices.ndim < 0) return TensorSI(on.dtype);
  int axis = NormalizeAxis(call, 0, IntAttr(call, "axis"), indices.ndim + 1);
  if (!indices.shape) return TensorSI(on.dtype, indices.ndim + 1);
  Dims out = *indices.shape;
  out.insert(out.begin() + axis, IntImm(depth));
  return TensorSI(out, on.dtype);
}

}  // namespace

void RegisterIndexManipulateOps(OpRegistry& r) {
  r.Def("concat")
      .Describe("Joins a Tuple of tensors (same dtype and ndim) along an axis.")
      .Input("tensors", "Tuple")
      .Attr("axis", AttrKind::kInt, 0, "the axis to join along")
      .Set<FInferStructInfo>(InferConcat);
  r.Def("split")
      .Describe(
          "Splits x along an axis into a Tuple: sections > 0 gives that many equal parts; otherwise indices "
          "are the cut points (NumPy array_split by indices; [] gives x whole). Never both.")
      .Input("x")
      .Attr("indices", AttrKind::kIntList, AttrValue::IntList({}), "non-decreasing cut points along axis")
      .Attr("sections", AttrKind::kInt, 0, "number of equal parts; 0: use indices")
      .Attr("axis", AttrKind::kInt, 0, "the axis to split")
      .Set<FInferStructInfo>(InferSplit);
  r.Def("strided_slice")
      .Describe(
          "Python slicing x[begin:end:stride] on each of the given axes (negative begin/end count from the "
          "end; an end >= 2^31-1 means to the end of the axis).")
      .Input("x")
      .RequiredAttr("axes", AttrKind::kIntList, "the sliced axes")
      .RequiredAttr("begin", AttrKind::kIntList, "the first index on each axis")
      .RequiredAttr("end", AttrKind::kIntList, "one past the last index on each axis")
      .Attr("strides", AttrKind::kIntList, AttrValue::IntList({}), "the step on each axis; []: all 1")
      .Set<FInferStructInfo>(InferStridedSlice);
  r.Def("take")
      .Describe("Gathers the entries of x at integer indices along an axis (none: from x flattened).")
      .Input("x")
      .Input("indices")
      .Attr("axis", AttrKind::kOptionalInt, AttrValue(), "the axis to gather along; none: flatten x first")
      .Set<FInferStructInfo>(InferTake);
  r.Def("pad")
      .Describe("Pads x with a constant; pad_width is [before_0, after_0, before_1, after_1, ...].")
      .Input("x")
      .RequiredAttr("pad_width", AttrKind::kIntList, "2 * ndim non-negative widths")
      .Attr("pad_value", AttrKind::kFloat, 0.0, "the value of the padding")
      .Set<FInferStructInfo>(InferPad);
  r.Def("one_hot")
      .Describe(
          "One-hot encoding of integer indices: a new axis of size depth holds on_value at the index and "
          "off_value elsewhere; the result has their dtype.")
      .Input("indices")
      .Input("on_value", "Prim")
      .Input("off_value", "Prim")
      .RequiredAttr("depth", AttrKind::kInt, "the size of the new axis")
      .Attr("axis", AttrKind::kInt, -1, "the position of the new axis in the result")
      .Set<FInferStructInfo>(InferOneHot);
}

}  // namespace rxt
