// Neural-network ops: activations and dropout here; convolution, pooling, normalization
// and losses in nn_conv.cc, nn_pool.cc, nn_norm.cc and nn_loss.cc.
#include "infer_util.h"
#include "op_families.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

StructInfo InferActivation(const CallNode& call) {
  TensorArg(call, 0);
  return ArgSI(call, 0);
}

StructInfo InferFloatActivation(const CallNode& call) {
  RequireFloat(call, 0);
  return ArgSI(call, 0);
}

// (out, mask), both shaped like x, as in TVM; the optional seed is a 0-d integer tensor.
StructInfo InferDropout(const CallNode& call) {
  CheckArgCount(call, 1, 2);
  RequireFloat(call, 0);
  if (call.args.size() == 2) {
    RequireInt(call, 1);
    if (TensorArg(call, 1).ndim > 0) OpError(call, StrCat(DescribeArg(call, 1), " must be a 0-d tensor"));
  }
  double rate = FloatAttr(call, "rate");
  if (!(rate >= 0 && rate < 1)) OpError(call, StrCat("attribute rate must be in [0, 1), got ", rate));
  return TupleSI({ArgSI(call, 0), ArgSI(call, 0)});
}

}  // namespace

void RegisterNNOps(OpRegistry& r) {
  r.Def("nn.relu").Describe("max(x, 0), elementwise.").Input("x").Set<FInferStructInfo>(InferActivation);
  r.Def("nn.gelu")
      .Describe("x * Phi(x) with Phi the standard normal CDF (the exact erf form), elementwise.")
      .Input("x")
      .Set<FInferStructInfo>(InferFloatActivation);
  r.Def("nn.silu").Describe("x * sigmoid(x), elementwise.").Input("x").Set<FInferStructInfo>(InferFloatActivation);
  r.Def("nn.dropout")
      .Describe(
          "With a seed (training): zeroes each element with probability rate and scales the rest by "
          "1 / (1 - rate), the kept elements drawn from a counter-based hash of (seed, element index); "
          "without (inference): x unchanged. Returns (out, mask), both shaped like x, mask 1 where kept, "
          "else 0.")
      .Input("x")
      .OptionalInput("seed")
      .Attr("rate", AttrKind::kFloat, 0.5, "the probability of dropping an element, in [0, 1)")
      .Set<FInferStructInfo>(InferDropout);
  RegisterConvOps(r);
  RegisterConvBackwardOps(r);
  RegisterPoolOps(r);
  RegisterNormOps(r);
  RegisterLossOps(r);
}

}  // namespace rxt
