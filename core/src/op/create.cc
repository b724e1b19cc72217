// Tensor creation: zeros, ones, full and their _like forms.
#include "infer_util.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

StructInfo ShapedSI(const CallNode& call, int shape_arg, DType dtype) {
  const ShapeSINode& s = ShapeArg(call, shape_arg);
  if (!s.values) return TensorSI(dtype, s.ndim);
  for (const PrimExpr& dim : *s.values) {
    std::optional<int64_t> size = StaticDim(dim);
    if (size && *size < 0) OpError(call, StrCat(DescribeArg(call, shape_arg), " has a negative dim ", *size));
  }
  return TensorSI(*s.values, dtype);
}

// The dtype of a scalar fill value: a 0-d tensor or a Prim value.
DType FillDType(const CallNode& call, int arg) {
  const StructInfo& sinfo = ArgSI(call, arg);
  if (const auto* prim = sinfo->As<PrimSINode>()) return prim->dtype;
  const auto* t = sinfo->As<TensorSINode>();
  if (t == nullptr || t->ndim > 0) {
    OpError(call, StrCat(DescribeArg(call, arg), " must be a scalar: a 0-d Tensor or a Prim value"));
  }
  return t->dtype;
}

// dtype attribute unknown means |fallback|.
DType ResultDType(const CallNode& call, DType fallback) {
  DType dtype = DTypeAttr(call, "dtype");
  return dtype == DType::kUnknown ? fallback : dtype;
}

StructInfo InferConstantFill(const CallNode& call) {
  DType dtype = DTypeAttr(call, "dtype");
  if (dtype == DType::kUnknown) OpError(call, "attribute dtype must be a concrete dtype, got unknown");
  return ShapedSI(call, 0, dtype);
}

StructInfo InferFull(const CallNode& call) { return ShapedSI(call, 0, ResultDType(call, FillDType(call, 1))); }

StructInfo InferConstantFillLike(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  return MakeTensorSI(ResultDType(call, x.dtype), x.ndim, x.shape);
}

StructInfo InferFullLike(const CallNode& call) {
  FillDType(call, 1);
  return InferConstantFillLike(call);
}

}  // namespace

void RegisterCreateOps(OpRegistry& r) {
  r.Def("zeros")
      .Describe("A tensor of the given shape filled with 0.")
      .Input("shape", "Shape")
      .Attr("dtype", AttrKind::kDType, DType::kFloat32, "the element type")
      .Set<FInferStructInfo>(InferConstantFill);
  r.Def("ones")
      .Describe("A tensor of the given shape filled with 1.")
      .Input("shape", "Shape")
      .Attr("dtype", AttrKind::kDType, DType::kFloat32, "the element type")
      .Set<FInferStructInfo>(InferConstantFill);
  r.Def("full")
      .Describe("A tensor of the given shape filled with a scalar (a 0-d tensor or a Prim value).")
      .Input("shape", "Shape")
      .Input("fill_value", "Any")
      .Attr("dtype", AttrKind::kDType, DType::kUnknown, "the element type; unknown: fill_value's")
      .Set<FInferStructInfo>(InferFull);
  r.Def("zeros_like")
      .Describe("Zeros shaped like x.")
      .Input("x")
      .Attr("dtype", AttrKind::kDType, DType::kUnknown, "the element type; unknown: x's")
      .Set<FInferStructInfo>(InferConstantFillLike);
  r.Def("ones_like")
      .Describe("Ones shaped like x.")
      .Input("x")
      .Attr("dtype", AttrKind::kDType, DType::kUnknown, "the element type; unknown: x's")
      .Set<FInferStructInfo>(InferConstantFillLike);
  r.Def("full_like")
      .Describe("A scalar (a 0-d tensor or a Prim value) broadcast to the shape of x.")
      .Input("x")
      .Input("fill_value", "Any")
      .Attr("dtype", AttrKind::kDType, DType::kUnknown, "the element type; unknown: x's")
      .Set<FInferStructInfo>(InferFullLike);
}

}  // namespace rxt
