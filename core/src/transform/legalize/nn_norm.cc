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

/// Mean and population variance of x over the |reduced| dims, per element of the others.
struct Moments {
  TensorRef mean, variance;
};

Moments ComputeMoments(KernelBuilder& kb, const TensorRef& x, const std::vector<bool>& reduced) {
  Dims kept, extents = ReducedDims(x.shape(), reduced);
  for (int d = 0; d < x.ndim(); ++d) {
    if (!reduced[d]) kept.push_back(x.dim(d));
  }
  DType dtype = x.dtype();
  PrimExpr count = Cast(dtype, ProductOf(extents));
  auto load = [&](const Index& i, const Index& r) { return x(ReductionInputIndex(i, r, reduced, false)); };
  TensorRef sum = kb.Reduce("sum", kept, extents, ReduceKind::kSum, load);
  TensorRef mean = kb.Compute("mean", kept, [&](const Index& i) { return Div(sum(i), count); });
  TensorRef squares = kb.Reduce("square_sum", kept, extents, ReduceKind::kSum, [&](const Index& i, const Index& r) {
    PrimExpr d = load(i, r) - mean(i);
    return d * d;
  });
  TensorRef variance = kb.Compute("variance", kept, [&](const Index& i) { return Div(squares(i), count); });
  return {mean, variance};
}

PrimExpr Normalize(const PrimExpr& x, const PrimExpr& mean, const PrimExpr& variance, double epsilon,
                   const PrimExpr& gamma, const PrimExpr& beta) {
  DType t = x->dtype;
  return Div(x - mean, Call("sqrt", variance + Const(epsilon, t))) * gamma + beta;
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

  TensorRef mean = moving_mean, variance = moving_var, running_variance = moving_var;
  if (infer::BoolAttr(call, "training")) {
    std::vector<bool> reduced(x.ndim(), true);
    reduced[axis] = false;
    Moments moments = ComputeMoments(kb, x, reduced);
    mean = moments.mean;
    variance = running_variance = moments.variance;
    if (infer::BoolAttr(call, "unbiased_running_var")) {
      // Bessel's correction n / (n - 1); one value per channel keeps the population variance.
      PrimExpr n = Cast(t, ProductOf(ReducedDims(x.shape(), reduced)));
      PrimExpr correction = Div(n, Max(n - Const(1.0, t), Const(1.0, t)));
      running_variance = kb.Compute("unbiased_variance", channels,
                                    [&](const Index& c) { return moments.variance(c) * correction; });
    }
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
  TensorRef new_mean = update("new_mean", moving_mean, mean);
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
