// Collectives of data-parallel training: ccl.allreduce combines a tensor over the ranks that
// train together. It is pure: every rank runs the same program, so every rank makes the same
// calls in the same order. LegalizeOps makes it a call_extern of "ccl.allreduce_sum" or
// "ccl.allreduce_mean", which a Trainer binds to its communicator (a world of one rank
// without one: the tensor itself).
//
// ccl.allreduce_start / ccl.allreduce_wait are the same combination in two halves, so that it
// overlaps with computation (docs/distributed.md): start reads x at once and returns a request
// (an int64 scalar); wait returns the combined values, whose struct info it is given as
// out_sinfo (that of start's x). The ScheduleCollectives pass moves each start up to just
// after what it reads.
#include "infer_util.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

bool Reducible(DType dtype) {
  return dtype == DType::kUnknown || dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kInt32 ||
         dtype == DType::kInt64;
}

/// Checks that |x| (what argument |what| names) is a tensor or a non-empty tuple of tensors of
/// one reducible dtype.
void CheckReducible(const CallNode& call, const StructInfo& x, const std::string& what) {
  std::vector<const TensorSINode*> tensors;
  if (const auto* tuple = x->As<TupleSINode>()) {
    if (tuple->fields.empty()) OpError(call, StrCat(what, " is an empty tuple"));
    for (const StructInfo& field : tuple->fields) {
      const auto* t = field->As<TensorSINode>();
      if (t == nullptr) OpError(call, StrCat(what, " must hold tensors only, got ", ToString(field)));
      tensors.push_back(t);
    }
  } else if (const auto* t = x->As<TensorSINode>()) {
    tensors.push_back(t);
  } else {
    OpError(call, StrCat(what, " must be a tensor or a tuple of tensors, got ", ToString(x)));
  }
  for (const TensorSINode* t : tensors) {
    if (!Reducible(t->dtype)) {
      OpError(call, StrCat(what, " must be float32, float64, int32 or int64, got ", DTypeName(t->dtype)));
    }
    if (t->dtype != tensors[0]->dtype) {
      OpError(call, StrCat(what, " mixes ", DTypeName(tensors[0]->dtype), " and ", DTypeName(t->dtype),
                           ": one call combines tensors of one dtype"));
    }
  }
}

/// x: a tensor, or a tuple of tensors of one dtype (a bucket: one communication for all).
StructInfo InferAllReduce(const CallNode& call) {
  ChoiceAttr(call, "op", {"sum", "mean"});
  const StructInfo& x = ArgSI(call, 0);
  CheckReducible(call, x, DescribeArg(call, 0));
  return x;
}

StructInfo RequestSI() { return MakeTensorSI(DType::kInt64, 0, Dims{}); }

StructInfo InferAllReduceStart(const CallNode& call) {
  InferAllReduce(call);
  return RequestSI();
}

StructInfo InferAllReduceWait(const CallNode& call) {
  const TensorSINode& request = TensorArg(call, 0);
  if (request.dtype != DType::kInt64 || request.ndim != 0) {
    OpError(call, StrCat(DescribeArg(call, 0), " must be the int64 scalar ccl.allreduce_start returns"));
  }
  if (call.sinfo_args.size() != 1 || call.sinfo_args[0] == nullptr) {
    OpError(call, "needs the struct info of the combined values (out_sinfo: that of ccl.allreduce_start's x)");
  }
  CheckReducible(call, call.sinfo_args[0], "out_sinfo");
  return call.sinfo_args[0];
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
  r.Def("ccl.allreduce_start")
      .Describe(
          "Starts ccl.allreduce of x and returns at once a request (an int64 scalar) for ccl.allreduce_wait, so "
          "that the communication overlaps with what runs in between. x is read when the call returns.")
      .Input("x", "Tensor | Tuple")
      .Attr("op", AttrKind::kString, "sum", "\"sum\" or \"mean\" (the sum divided by the number of ranks)")
      .Set<FInferStructInfo>(InferAllReduceStart);
  r.Def("ccl.allreduce_wait")
      .Describe(
          "Waits for the ccl.allreduce_start that returned request and gives its result: x combined over the "
          "ranks, of struct info out_sinfo (that of start's x). Each request is waited for once.")
      .Input("request", "Tensor")
      .Set<FInferStructInfo>(InferAllReduceWait);
}

}  // namespace rxt
