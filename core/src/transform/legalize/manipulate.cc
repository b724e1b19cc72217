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

/// Splits static |in| and |out| dims into consecutive groups of equal element count: (64, 16, 5,
/// 5) -> (64, 400) gives {[0], [0]} and {[1, 3], [1, 2]} (half-open ranges). Empty when a dim is
/// symbolic or zero, or the products never meet.
struct DimGroup {
  size_t in_begin, in_end, out_begin, out_end;
};
std::vector<DimGroup> MatchingGroups(const Dims& in, const Dims& out) {
  std::vector<int64_t> a, b;
  for (const PrimExpr& d : in) a.push_back(infer::StaticDim(d).value_or(0));
  for (const PrimExpr& d : out) b.push_back(infer::StaticDim(d).value_or(0));
  if (std::count(a.begin(), a.end(), 0) > 0 || std::count(b.begin(), b.end(), 0) > 0) return {};
  std::vector<DimGroup> groups;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    DimGroup g{i, i, j, j};
    int64_t pa = 1, pb = 1;
    // Dims of 1 join the current group; a group closes when both products are equal.
    do {
      if (pa <= pb && g.in_end < a.size()) {
        pa *= a[g.in_end++];
      } else if (g.out_end < b.size()) {
        pb *= b[g.out_end++];
      } else {
        return {};
      }
    } while (pa != pb || (g.in_end < a.size() && a[g.in_end] == 1) || (g.out_end < b.size() && b[g.out_end] == 1));
    groups.push_back(g);
    i = g.in_end, j = g.out_end;
  }
  return groups;
}

/// Row-major reshape: the position in |out| read back in |x|'s shape. With static shapes each
/// group of dims is mapped on its own, so merged dims cost a sum and only split dims divide
/// (flattening (64, 16, 5, 5) to (64, 400) divides 400's index, not the whole position).
Index ThroughRowMajor(const TensorRef& x, const Dims& out, const Index& i) {
  std::vector<DimGroup> groups = MatchingGroups(x.shape(), out);
  if (groups.empty()) return UnravelIndex(FlatIndex(i, out), x.shape());
  Index in;
  for (const DimGroup& g : groups) {
    Index out_part(i.begin() + g.out_begin, i.begin() + g.out_end);
    Dims out_dims(out.begin() + g.out_begin, out.begin() + g.out_end);
    Dims in_dims(x.shape().begin() + g.in_begin, x.shape().begin() + g.in_end);
    PrimExpr flat = out_part.size() == 1 ? out_part[0] : FlatIndex(out_part, out_dims);
    Index in_part = in_dims.size() == 1 ? Index{flat} : UnravelIndex(flat, in_dims);
    in.insert(in.end(), in_part.begin(), in_part.end());
  }
  return in;
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
