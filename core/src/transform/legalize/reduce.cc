/// Legalization of the reductions, cumsum and softmax / log_softmax. Float sums accumulate in
/// float64 (AccumulationDType); products in the input's dtype (as PyTorch's); mean and variance
/// divide a sum by the count of reduced elements; variance takes two passes (the mean, then the
/// mean squared deviation), both wide; argmax finds the maximum, then its first position;
/// cumsum is a wide sum over the axis of the positions each element takes; the softmaxes
/// subtract the maximum before exponentiating (numerically stable).
#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;

/// What a reduction over some axes of x needs: its input, which axes, the result.
///
/// The stages reduce into the result's shape without keepdims' unit dims (StageShape), and a
/// last stage puts those back: so the loop of the last kept dim directly encloses the reduction
/// loops (`for c { for n, h, w: s[c] += x[n, c, h, w] }`, not `for c { for 1 { for 1 { ... } } }`),
/// which ParallelizeLoops then marks and the CPU backend interchanges with the reduction
/// (batch normalization's gradient takes its statistics with keepdims). The order of each
/// element's terms is the same either way.
struct Reduction {
  TensorRef x;
  std::vector<bool> reduced;
  bool keepdims = false;
  OutputTensor out;

  Dims Extents() const { return ReducedDims(x.shape(), reduced); }
  /// x at stage index |i| (StageShape) and reduction index |r|.
  PrimExpr Load(const Index& i, const Index& r) const { return x(ReductionInputIndex(i, r, reduced, false)); }
  /// The number of reduced elements, as |dtype|.
  PrimExpr Count(DType dtype) const { return Cast(dtype, ProductOf(Extents())); }
  Dims StageShape() const { return keepdims ? KeptDims(out.shape) : out.shape; }
  /// The stage index of the result's index |i|.
  Index ToStage(const Index& i) const { return keepdims ? KeptDims(i) : i; }
  /// |stage| (over StageShape) as the result: cast to the result's dtype, keepdims' unit dims back.
  TensorRef Result(KernelBuilder& kb, const std::string& name, const TensorRef& stage) const {
    if (!keepdims) return Narrow(kb, name, stage, out.dtype);
    return kb.Compute(name, out.shape, [&](const Index& i) { return Cast(out.dtype, stage(ToStage(i))); });
  }

 private:
  template <typename T>
  std::vector<T> KeptDims(const std::vector<T>& all) const {
    std::vector<T> kept;
    for (size_t d = 0; d < all.size() && d < reduced.size(); ++d) {
      if (!reduced[d]) kept.push_back(all[d]);
    }
    return kept;
  }
};

Reduction ReadReduction(KernelCall& k, const CallNode& call, const std::optional<std::vector<int64_t>>& axes) {
  Reduction red;
  red.out = OutputOf(call);
  red.x = k.Tensor(0);
  red.reduced = AxisMask(call, red.x.ndim(), axes);
  red.keepdims = infer::BoolAttr(call, "keepdims");
  return red;
}

FLegalize Reducer(ReduceKind kind) {
  return [kind](LegalizeContext& context, const CallNode& call) {
    KernelCall k(call);
    Reduction red = ReadReduction(k, call, infer::OptionalIntListAttr(call, "axis"));
    RequireNumeric(call, red.out.dtype);
    KernelBuilder& kb = k.builder();
    auto load = [&](const Index& i, const Index& r) { return red.Load(i, r); };
    std::string name = AsOp(call.callee)->name();
    if (kind == ReduceKind::kSum) {
      TensorRef wide = WideSum(kb, name + "_wide", red.StageShape(), red.Extents(), load);
      return k.Finish(context, {red.Result(kb, name, wide)});
    }
    if (!red.keepdims) return k.Finish(context, {kb.Reduce(name, red.out.shape, red.Extents(), kind, load)});
    TensorRef stage = kb.Reduce(name + "_kept", red.StageShape(), red.Extents(), kind, load);
    return k.Finish(context, {red.Result(kb, name, stage)});
  };
}

Expr LegalizeMean(LegalizeContext& context, const CallNode& call) {
  KernelCall k(call);
  Reduction red = ReadReduction(k, call, infer::OptionalIntListAttr(call, "axis"));
  RequireNumeric(call, red.out.dtype);
  KernelBuilder& kb = k.builder();
  TensorRef sum = WideSum(kb, "sum", red.StageShape(), red.Extents(),
                          [&](const Index& i, const Index& r) { return red.Load(i, r); });
  TensorRef mean = kb.Compute("mean", red.out.shape, [&](const Index& i) {
    return Cast(red.out.dtype, Div(sum(red.ToStage(i)), red.Count(sum.dtype())));
  });
  return k.Finish(context, {mean});
}

Expr LegalizeVariance(LegalizeContext& context, const CallNode& call) {
  KernelCall k(call);
  Reduction red = ReadReduction(k, call, infer::OptionalIntListAttr(call, "axis"));
  RequireNumeric(call, red.out.dtype);
  KernelBuilder& kb = k.builder();
  DType wide = AccumulationDType(red.out.dtype);
  auto load = [&](const Index& i, const Index& r) { return Cast(wide, red.Load(i, r)); };
  Dims stage = red.StageShape();
  TensorRef sum = WideSum(kb, "sum", stage, red.Extents(), load);
  TensorRef mean = kb.Compute("mean", stage, [&](const Index& i) { return Div(sum(i), red.Count(wide)); });
  TensorRef squares = WideSum(kb, "square_sum", stage, red.Extents(), [&](const Index& i, const Index& r) {
    PrimExpr d = load(i, r) - mean(i);
    return d * d;
  });
  TensorRef variance = kb.Compute("variance", red.out.shape, [&](const Index& i) {
    return Cast(red.out.dtype, Div(squares(red.ToStage(i)), red.Count(wide)));
  });
  return k.Finish(context, {variance});
}

// The first position of the maximum; a NaN counts as the maximum (as in NumPy).
Expr LegalizeArgmax(LegalizeContext& context, const CallNode& call) {
  std::optional<int64_t> axis = infer::OptionalIntAttr(call, "axis");
  std::optional<std::vector<int64_t>> axes;
  if (axis) axes = std::vector<int64_t>{*axis};
  KernelCall k(call);
  Reduction red = ReadReduction(k, call, axes);
  KernelBuilder& kb = k.builder();
  auto value = [&](const Index& i, const Index& r) {
    PrimExpr v = red.Load(i, r);
    return v->dtype == DType::kBool ? Cast(DType::kInt8, v) : v;
  };
  TensorRef max = kb.Reduce("max", red.StageShape(), red.Extents(), ReduceKind::kMax, value);
  Dims extents = red.Extents();
  TensorRef position = kb.Reduce(
      red.keepdims ? "argmax_kept" : "argmax", red.StageShape(), extents, ReduceKind::kMin, [&](const Index& i, const Index& r) {
        PrimExpr v = value(i, r);
        PrimExpr is_max = Eq(v, max(i));
        if (IsFloat(v->dtype)) is_max = Or(is_max, Call("isnan", v));
        return Select(is_max, FlatIndex(r, extents), HighestValue(DType::kInt64));
      });
  return k.Finish(context, {red.keepdims ? red.Result(kb, "argmax", position) : position});
}

// Element i of the result sums the x[k] along the axis that the flags select: k <= i, k < i
// (exclusive), k >= i (reverse), k > i (both). Each element reduces the whole axis, so a line
// of n costs O(n^2) work: simple, since stages cannot carry a running sum from one element to
// the next (a scan would be O(n)).
Expr LegalizeCumsum(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  KernelCall k(call);
  TensorRef x = k.Tensor(0);
  int axis = infer::NormalizeAxis(call, 0, infer::IntAttr(call, "axis"), x.ndim());
  bool exclusive = infer::BoolAttr(call, "exclusive"), reverse = infer::BoolAttr(call, "reverse");
  KernelBuilder& kb = k.builder();
  TensorRef wide = WideSum(kb, "cumsum_wide", out.shape, {x.dim(axis)}, [&](const Index& i, const Index& r) {
    PrimExpr at = r[0], pos = i[axis];
    PrimExpr taken = reverse ? (exclusive ? Gt(at, pos) : Ge(at, pos)) : (exclusive ? Lt(at, pos) : Le(at, pos));
    Index source = i;
    source[axis] = at;
    return Select(taken, x(source), Zero(x.dtype()));
  });
  return k.Finish(context, {Narrow(kb, "cumsum", wide, out.dtype)});
}

// log_softmax(x) = x - max - log(sum(exp(x - max))); softmax = exp(x - max) / sum(...), whose
// exponentials are a stage of their own (a local buffer) that the sum and the division both
// read: one exp (a libm call) per element instead of two, the same values in the same order
// (the attention of a transformer encoder, 128 x 32 x 32: 1.26 -> 0.94 ms at 1 thread).
FLegalize Softmax(bool log) {
  return [log](LegalizeContext& context, const CallNode& call) {
    OutputTensor out = OutputOf(call);
    KernelCall k(call);
    TensorRef x = k.Tensor(0);
    int axis = infer::NormalizeAxis(call, 0, infer::IntAttr(call, "axis"), x.ndim());
    std::vector<bool> reduced(x.ndim(), false);
    reduced[axis] = true;
    Dims rest = x.shape();
    rest.erase(rest.begin() + axis);
    auto load = [&](const Index& i, const Index& r) { return x(ReductionInputIndex(i, r, reduced, false)); };
    auto without_axis = [&](const Index& i) {
      Index j = i;
      j.erase(j.begin() + axis);
      return j;
    };
    KernelBuilder& kb = k.builder();
    TensorRef max = kb.Reduce("max", rest, {x.dim(axis)}, ReduceKind::kMax, load);
    if (!log) {
      TensorRef exp = kb.Compute("exp", x.shape(), [&](const Index& i) { return Call("exp", x(i) - max(without_axis(i))); });
      TensorRef sum = WideSum(kb, "exp_sum", rest, {x.dim(axis)}, [&](const Index& i, const Index& r) {
        return exp(ReductionInputIndex(i, r, reduced, false));
      });
      TensorRef result = kb.Compute("softmax", out.shape, [&](const Index& i) {
        return Div(exp(i), Cast(out.dtype, sum(without_axis(i))));  // the sum rounded once
      });
      return k.Finish(context, {result});
    }
    TensorRef sum = WideSum(kb, "exp_sum", rest, {x.dim(axis)},
                            [&](const Index& i, const Index& r) { return Call("exp", load(i, r) - max(i)); });
    TensorRef result = kb.Compute("log_softmax", out.shape, [&](const Index& i) {
      Index j = without_axis(i);
      return x(i) - max(j) - Cast(out.dtype, Call("log", sum(j)));  // log(sum) rounded once
    });
    return k.Finish(context, {result});
  };
}

}  // namespace

void RegisterReduceLegalizations(OpRegistry& r) {
  SetLegalization(r, "sum", Reducer(ReduceKind::kSum));
  SetLegalization(r, "max", Reducer(ReduceKind::kMax));
  SetLegalization(r, "min", Reducer(ReduceKind::kMin));
  SetLegalization(r, "prod", Reducer(ReduceKind::kProd));
  SetLegalization(r, "mean", LegalizeMean);
  SetLegalization(r, "variance", LegalizeVariance);
  SetLegalization(r, "argmax", LegalizeArgmax);
  SetLegalization(r, "cumsum", LegalizeCumsum);
  SetLegalization(r, "softmax", Softmax(false));
  SetLegalization(r, "log_softmax", Softmax(true));
}

}  // namespace rxt::legalize
