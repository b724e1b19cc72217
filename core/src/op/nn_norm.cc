// Normalization: nn.batch_norm, nn.layer_norm.
#include "infer_util.h"
#include "op_families.h"

namespace rxt {
namespace {

using namespace infer;

// Checks that per-feature parameter |arg| matches the data dims |expected| (null: unknown).
void CheckParamShape(const CallNode& call, int arg, const Dims& expected, const std::string& what) {
  const TensorSINode& p = TensorArg(call, arg);
  if (p.ndim >= 0 && p.ndim != static_cast<int>(expected.size())) {
    OpError(call, StrCat(DescribeArg(call, arg), " must have ndim ", expected.size(), " (", what, ")"));
  }
  if (!p.shape) return;
  for (size_t i = 0; i < expected.size(); ++i) {
    std::optional<int64_t> want = expected[i] ? StaticDim(expected[i]) : std::nullopt;
    std::optional<int64_t> got = StaticDim((*p.shape)[i]);
    if (want && got && *want != *got) {
      OpError(call, StrCat(DescribeArg(call, arg), " has ", *got, " at dim ", i, " but ", DescribeArg(call, 0), " has ",
                           *want, " (", what, ")"));
    }
  }
}

void CheckEpsilon(const CallNode& call) {
  double epsilon = FloatAttr(call, "epsilon");
  if (!(epsilon >= 0)) OpError(call, StrCat("attribute epsilon must not be negative, got ", epsilon));
}

StructInfo InferBatchNorm(const CallNode& call) {
  const TensorSINode& data = TensorArg(call, 0);
  DType dtype = CommonDType(call, {0, 1, 2, 3, 4});
  CheckEpsilon(call);
  double momentum = FloatAttr(call, "momentum");
  if (!(momentum >= 0 && momentum <= 1)) OpError(call, StrCat("attribute momentum must be in [0, 1], got ", momentum));
  BoolAttr(call, "training");
  PrimExpr channels;  // null: unknown
  if (data.ndim >= 0) {
    int axis = NormalizeAxis(call, 0, IntAttr(call, "axis"), data.ndim);
    if (data.shape) channels = (*data.shape)[axis];
  }
  for (int arg = 1; arg <= 4; ++arg) CheckParamShape(call, arg, Dims{channels}, "one value per channel");
  for (int arg = 1; arg <= 4 && channels == nullptr; ++arg) {
    const TensorSINode& p = TensorArg(call, arg);
    if (p.shape) channels = (*p.shape)[0];
  }
  StructInfo stats = channels ? TensorSI(Dims{channels}, dtype) : TensorSI(dtype, 1);
  return TupleSI({MakeTensorSI(dtype, data.ndim, data.shape), stats, stats});
}

StructInfo InferLayerNorm(const CallNode& call) {
  const TensorSINode& data = TensorArg(call, 0);
  DType dtype = CommonDType(call, {0, 1, 2});
  CheckEpsilon(call);
  std::vector<int64_t> axes = IntListAttr(call, "axes");
  Dims normalized(axes.size());  // the dims gamma and beta must have; null when unknown
  if (data.ndim >= 0) {
    std::vector<int> norm_axes = NormalizeAxes(call, 0, axes, data.ndim);
    for (size_t i = 0; i < norm_axes.size() && data.shape; ++i) normalized[i] = (*data.shape)[norm_axes[i]];
  }
  CheckParamShape(call, 1, normalized, "the normalized dims");
  CheckParamShape(call, 2, normalized, "the normalized dims");
  return MakeTensorSI(dtype, data.ndim, data.shape);
}

}  // namespace

void RegisterNormOps(OpRegistry& r) {
  r.Def("nn.batch_norm")
      .Describe(
          "Batch normalization over every axis but one; returns (out, new moving_mean, new moving_var). In "
          "training the batch statistics normalize and update the moving ones with momentum; otherwise the "
          "moving statistics normalize and are returned unchanged.")
      .Input("data")
      .Input("gamma")
      .Input("beta")
      .Input("moving_mean")
      .Input("moving_var")
      .Attr("axis", AttrKind::kInt, 1, "the channel axis")
      .Attr("epsilon", AttrKind::kFloat, 1e-5, "added to the variance")
      .Attr("momentum", AttrKind::kFloat, 0.1, "new = (1 - momentum) * moving + momentum * batch")
      .Attr("training", AttrKind::kBool, true, "use and update batch statistics")
      .Attr("unbiased_running_var", AttrKind::kBool, true,
            "the moving variance takes the unbiased batch variance, as PyTorch (false: the population "
            "variance, as ONNX)")
      .Set<FInferStructInfo>(InferBatchNorm);
  r.Def("nn.layer_norm")
      .Describe("Layer normalization over the given axes, then * gamma + beta (shaped like those axes).")
      .Input("data")
      .Input("gamma")
      .Input("beta")
      .RequiredAttr("axes", AttrKind::kIntList, "the normalized axes")
      .Attr("epsilon", AttrKind::kFloat, 1e-5, "added to the variance")
      .Set<FInferStructInfo>(InferLayerNorm);
}

}  // namespace rxt
