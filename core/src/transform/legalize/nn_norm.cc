/// Legalization of nn.batch_norm and nn.layer_norm. Statistics take two passes (the mean,
/// then the mean squared deviation: the population variance); the result is
/// (x - mean) / sqrt(var + epsilon) * gamma + beta. In training, batch_norm normalizes with
/// the batch statistics and returns moving statistics updated with momentum; the moving variance
/// takes the unbiased batch variance (times n / (n - 1), as PyTorch does) unless
/// unbiased_running_var is false (ONNX's rule: the population variance); in inference it uses and
/// returns the moving ones.
#include <algorithm>

#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;

/// Mean and population variance of x over the |reduced| dims, per element of the others, in
/// x's AccumulationDType (float64 for float32): normalizing with wide statistics keeps
/// x - mean exact where the channel mean is large next to its spread.
struct Moments {
  TensorRef mean, variance;
};

Moments ComputeMoments(KernelBuilder& kb, const TensorRef& x, const std::vector<bool>& reduced) {
  Dims kept, extents = ReducedDims(x.shape(), reduced);
  for (int d = 0; d < x.ndim(); ++d) {
    if (!reduced[d]) kept.push_back(x.dim(d));
  }
  DType wide = AccumulationDType(x.dtype());
  PrimExpr count = Cast(wide, ProductOf(extents));
  auto load = [&](const Index& i, const Index& r) { return Cast(wide, x(ReductionInputIndex(i, r, reduced, false))); };
  TensorRef sum = WideSum(kb, "sum", kept, extents, load);
  TensorRef mean = kb.Compute("mean", kept, [&](const Index& i) { return Div(sum(i), count); });
  TensorRef squares = WideSum(kb, "square_sum", kept, extents, [&](const Index& i, const Index& r) {
    PrimExpr d = load(i, r) - mean(i);
    return d * d;
  });
  TensorRef variance = kb.Compute("variance", kept, [&](const Index& i) { return Div(squares(i), count); });
  return {mean, variance};
}

/// (x - mean) / sqrt(variance + epsilon) * gamma + beta, computed in the statistics' dtype and
/// rounded once to x's.
PrimExpr Normalize(const PrimExpr& x, const PrimExpr& mean, const PrimExpr& variance, double epsilon,
                   const PrimExpr& gamma, const PrimExpr& beta) {
  DType w = mean->dtype;
  PrimExpr scaled = Div(Cast(w, x) - mean, Call("sqrt", variance + Const(epsilon, w))) * Cast(w, gamma);
  return Cast(x->dtype, scaled + Cast(w, beta));
}

Expr LegalizeBatchNorm(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputField(call, 0);
  RequireNumeric(call, out.dtype);
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef x = k.Tensor(0), gamma = k.Tensor(1), beta = k.Tensor(2), moving_mean = k.Tensor(3),
            moving_var = k.Tensor(4);
  int axis = infer::NormalizeAxis(call, 0, infer::IntAttr(call, "axis"), x.ndim());
  double epsilon = infer::FloatAttr(call, "epsilon"), momentum = infer::FloatAttr(call, "momentum");
  DType t = out.dtype;
  Dims channels = OutputField(call, 1).shape;

  TensorRef mean = moving_mean, variance = moving_var, running_mean = moving_mean, running_variance = moving_var;
  if (infer::BoolAttr(call, "training")) {
    std::vector<bool> reduced(x.ndim(), true);
    reduced[axis] = false;
    Moments moments = ComputeMoments(kb, x, reduced);
    mean = moments.mean;
    variance = moments.variance;
    running_mean = Narrow(kb, "batch_mean", mean, t);
    DType w = variance.dtype();
    // Bessel's correction n / (n - 1) unless ONNX's rule (the population variance) is asked.
    PrimExpr n = Cast(w, ProductOf(ReducedDims(x.shape(), reduced)));
    PrimExpr correction = infer::BoolAttr(call, "unbiased_running_var")
                              ? Div(n, Max(n - Const(1.0, w), Const(1.0, w)))
                              : Const(1.0, w);
    running_variance = kb.Compute("running_variance", channels,
                                  [&](const Index& c) { return Cast(t, variance(c) * correction); });
  }
  TensorRef result = kb.Compute("batch_norm", out.shape, [&](const Index& i) {
    Index c = {i[axis]};
    return Normalize(x(i), mean(c), variance(c), epsilon, gamma(c), beta(c));
  });
  auto update = [&](const char* name, const TensorRef& moving, const TensorRef& batch) {
    return kb.Compute(name, channels, [&](const Index& c) {
      if (moving.buffer() == batch.buffer()) return moving(c);  // inference: unchanged
      return Const(1 - momentum, t) * moving(c) + Const(momentum, t) * batch(c);
    });
  };
  TensorRef new_mean = update("new_mean", moving_mean, running_mean);
  TensorRef new_var = update("new_var", moving_var, running_variance);
  return k.Finish(context, {result, new_mean, new_var});
}

// gamma and beta are indexed by the normalized axes, in the order the call lists them.
Expr LegalizeLayerNorm(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef x = k.Tensor(0), gamma = k.Tensor(1), beta = k.Tensor(2);
  std::vector<int> axes = infer::NormalizeAxes(call, 0, infer::IntListAttr(call, "axes"), x.ndim());
  double epsilon = infer::FloatAttr(call, "epsilon");
  std::vector<bool> reduced(x.ndim(), false);
  for (int a : axes) reduced[a] = true;
  Moments moments = ComputeMoments(kb, x, reduced);
  TensorRef result = kb.Compute("layer_norm", out.shape, [&](const Index& i) {
    Index kept, param;
    for (int d = 0; d < x.ndim(); ++d) {
      if (!reduced[d]) kept.push_back(i[d]);
    }
    for (int a : axes) param.push_back(i[a]);
    return Normalize(x(i), moments.mean(kept), moments.variance(kept), epsilon, gamma(param), beta(param));
  });
  return k.Finish(context, {result});
}

}  // namespace

void RegisterNormLegalizations(OpRegistry& r) {
  SetLegalization(r, "nn.batch_norm", LegalizeBatchNorm);
  SetLegalization(r, "nn.layer_norm", LegalizeLayerNorm);
}

}  // namespace rxt::legalize
