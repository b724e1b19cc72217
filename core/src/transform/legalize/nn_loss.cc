/// Legalization of the losses. nll_loss: each target t counts -weights[t] * predictions[.., t, ..]
/// unless it equals ignore_index; "mean" divides by the total weight of the counted targets
/// (as PyTorch). Class indices are clamped into range before loading (never out of bounds).
/// cross_entropy_with_logits: -sum(labels * predictions) / N, N the batch (1 for 1-D).
#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;

Expr LegalizeNllLoss(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  std::string reduction = infer::StringAttr(call, "reduction");
  int64_t ignore_index = infer::IntAttr(call, "ignore_index");
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef predictions = k.Tensor(0), targets = k.Tensor(1);
  TensorRef weights = call.args.size() == 3 ? k.Tensor(2) : TensorRef();
  PrimExpr classes = predictions.ndim() == 1 ? predictions.dim(0) : predictions.dim(1);
  DType t = out.dtype;

  // For target position |j|: the class, whether it counts, and its weight.
  auto target_class = [&](const Index& j) { return Cast(DType::kInt64, targets(j)); };
  auto counts = [&](const Index& j) { return Ne(target_class(j), Int(ignore_index)); };
  auto class_weight = [&](const Index& j) {
    return weights.defined() ? weights({ClampIndex(target_class(j), classes)}) : One(t);
  };
  auto weight = [&](const Index& j) { return Select(counts(j), class_weight(j), Zero(t)); };
  auto loss = [&](const Index& j) {
    PrimExpr c = ClampIndex(target_class(j), classes);
    Index p = {c};
    if (predictions.ndim() > 1) {
      p = {j[0], c};
      p.insert(p.end(), j.begin() + 1, j.end());
    }
    PrimExpr weighted = weights.defined() ? class_weight(j) * predictions(p) : predictions(p);
    return Select(counts(j), Call("neg", weighted), Zero(t));
  };

  const Dims& target_shape = targets.shape();
  if (reduction == "none") {
    TensorRef result = kb.Compute("nll_loss", out.shape, loss);
    return k.Finish(context, {result});
  }
  auto over_targets = [](const std::function<PrimExpr(const Index&)>& f) {
    return [f](const Index&, const Index& r) { return f(r); };
  };
  TensorRef total = WideSum(kb, "loss_sum", {}, target_shape, over_targets(loss));
  if (reduction == "sum") return k.Finish(context, {Narrow(kb, "nll_loss", total, t)});
  TensorRef total_weight = WideSum(kb, "weight_sum", {}, target_shape, over_targets(weight));
  TensorRef mean =
      kb.Compute("nll_loss", {}, [&](const Index&) { return Cast(t, Div(total({}), total_weight({}))); });
  return k.Finish(context, {mean});
}

Expr LegalizeCrossEntropyWithLogits(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef predictions = k.Tensor(0), labels = k.Tensor(1);
  PrimExpr batch = predictions.ndim() == 1 ? Int(1) : predictions.dim(0);
  TensorRef sum = WideSum(kb, "sum", {}, predictions.shape(),
                          [&](const Index&, const Index& r) { return labels(r) * predictions(r); });
  TensorRef result = kb.Compute("cross_entropy_with_logits", {}, [&](const Index&) {
    return Cast(out.dtype, Div(Call("neg", sum({})), Cast(sum.dtype(), batch)));
  });
  return k.Finish(context, {result});
}

}  // namespace

void RegisterLossLegalizations(OpRegistry& r) {
  SetLegalization(r, "nn.nll_loss", LegalizeNllLoss);
  SetLegalization(r, "nn.cross_entropy_with_logits", LegalizeCrossEntropyWithLogits);
}

}  // namespace rxt::legalize
