/// Legalization of the shape manipulations: each is a copy kernel with an index map (reshape
/// and flatten go through the row-major position), except collapse_sum_to, a reduction.
#include <algorithm>

#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;

/// out[i] = x[map(i)], with x the call's first argument.
Expr LegalizeCopy(LegalizeContext& context, const CallNode& call, const std::function<Index(const TensorRef& x, const Dims& out, const Index& i)>& map) {
  OutputTensor out = OutputOf(call);
  KernelCall k(call);
  TensorRef x = k.Tensor(0);
  TensorRef result = k.builder().Compute(AsOp(call.callee)->name(), out.shape,
                                         [&](const Index& i) { return x(map(x, out.shape, i)); });
  return k.Finish(context, {result});
}

Expr LegalizePermuteDims(LegalizeContext& context, const CallNode& call) {
  std::optional<std::vector<int64_t>> axes = infer::OptionalIntListAttr(call, "axes");
  return LegalizeCopy(context, call, [&](const TensorRef& x, const Dims&, const Index& i) {
    std::vector<int> perm;
    if (axes) {
      perm = infer::NormalizeAxes(call, 0, *axes, x.ndim());
    } else {
      for (int k = x.ndim() - 1; k >= 0; --k) perm.push_back(k);
    }
    Index in(x.ndim());
    for (size_t k = 0; k < perm.size(); ++k) in[perm[k]] = i[k];
    return in;
  });
}

Index ThroughRowMajor(const TensorRef& x, const Dims& out, const Index& i) {
  return UnravelIndex(FlatIndex(i, out), x.shape());
}

Expr LegalizeBroadcastTo(LegalizeContext& context, const CallNode& call) {
  return LegalizeCopy(context, call, [](const TensorRef& x, const Dims& out, const Index& i) {
    return BroadcastIndex(i, out, x.shape());
  });
}

// |axis| are positions in the result.
Expr LegalizeExpandDims(LegalizeContext& context, const CallNode& call) {
  return LegalizeCopy(context, call, [&](const TensorRef&, const Dims& out, const Index& i) {
    std::vector<int> axes = infer::NormalizeAxes(call, 0, infer::IntListAttr(call, "axis"), static_cast<int>(out.size()));
    Index in;
    for (size_t k = 0; k < out.size(); ++k) {
      if (std::find(axes.begin(), axes.end(), static_cast<int>(k)) == axes.end()) in.push_back(i[k]);
    }
    return in;
  });
}

// The squeezed dims (the given ones, or every static 1) read index 0.
Expr LegalizeSqueeze(LegalizeContext& context, const CallNode& call) {
  std::optional<std::vector<int64_t>> axis = infer::OptionalIntListAttr(call, "axis");
  return LegalizeCopy(context, call, [&](const TensorRef& x, const Dims&, const Index& i) {
    std::vector<bool> squeezed(x.ndim(), false);
    if (axis) {
      for (int a : infer::NormalizeAxes(call, 0, *axis, x.ndim())) squeezed[a] = true;
    } else {
      for (int k = 0; k < x.ndim(); ++k) squeezed[k] = infer::StaticDim(x.dim(k)) == 1;
    }
    Index in;
    size_t next = 0;
    for (int k = 0; k < x.ndim(); ++k) in.push_back(squeezed[k] ? Int(0) : i[next++]);
    return in;
  });
}

// Sums the leading dims x has beyond the target, and the dims where the target is 1 and x
// is not.
Expr LegalizeCollapseSumTo(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  KernelCall k(call);
  TensorRef x = k.Tensor(0);
  size_t lead = x.ndim() - out.shape.size();
  std::vector<bool> reduced(x.ndim(), false);
  for (int d = 0; d < x.ndim(); ++d) {
    bool target_one = d >= static_cast<int>(lead) && infer::StaticDim(out.shape[d - lead]) == 1;
    reduced[d] = d < static_cast<int>(lead) || (target_one && infer::StaticDim(x.dim(d)) != 1);
  }
  TensorRef result = k.builder().Reduce(
      "collapse_sum_to", out.shape, ReducedDims(x.shape(), reduced), ReduceKind::kSum,
      [&](const Index& i, const Index& r) {
        Index in;
        size_t next_reduce = 0;
        for (int d = 0; d < x.ndim(); ++d) {
          if (reduced[d]) {
            in.push_back(r[next_reduce++]);
          } else {
            in.push_back(infer::StaticDim(x.dim(d)) == 1 ? Int(0) : i[d - lead]);
          }
        }
        return x(in);
      });
  return k.Finish(context, {result});
}

}  // namespace

void RegisterManipulateLegalizations(OpRegistry& r) {
  SetLegalization(r, "permute_dims", LegalizePermuteDims);
  SetLegalization(r, "reshape", [](LegalizeContext& context, const CallNode& call) {
    return LegalizeCopy(context, call, ThroughRowMajor);
  });
  SetLegalization(r, "flatten", [](LegalizeContext& context, const CallNode& call) {
    return LegalizeCopy(context, call, ThroughRowMajor);
  });
  SetLegalization(r, "broadcast_to", LegalizeBroadcastTo);
  SetLegalization(r, "collapse_sum_to", LegalizeCollapseSumTo);
  SetLegalization(r, "expand_dims", LegalizeExpandDims);
  SetLegalization(r, "squeeze", LegalizeSqueeze);
}

}  // namespace rxt::legalize
