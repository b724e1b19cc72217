// Reductions (sum, mean, max, min, prod, variance, argmax), the running sum cumsum and the
// axis-wise normalizations softmax and log_softmax.
#include <algorithm>

#include "infer_util.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

// The shape left after reducing |axes| (none: every axis) of x.
StructInfo ReducedSI(const CallNode& call, const std::optional<std::vector<int64_t>>& axis, bool keepdims,
                     DType dtype) {
  const TensorSINode& x = TensorArg(call, 0);
  if (x.ndim < 0) return !axis && !keepdims ? TensorSI(Dims{}, dtype) : TensorSI(dtype);
  std::vector<int> axes;
  if (axis) {
    axes = NormalizeAxes(call, 0, *axis, x.ndim);
  } else {
    for (int i = 0; i < x.ndim; ++i) axes.push_back(i);
  }
  int out_ndim = keepdims ? x.ndim : x.ndim - static_cast<int>(axes.size());
  if (!x.shape) return TensorSI(dtype, out_ndim);
  Dims out;
  for (int i = 0; i < x.ndim; ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced) {
      out.push_back((*x.shape)[i]);
    } else if (keepdims) {
      out.push_back(IntImm(1));
    }
  }
  return TensorSI(out, dtype);
}

StructInfo InferReduce(const CallNode& call) {
  return ReducedSI(call, OptionalIntListAttr(call, "axis"), BoolAttr(call, "keepdims"), TensorArg(call, 0).dtype);
}

StructInfo InferArgmax(const CallNode& call) {
  std::optional<int64_t> axis = OptionalIntAttr(call, "axis");
  std::optional<std::vector<int64_t>> axes;
  if (axis) axes = std::vector<int64_t>{*axis};
  return ReducedSI(call, axes, BoolAttr(call, "keepdims"), DType::kInt64);
}

// Same shape and dtype as x; bool has no sum.
StructInfo InferCumsum(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  if (x.dtype == DType::kBool) OpError(call, StrCat(DescribeArg(call, 0), " must have a numeric dtype, got bool"));
  if (x.ndim == 0) OpError(call, StrCat(DescribeArg(call, 0), " must have at least one dim"));
  if (x.ndim > 0) NormalizeAxis(call, 0, IntAttr(call, "axis"), x.ndim);
  return ArgSI(call, 0);
}

StructInfo InferSoftmax(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  RequireFloat(call, 0);
  if (x.ndim == 0) OpError(call, StrCat(DescribeArg(call, 0), " must have at least one dim"));
  if (x.ndim > 0) NormalizeAxis(call, 0, IntAttr(call, "axis"), x.ndim);
  return ArgSI(call, 0);
}

void DefReduce(OpRegistry& r, const char* name, const char* doc) {
  r.Def(name)
      .Describe(doc)
      .Input("x")
      .Attr("axis", AttrKind::kOptionalIntList, AttrValue(), "the axes to reduce; none: every axis")
      .Attr("keepdims", AttrKind::kBool, false, "keep reduced axes as size-1 dims")
      .Set<FInferStructInfo>(InferReduce);
}

void DefSoftmax(OpRegistry& r, const char* name, const char* doc) {
  r.Def(name)
      .Describe(doc)
      .Input("x")
      .Attr("axis", AttrKind::kInt, -1, "the axis to normalize over")
      .Set<FInferStructInfo>(InferSoftmax);
}

}  // namespace

void RegisterReduceOps(OpRegistry& r) {
  DefReduce(r, "sum", "Sum over the given axes.");
  DefReduce(r, "mean", "Arithmetic mean over the given axes.");
  DefReduce(r, "max", "Maximum over the given axes.");
  DefReduce(r, "min", "Minimum over the given axes.");
  DefReduce(r, "prod", "Product over the given axes.");
  DefReduce(r, "variance", "Population variance (divides by the count) over the given axes.");
  r.Def("argmax")
      .Describe("int64 index of the maximum along an axis (none: of x flattened).")
      .Input("x")
      .Attr("axis", AttrKind::kOptionalInt, AttrValue(), "the axis to search; none: every axis")
      .Attr("keepdims", AttrKind::kBool, false, "keep the reduced axis as a size-1 dim")
      .Set<FInferStructInfo>(InferArgmax);
  r.Def("cumsum")
      .Describe("Running sum along an axis, as ONNX's CumSum: exclusive leaves each element out of its own sum, "
                "reverse sums from the end.")
      .Input("x")
      .Attr("axis", AttrKind::kInt, 0, "the axis to sum along")
      .Attr("exclusive", AttrKind::kBool, false, "sum the elements before each one, not up to it")
      .Attr("reverse", AttrKind::kBool, false, "sum from the end of the axis")
      .Set<FInferStructInfo>(InferCumsum);
  DefSoftmax(r, "softmax", "exp(x) / sum(exp(x)) along an axis (floating point).");
  DefSoftmax(r, "log_softmax", "x - log(sum(exp(x))) along an axis (floating point).");
}

}  // namespace rxt
