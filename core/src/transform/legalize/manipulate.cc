/// Legalization of the shape manipulations: reshape, flatten, expand_dims and squeeze keep
/// the row-major order of the elements, so they become views of their input's storage (the
/// builtin `view`: no kernel, no copy); the others are copy kernels with an index map, and
/// collapse_sum_to is a reduction.
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

/// view(x, out_sinfo=the call's result): the same elements in the same order.
Expr LegalizeView(LegalizeContext&, const CallNode& call) {
  return MakeOpCall("view", {call.args[0]}, {}, {call.struct_info}, call.span);
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

Expr LegalizeBroadcastTo(LegalizeContext& context, const CallNode& call) {
  return LegalizeCopy(context, call, [](const TensorRef& x, const Dims& out, const Index& i) {
    return BroadcastIndex(i, out, x.shape());
  });
}

// |axis| are positions in the result.

// Sums the leading dims x has beyond the target, and the dims where the target is 1 and x
// is not (float sums in float64, as every sum: AccumulationDType).
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
  KernelBuilder& kb = k.builder();
  TensorRef wide = WideSum(
      kb, "collapse_sum_wide", out.shape, ReducedDims(x.shape(), reduced), [&](const Index& i, const Index& r) {
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
  return k.Finish(context, {Narrow(kb, "collapse_sum_to", wide, out.dtype)});
}

}  // namespace

void RegisterManipulateLegalizations(OpRegistry& r) {
  SetLegalization(r, "permute_dims", LegalizePermuteDims);
  SetLegalization(r, "reshape", LegalizeView);
  SetLegalization(r, "flatten", LegalizeView);
  SetLegalization(r, "broadcast_to", LegalizeBroadcastTo);
  SetLegalization(r, "collapse_sum_to", LegalizeCollapseSumTo);
  SetLegalization(r, "expand_dims", LegalizeView);
  SetLegalization(r, "squeeze", LegalizeView);
}

}  // namespace rxt::legalize
