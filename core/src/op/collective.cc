// Collectives of data-parallel training: ccl.allreduce combines a tensor over the ranks that
// train together. It is pure: every rank runs the same program, so every rank makes the same
// calls in the same order. LegalizeOps makes it a call_extern of "ccl.allreduce_sum" or
// "ccl.allreduce_mean", which a Trainer binds to its communicator (a world of one rank
// without one: the tensor itself).
#include "infer_util.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

StructInfo InferAllReduce(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  ChoiceAttr(call, "op", {"sum", "mean"});
  if (x.dtype != DType::kUnknown && x.dtype != DType::kFloat32 && x.dtype != DType::kFloat64 &&
      x.dtype != DType::kInt32 && x.dtype != DType::kInt64) {
    OpError(call, StrCat(DescribeArg(call, 0), " must be float32, float64, int32 or int64, got ", DTypeName(x.dtype)));
  }
  return ArgSI(call, 0);
}

}  // namespace

void RegisterCollectiveOps(OpRegistry& r) {
  r.Def("ccl.allreduce")
      .Describe(
          "The sum (or the mean) of x over the ranks of data-parallel training: every rank gets the same "
          "value. Pure: every rank runs the same program.")
      .Input("x", "Tensor")
      .Attr("op", AttrKind::kString, "sum", "\"sum\" or \"mean\" (the sum divided by the number of ranks)")
      .Set<FInferStructInfo>(InferAllReduce);
}

}  // namespace rxt
