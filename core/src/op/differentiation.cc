// gradient_of: a gradient asked for inside a function (ONNX's Gradient op). Its value is the
// adjoint of each tensor of wrt for the target sum(y), where y is computed earlier in the same
// function from them. Only the function around the call knows how y was computed, so no
// per-call legalization can lower it: the LowerGradientOf pass (transform/passes.h) replaces it
// by the backward pass the Gradient pass makes of the bindings between wrt and y.
#include "infer_util.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

bool IsFloatOrUnknown(DType dtype) { return dtype == DType::kUnknown || IsFloat(dtype); }

StructInfo InferGradientOf(const CallNode& call) {
  const TensorSINode& y = TensorArg(call, 0);
  if (!IsFloatOrUnknown(y.dtype)) {
    OpError(call, StrCat(DescribeArg(call, 0), " must be a float tensor (the value differentiated)"));
  }
  const TupleSINode& wrt = TupleArg(call, 1);
  if (wrt.fields.empty()) OpError(call, "argument wrt must name at least one tensor");
  for (size_t i = 0; i < wrt.fields.size(); ++i) {
    const TensorSINode& x = TensorField(call, 1, static_cast<int>(i));
    if (!IsFloatOrUnknown(x.dtype)) {
      OpError(call, StrCat(DescribeField(call, 1, static_cast<int>(i)), " must be a float tensor"));
    }
  }
  return TupleSI(wrt.fields);
}

}  // namespace

void RegisterDifferentiationOps(OpRegistry& r) {
  r.Def("gradient_of")
      .Describe(
          "The gradient of sum(y) with respect to each tensor of wrt, through the bindings of this function that "
          "compute y from them (each wrt tensor taken as independent): a tuple shaped like wrt. Lowered by the "
          "LowerGradientOf pass (rxt build runs it), not by LegalizeOps.")
      .Input("y", "Tensor")
      .Input("wrt", "Tuple")
      .Set<FInferStructInfo>(InferGradientOf);
}

}  // namespace rxt
