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

bool Reducible(DType dtype) {
  return dtype == DType::kUnknown || dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kInt32 ||
         dtype == DType::kInt64;
}

/// x: a tensor, or a tuple of tensors of one dtype (a bucket: one communication for all).
StructInfo InferAllReduce(const CallNode& call) {
  ChoiceAttr(call, "op", {"sum", "mean"});
  const StructInfo& x = ArgSI(call, 0);
  std::vector<const TensorSINode*> tensors;
  if (const auto* tuple = x->As<TupleSINode>()) {
    if (tuple->fields.empty()) OpError(call, StrCat(DescribeArg(call, 0), " is an empty tuple"));
    for (const StructInfo& field : tuple->fields) {
      const auto* t = field->As<TensorSINode>();
      if (t == nullptr) OpError(call, StrCat(DescribeArg(call, 0), " must hold tensors only, got ", ToString(field)));
      tensors.push_back(t);
    }
  } else {
    tensors.push_back(&TensorArg(call, 0));
  }
  for (const TensorSINode* t : tensors) {
    if (!Reducible(t->dtype)) {
      OpError(call, StrCat(DescribeArg(call, 0), " must be float32, float64, int32 or int64, got ", DTypeName(t->dtype)));
    }
    if (t->dtype != tensors[0]->dtype) {
      OpError(call, StrCat(DescribeArg(call, 0), " mixes ", DTypeName(tensors[0]->dtype), " and ", DTypeName(t->dtype),
                           ": one call combines tensors of one dtype"));
    }
  }
  return x;
}

}  // namespace

void RegisterCollectiveOps(OpRegistry& r) {
  r.Def("ccl.allreduce")
      .Describe(
          "The sum (or the mean) of x over the ranks of data-parallel training: every rank gets the same "
          "value. x is a tensor or a tuple of tensors of one dtype (a bucket: one communication for all). "
          "Pure: every rank runs the same program.")
      .Input("x", "Tensor | Tuple")
      .Attr("op", AttrKind::kString, "sum", "\"sum\" or \"mean\" (the sum divided by the number of ranks)")
      .Set<FInferStructInfo>(InferAllReduce);
}

}  // namespace rxt
