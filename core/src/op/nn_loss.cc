// Losses: nn.nll_loss, nn.cross_entropy_with_logits.
#include "infer_util.h"
#include "op_families.h"

namespace rxt {
namespace {

using namespace infer;

// predictions (N, C, d1, ..., dk) or (C,); targets (N, d1, ..., dk) or (); weights (C,).
StructInfo InferNllLoss(const CallNode& call) {
  CheckArgCount(call, 2, 3);
  const TensorSINode& pred = TensorArg(call, 0);
  const TensorSINode& targets = TensorArg(call, 1);
  RequireInt(call, 1);
  bool has_weights = call.args.size() == 3;
  DType dtype = has_weights ? CommonDType(call, {0, 2}) : pred.dtype;
  std::string reduction = ChoiceAttr(call, "reduction", {"mean", "sum", "none"});
  IntAttr(call, "ignore_index");
  if (pred.ndim == 0) OpError(call, StrCat(DescribeArg(call, 0), " must have a class dim"));

  // What targets and weights must look like, from predictions.
  int target_ndim = pred.ndim < 0 ? targets.ndim : pred.ndim == 1 ? 0 : pred.ndim - 1;
  std::optional<Dims> target_dims;
  PrimExpr classes;
  if (pred.shape) {
    const Dims& p = *pred.shape;
    classes = p.size() == 1 ? p[0] : p[1];
    target_dims = Dims{};
    if (p.size() > 1) {
      target_dims->push_back(p[0]);
      target_dims->insert(target_dims->end(), p.begin() + 2, p.end());
    }
  }
  if (targets.ndim >= 0 && target_ndim >= 0 && targets.ndim != target_ndim) {
    OpError(call, StrCat(DescribeArg(call, 1), " must have ndim ", target_ndim, " to match ", DescribeArg(call, 0)));
  }
  if (target_dims && targets.shape) {
    for (size_t i = 0; i < target_dims->size(); ++i) {
      std::optional<int64_t> want = StaticDim((*target_dims)[i]), got = StaticDim((*targets.shape)[i]);
      if (want && got && *want != *got) {
        OpError(call, StrCat("shapes differ: ", DescribeArg(call, 1), " has ", *got, " at dim ", i, ", ",
                             DescribeArg(call, 0), " implies ", *want));
      }
    }
  }
  if (has_weights) {
    const TensorSINode& w = TensorArg(call, 2);
    if (w.ndim >= 0 && w.ndim != 1) OpError(call, StrCat(DescribeArg(call, 2), " must be 1-D (one weight per class)"));
    std::optional<int64_t> want = classes ? StaticDim(classes) : std::nullopt;
    std::optional<int64_t> got = w.shape ? StaticDim((*w.shape)[0]) : std::nullopt;
    if (want && got && *want != *got) {
      OpError(call, StrCat(DescribeArg(call, 2), " has ", *got, " weights but ", DescribeArg(call, 0), " has ", *want,
                           " classes"));
    }
  }
  if (reduction != "none") return TensorSI(Dims{}, dtype);
  if (target_dims) return TensorSI(*target_dims, dtype);
  return MakeTensorSI(dtype, targets.ndim >= 0 ? targets.ndim : target_ndim, targets.shape);
}

StructInfo InferCrossEntropyWithLogits(const CallNode& call) {
  const TensorSINode& pred = TensorArg(call, 0);
  const TensorSINode& labels = TensorArg(call, 1);
  DType dtype = CommonDType(call, {0, 1});
  RequireFloat(call, 0);
  if (pred.ndim == 0) OpError(call, StrCat(DescribeArg(call, 0), " must have a class dim"));
  if (pred.ndim >= 0 && labels.ndim >= 0 && pred.ndim != labels.ndim) {
    OpError(call, StrCat("ndim mismatch: ", DescribeArg(call, 0), " and ", DescribeArg(call, 1)));
  }
  if (pred.shape && labels.shape) {
    for (size_t i = 0; i < pred.shape->size(); ++i) {
      std::optional<int64_t> a = StaticDim((*pred.shape)[i]), b = StaticDim((*labels.shape)[i]);
      if (a && b && *a != *b) {
        OpError(call, StrCat("shapes differ at dim ", i, ": ", DescribeArg(call, 0), " has ", *a, ", ",
                             DescribeArg(call, 1), " has ", *b));
      }
    }
  }
  return TensorSI(Dims{}, dtype);
}

}  // namespace

void RegisterLossOps(OpRegistry& r) {
  r.Def("nn.nll_loss")
      .Describe(
          "Negative log-likelihood of integer targets under log-probabilities predictions (N, C, d...) or "
          "(C,), optionally weighted per class (a third argument); reduction \"mean\" divides by the total "
          "weight of the counted targets, as in PyTorch.")
      .Input("predictions")
      .Input("targets")
      .OptionalInput("weights")
      .Attr("reduction", AttrKind::kString, "mean", "\"mean\", \"sum\" or \"none\"")
      .Attr("ignore_index", AttrKind::kInt, -100, "targets equal to it count for nothing")
      .Set<FInferStructInfo>(InferNllLoss);
  r.Def("nn.cross_entropy_with_logits")
      .Describe(
          "-sum(labels * predictions) / N for predictions (N, C) (N = 1 for 1-D), a scalar, as in TVM: "
          "predictions are log-probabilities and labels probabilities of the same shape.")
      .Input("predictions")
      .Input("labels")
      .Set<FInferStructInfo>(InferCrossEntropyWithLogits);
}

}  // namespace rxt
