// Gradient checkpointing markers: identities on a tensor or a tuple of tensors. The Gradient
// pass recomputes the forward values between a checkpoint_start and the next checkpoint_end in
// the backward pass instead of keeping them (memory for compute); legalization drops them.
#include "infer_util.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

bool IsTensorOrTuple(const StructInfo& sinfo) {
  if (sinfo->As<TensorSINode>()) return true;
  const auto* tuple = sinfo->As<TupleSINode>();
  if (tuple == nullptr) return false;
  for (const StructInfo& f : tuple->fields) {
    if (!IsTensorOrTuple(f)) return false;
  }
  return true;
}

StructInfo InferCheckpointMarker(const CallNode& call) {
  const StructInfo& x = ArgSI(call, 0);
  if (!IsTensorOrTuple(x)) OpError(call, StrCat(DescribeArg(call, 0), " must be a tensor or a tuple of tensors"));
  return x;
}

}  // namespace

void RegisterCheckpointOps(OpRegistry& r) {
  r.Def("checkpoint_start")
      .Describe(
          "Marks the start of a gradient-checkpoint segment: returns x. The Gradient pass recomputes the values "
          "computed between it and the next checkpoint_end in the backward pass instead of keeping them.")
      .Input("x", "Any")
      .Set<FInferStructInfo>(InferCheckpointMarker);
  r.Def("checkpoint_end")
      .Describe("Marks the end of a gradient-checkpoint segment (see checkpoint_start): returns x.")
      .Input("x", "Any")
      .Set<FInferStructInfo>(InferCheckpointMarker);
}

}  // namespace rxt
