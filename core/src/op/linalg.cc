// Linear algebra: matmul with NumPy semantics; linear, the dense layer in PyTorch's layout.
#include <algorithm>

#include "infer_util.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

// NumPy matmul: a 1-D x1 is promoted to (1, k) and a 1-D x2 to (k, 1), the added dims are
// removed from the result; leading (batch) dims broadcast.
StructInfo InferMatmul(const CallNode& call) {
  const TensorSINode& x1 = TensorArg(call, 0);
  const TensorSINode& x2 = TensorArg(call, 1);
  DType dtype = CommonDType(call, {0, 1});
  DType out_dtype = DTypeAttr(call, "out_dtype");
  if (out_dtype == DType::kUnknown) out_dtype = dtype;
  for (int i = 0; i < 2; ++i) {
    if (TensorArg(call, i).ndim == 0) OpError(call, StrCat("operands must not be scalars; got ", DescribeArg(call, i)));
  }
  if (x1.ndim < 0 || x2.ndim < 0) return TensorSI(out_dtype);

  bool x1_vector = x1.ndim == 1, x2_vector = x2.ndim == 1;
  int batch_ndim = std::max({x1.ndim - 2, x2.ndim - 2, 0});
  int out_ndim = batch_ndim + (x1_vector ? 0 : 1) + (x2_vector ? 0 : 1);
  if (!x1.shape || !x2.shape) return TensorSI(out_dtype, out_ndim);

  Dims a = *x1.shape, b = *x2.shape;
  if (x1_vector) a.insert(a.begin(), IntImm(1));
  if (x2_vector) b.push_back(IntImm(1));
  const PrimExpr& k1 = a.back();
  const PrimExpr& k2 = b[b.size() - 2];
  std::optional<int64_t> s1 = StaticDim(k1), s2 = StaticDim(k2);
  if (s1 && s2 && *s1 != *s2) {
    OpError(call, StrCat("contraction dims differ: ", DescribeArg(call, 0), " has ", *s1, ", ", DescribeArg(call, 1),
                         " has ", *s2));
  }
  // The contraction dims do not appear in the result: when they cannot be related the
  // result is still the shape a valid call has.
  std::optional<Dims> batch =
      BroadcastDims(call, {{0, Dims(a.begin(), a.end() - 2)}, {1, Dims(b.begin(), b.end() - 2)}});
  if (!batch) return TensorSI(out_dtype, out_ndim);
  Dims out = *batch;
  if (!x1_vector) out.push_back(a[a.size() - 2]);
  if (!x2_vector) out.push_back(b.back());
  return TensorSI(out, out_dtype);
}

// x (..., in) or (in,); weight (out, in); bias (out,) if given: the result is (..., out).
StructInfo InferLinear(const CallNode& call) {
  CheckArgCount(call, 2, 3);
  const TensorSINode& x = TensorArg(call, 0);
  const TensorSINode& weight = TensorArg(call, 1);
  bool has_bias = call.args.size() == 3;
  DType dtype = has_bias ? CommonDType(call, {0, 1, 2}) : CommonDType(call, {0, 1});
  if (x.ndim == 0) OpError(call, StrCat(DescribeArg(call, 0), " must have a feature dim"));
  if (weight.ndim >= 0 && weight.ndim != 2) OpError(call, StrCat(DescribeArg(call, 1), " must be 2-D (out, in)"));
  std::optional<int64_t> in_x = x.shape ? StaticDim(x.shape->back()) : std::nullopt;
  std::optional<int64_t> in_w = weight.shape ? StaticDim((*weight.shape)[1]) : std::nullopt;
  if (in_x && in_w && *in_x != *in_w) {
    OpError(call, StrCat("input features differ: ", DescribeArg(call, 0), " has ", *in_x, ", ", DescribeArg(call, 1),
                         " takes ", *in_w));
  }
  PrimExpr out_features = weight.shape ? (*weight.shape)[0] : PrimExpr();
  if (has_bias) {
    const TensorSINode& bias = TensorArg(call, 2);
    if (bias.ndim >= 0 && bias.ndim != 1) OpError(call, StrCat(DescribeArg(call, 2), " must be 1-D (out,)"));
    std::optional<int64_t> want = out_features ? StaticDim(out_features) : std::nullopt;
    std::optional<int64_t> got = bias.shape ? StaticDim((*bias.shape)[0]) : std::nullopt;
    if (want && got && *want != *got) {
      OpError(call, StrCat(DescribeArg(call, 2), " has ", *got, " elements but ", DescribeArg(call, 1), " has ", *want,
                           " outputs"));
    }
  }
  if (x.ndim < 0) return TensorSI(dtype);
  if (!x.shape || !out_features) return TensorSI(dtype, x.ndim);
  Dims out(x.shape->begin(), x.shape->end() - 1);
  out.push_back(out_features);
  return TensorSI(out, dtype);
}

}  // namespace

void RegisterLinalgOps(OpRegistry& r) {
  r.Def("matmul")
      .Describe("Matrix product with NumPy semantics: batched, batch dims broadcast, 1-D operands promoted.")
      .Input("x1")
      .Input("x2")
      .Attr("out_dtype", AttrKind::kDType, DType::kUnknown, "the result's dtype; unknown: the inputs' dtype")
      .Set<FInferStructInfo>(InferMatmul);
  r.Def("linear")
      .Describe(
          "The dense layer in PyTorch's layout: x @ weight^T + bias for x (..., in) or (in,), weight (out, in) and "
          "an optional bias (out,); the same GEMM as matmul with a transposed weight, then add.")
      .Input("x")
      .Input("weight")
      .OptionalInput("bias")
      .Set<FInferStructInfo>(InferLinear);
}

}  // namespace rxt
