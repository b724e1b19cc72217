/// Legalization of nn.batch_norm and nn.layer_norm. Statistics take two passes (the mean,
/// then the mean squared deviation: the population variance); the result is
/// (x - mean) / sqrt(var + epsilon) * gamma + beta (for batch_norm as x * scale + shift with both
/// per channel, in double for float32). In training, batch_norm normalizes with
/// the batch statistics and returns moving statistics updated with momentum; the moving variance
/// takes the unbiased batch variance (times n / (n - 1), as PyTorch does) unless
/// unbiased_running_var is false (ONNX's rule: the population variance); in inference it uses and
/// returns the moving ones.
#include <algorithm>
#include <functional>
#include <optional>

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

/// The sums of ComputeMoments in two stages when reduced dims come before a kept one and after
/// the last (batch normalization of NCHW: N, then H and W, around C): per element of the leading
/// dims, the sum over the trailing ones (innermost and contiguous; the nest's outer loop, over
/// N, runs in parallel), then the sum of those over the leading reduced dims (C innermost, which
/// the CPU backend vectorizes). One stage, each channel's sum is one serial loop over N, H, W.
struct SplitReduction {
  int suffix;                        // dims [suffix, ndim) are the trailing reduced ones
  std::vector<bool> leading_reduced;  // of dims [0, suffix)
};

std::optional<SplitReduction> SplitOf(const std::vector<bool>& reduced) {
  int suffix = static_cast<int>(reduced.size());
  while (suffix > 0 && reduced[suffix - 1]) --suffix;
  std::vector<bool> leading(reduced.begin(), reduced.begin() + suffix);
  if (suffix == static_cast<int>(reduced.size()) || std::find(leading.begin(), leading.end(), true) == leading.end()) {
    return std::nullopt;
  }
  return SplitReduction{suffix, leading};
}

/// sum over the reduced dims of fn(index of x), as a tensor over the kept dims (in the wide dtype).
TensorRef ReducedSum(KernelBuilder& kb, const std::string& name, const TensorRef& x, const std::vector<bool>& reduced,
                     const std::function<PrimExpr(const Index&)>& fn) {
  Dims kept, extents = ReducedDims(x.shape(), reduced);
  for (int d = 0; d < x.ndim(); ++d) {
    if (!reduced[d]) kept.push_back(x.dim(d));
  }
  std::optional<SplitReduction> split = SplitOf(reduced);
  if (!split) {
    return WideSum(kb, name, kept, extents,
                   [&](const Index& i, const Index& r) { return fn(ReductionInputIndex(i, r, reduced, false)); });
  }
  Dims leading(x.shape().begin(), x.shape().begin() + split->suffix);
  Dims trailing(x.shape().begin() + split->suffix, x.shape().end());
  TensorRef partial = WideSum(kb, "partial_" + name, leading, trailing, [&](const Index& i, const Index& r) {
    Index full = i;
    full.insert(full.end(), r.begin(), r.end());
    return fn(full);
  });
  return WideSum(kb, name, kept, ReducedDims(leading, split->leading_reduced), [&](const Index& i, const Index& r) {
    return partial(ReductionInputIndex(i, r, split->leading_reduced, false));
  });
}

Moments ComputeMoments(KernelBuilder& kb, const TensorRef& x, const std::vector<bool>& reduced) {
  DType wide = AccumulationDType(x.dtype());
  PrimExpr count = Cast(wide, ProductOf(ReducedDims(x.shape(), reduced)));
  auto kept_of = [&](const Index& full) {
    Index kept;
    for (int d = 0; d < x.ndim(); ++d) {
      if (!reduced[d]) kept.push_back(full[d]);
    }
    return kept;
  };
  auto load = [&](const Index& full) { return Cast(wide, x(full)); };
  TensorRef sum = ReducedSum(kb, "sum", x, reduced, load);
  TensorRef mean = kb.Compute("mean", sum.shape(), [&](const Index& i) { return Div(sum(i), count); });
  TensorRef squares = ReducedSum(kb, "square_sum", x, reduced, [&](const Index& full) {
    PrimExpr d = load(full) - mean(kept_of(full));
    return d * d;
  });
  TensorRef variance = kb.Compute("variance", sum.shape(), [&](const Index& i) { return Div(squares(i), count); });
  return {mean, variance};
}

/// (x - mean) / sqrt(variance + epsilon) * gamma + beta, computed in the statistics' dtype and
/// rounded once to x's (layer normalization; batch normalization scales per channel).
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
  // Per channel, wide: scale = gamma / sqrt(variance + epsilon), shift = beta - mean * scale;
  // each element is then one multiply-add, rounded once (no square root or division per element).
  DType w = AccumulationDType(t);
  TensorRef scale = kb.Compute("scale", channels, [&](const Index& c) {
    return Div(Cast(w, gamma(c)), Call("sqrt", Cast(w, variance(c)) + Const(epsilon, w)));
  });
  TensorRef shift = kb.Compute("shift", channels,
                               [&](const Index& c) { return Cast(w, beta(c)) - Cast(w, mean(c)) * scale(c); });
  TensorRef result = kb.Compute("batch_norm", out.shape, [&](const Index& i) {
    Index c = {i[axis]};
    return Cast(t, Cast(w, x(i)) * scale(c) + shift(c));
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
