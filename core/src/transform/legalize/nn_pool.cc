/// Legalization of 2-D pooling. Windows start at out * stride - pad_before and step by the
/// dilation; positions outside the input never win a max and add nothing to a sum. The
/// average divides by the window positions inside the input (count_include_pad: inside the
/// padded input), counted by a small (out_h, out_w) stage. Adaptive pooling uses PyTorch's
/// windows [floor(o * in / out), ceil((o + 1) * in / out)). Average pooling sums its windows
/// in float64 (WideSum; a global average over a large map is a long sum); the backward ops add
/// a few window shares per element, in the dtype.
///
/// The backward ops gather rather than scatter: input element h sums over the window
/// positions k whose output o (o * stride - pad + k * dilation = h) exists. max_pool2d's
/// gradient goes to each window's first maximum, found by a stage holding the first window
/// position equal to the window's maximum; when the windows tile the input (stride = window,
/// the usual 2x2 pooling) an input element is in one window only and takes its gradient
/// without a loop over window positions. Windows of up to kMaxLoadedWindow positions are
/// read with one load per position instead of reduction loops (max pooling and the first
/// maxima).
#include <algorithm>
#include <tuple>
#include <utility>

#include "../../op/nn_window.h"
#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;

// Windows of up to this many positions are read by one spatial stage that loads every
// position (no reduction loops: an unrolled chain of max); larger ones are reduced over.
constexpr int64_t kMaxLoadedWindow = 16;

struct Pooling {
  std::array<int64_t, 2> size, strides, dilation;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  infer::Layout2D layout;

  bool ceil_mode;

  /// Read from the attributes of |call| (a pooling or pooling backward op).
  explicit Pooling(const CallNode& call)
      : size(infer::PairAttr(call, "pool_size", 1)),
        strides(infer::PairAttr(call, "strides", 1)),
        dilation(infer::PairAttr(call, "dilation", 1)),
        pad(infer::PaddingAttr(call, "padding")),
        layout(infer::LayoutAttr(call, "layout", {"NCHW", "NHWC"})),
        ceil_mode(infer::BoolAttr(call, "ceil_mode")) {}

  /// The window dims that may leave the input: with padding, or rounded up by ceil_mode
  /// (otherwise every window fits, by the output size's definition).
  std::vector<int> MayLeaveInput() const {
    std::vector<int> dims;
    if (ceil_mode || pad[0] || pad[2]) dims.push_back(layout.h);
    if (ceil_mode || pad[1] || pad[3]) dims.push_back(layout.w);
    return dims;
  }
  /// Element (kh, kw) of the window of output element |i|, or |fill| outside the input.
  PrimExpr Load(const TensorRef& data, const Index& i, const Index& r, const PrimExpr& fill) const {
    return LoadOr(data, DataIndex(i, r), fill, MayLeaveInput());
  }

  /// Input row (dim 0) or column (dim 1) of window position |k| of output position |o|.
  PrimExpr InputPos(int dim, const PrimExpr& o, const PrimExpr& k) const {
    return o * Int(strides[dim]) - Int(pad[dim]) + k * Int(dilation[dim]);
  }
  /// The data index of window position (kh, kw) of output element |i|.
  Index DataIndex(const Index& i, const Index& r) const {
    Index in = i;
    in[layout.h] = InputPos(0, i[layout.h], r[0]);
    in[layout.w] = InputPos(1, i[layout.w], r[1]);
    return in;
  }
  Dims Window() const { return {Int(size[0]), Int(size[1])}; }
  /// Every element of the window of output element |i|, row-major (the lowest value outside
  /// the input).
  std::vector<PrimExpr> LoadWindow(const TensorRef& data, const Index& i, DType dtype) const {
    std::vector<PrimExpr> window;
    for (int64_t kh = 0; kh < size[0]; ++kh) {
      for (int64_t kw = 0; kw < size[1]; ++kw) window.push_back(Load(data, i, {Int(kh), Int(kw)}, LowestValue(dtype)));
    }
    return window;
  }
  /// The maximum of |window| as the max reduction combines it (a NaN wins).
  static PrimExpr WindowMaximum(const std::vector<PrimExpr>& window) {
    PrimExpr maximum = window[0];
    for (size_t k = 1; k < window.size(); ++k) maximum = Max(maximum, window[k]);
    return maximum;
  }

  /// The output row (dim 0) or column (dim 1) whose window position |k| reads input position
  /// |h|, clamped into [0, extent), and whether it exists.
  std::pair<PrimExpr, PrimExpr> OutputPos(int dim, const PrimExpr& h, const PrimExpr& k,
                                          const PrimExpr& extent) const {
    PrimExpr shifted = h + Int(pad[dim]) - k * Int(dilation[dim]);
    if (strides[dim] == 1) return {ClampIndex(shifted, extent), InRange(shifted, Int(0), extent)};
    PrimExpr o = FloorDiv(shifted, Int(strides[dim]));
    PrimExpr hit = And(Eq(FloorMod(shifted, Int(strides[dim])), Int(0)), InRange(o, Int(0), extent));
    return {ClampIndex(o, extent), hit};
  }
  /// Without dilation, input position |h| lies in the windows of outputs floor((h + pad) /
  /// stride) - j for j < ceil(size / stride) only (Candidates): output |j| of those, clamped
  /// into [0, extent), the window position it reads |h| at, and whether it exists and reaches h.
  /// A backward pass then visits ceil(size / stride)^2 outputs per input element (4 for 3x3
  /// windows at stride 2), not every window position with a divisibility test (9).
  std::tuple<PrimExpr, PrimExpr, PrimExpr> CandidateOutput(int dim, const PrimExpr& h, const PrimExpr& j,
                                                           const PrimExpr& extent) const {
    PrimExpr shifted = h + Int(pad[dim]);
    PrimExpr o = (strides[dim] == 1 ? shifted : FloorDiv(shifted, Int(strides[dim]))) - j;
    PrimExpr k = shifted - o * Int(strides[dim]);
    return {ClampIndex(o, extent), k, And(InRange(o, Int(0), extent), Lt(k, Int(size[dim])))};
  }
  Dims Candidates() const {
    return {Int((size[0] + strides[0] - 1) / strides[0]), Int((size[1] + strides[1] - 1) / strides[1])};
  }
  bool Undilated() const { return dilation == std::array<int64_t, 2>{1, 1}; }
  /// For input element |i| and candidate |j| (Candidates): the output element, the row-major
  /// window position |i| has in it, and whether that output exists and its window holds |i|.
  std::tuple<Index, PrimExpr, PrimExpr> CandidateOfInput(const Index& i, const Index& j, const Dims& out) const {
    auto [oh, kh, hit_h] = CandidateOutput(0, i[layout.h], j[0], out[layout.h]);
    auto [ow, kw, hit_w] = CandidateOutput(1, i[layout.w], j[1], out[layout.w]);
    Index o = i;
    o[layout.h] = oh;
    o[layout.w] = ow;
    return {o, kh * Int(size[1]) + kw, And(hit_h, hit_w)};
  }
  /// Whether the windows tile the input: stride = window, no dilation, no padding. Then input
  /// position h is in the window of output h / stride only, at position h % stride.
  bool WindowsTile() const {
    return strides == size && dilation == std::array<int64_t, 2>{1, 1} && pad == std::array<int64_t, 4>{0, 0, 0, 0};
  }
  /// For tiling windows (WindowsTile) and input element |i|: the output element whose window
  /// holds it, its row-major position in that window, and whether that output exists (null
  /// when it always does: the input's dims are known to be covered by |pooled|'s windows).
  std::tuple<Index, PrimExpr, PrimExpr> TileOfInput(const Index& i, const Dims& pooled, const Dims& in) const {
    Index o = i;
    PrimExpr position, exists;
    for (int dim = 0; dim < 2; ++dim) {
      int axis = dim == 0 ? layout.h : layout.w;
      PrimExpr q = FloorDiv(i[axis], Int(strides[dim]));
      PrimExpr k = i[axis] - q * Int(strides[dim]);
      position = dim == 0 ? k * Int(size[1]) : position + k;
      std::optional<int64_t> n = infer::StaticDim(in[axis]), m = infer::StaticDim(pooled[axis]);
      if (n && m && *n <= *m * strides[dim]) {
        o[axis] = q;
        continue;
      }
      o[axis] = ClampIndex(q, pooled[axis]);
      PrimExpr inside = Lt(q, pooled[axis]);
      exists = exists ? And(exists, inside) : inside;
    }
    return {o, position, exists};
  }
  /// For input element |i| and window position |r|: the output element whose window reads
  /// it there, and whether there is one (|out| the output's shape).
  std::pair<Index, PrimExpr> OutputOfInput(const Index& i, const Index& r, const Dims& out) const {
    auto [oh, hit_h] = OutputPos(0, i[layout.h], r[0], out[layout.h]);
    auto [ow, hit_w] = OutputPos(1, i[layout.w], r[1], out[layout.w]);
    Index o = i;
    o[layout.h] = oh;
    o[layout.w] = ow;
    return {o, And(hit_h, hit_w)};
  }
};

/// How many window positions of each output (out_h, out_w) count for the average: inside the
/// input, or with count_include_pad inside the padded input.
TensorRef WindowCounts(KernelBuilder& kb, const Pooling& p, bool include_pad, const PrimExpr& height,
                       const PrimExpr& width, const Dims& out_shape, DType dtype) {
  Dims positions = {out_shape[p.layout.h], out_shape[p.layout.w]};
  return kb.Reduce("count", positions, p.Window(), ReduceKind::kSum, [&](const Index& o, const Index& r) {
    PrimExpr h = p.InputPos(0, o[0], r[0]), w = p.InputPos(1, o[1], r[1]);
    PrimExpr inside = include_pad ? And(InRange(h, Int(-p.pad[0]), height + Int(p.pad[2])),
                                        InRange(w, Int(-p.pad[1]), width + Int(p.pad[3])))
                                  : And(InRange(h, Int(0), height), InRange(w, Int(0), width));
    return Select(inside, One(dtype), Zero(dtype));
  });
}

Expr LegalizeMaxPool2d(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  Pooling p(call);
  KernelCall k(call);
  TensorRef data = k.Tensor(0);
  if (p.size[0] * p.size[1] <= kMaxLoadedWindow) {
    TensorRef result = k.builder().Compute("max_pool2d", out.shape, [&](const Index& i) {
      return p.WindowMaximum(p.LoadWindow(data, i, out.dtype));
    });
    return k.Finish(context, {result});
  }
  TensorRef result = k.builder().Reduce("max_pool2d", out.shape, p.Window(), ReduceKind::kMax,
                                        [&](const Index& i, const Index& r) {
                                          return p.Load(data, i, r, LowestValue(out.dtype));
                                        });
  return k.Finish(context, {result});
}

Expr LegalizeAvgPool2d(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  Pooling p(call);
  bool include_pad = infer::BoolAttr(call, "count_include_pad");
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef data = k.Tensor(0);
  PrimExpr height = data.dim(p.layout.h), width = data.dim(p.layout.w);
  TensorRef sum = WideSum(kb, "sum", out.shape, p.Window(), [&](const Index& i, const Index& r) {
    return p.Load(data, i, r, Zero(out.dtype));
  });
  TensorRef count = WindowCounts(kb, p, include_pad, height, width, out.shape, out.dtype);
  TensorRef result = kb.Compute("avg_pool2d", out.shape, [&](const Index& i) {
    return Cast(out.dtype, Div(sum(i), Cast(sum.dtype(), count({i[p.layout.h], i[p.layout.w]}))));
  });
  return k.Finish(context, {result});
}

// PyTorch's adaptive windows along one dim of |in| inputs and |out| outputs.
PrimExpr WindowStart(const PrimExpr& o, const PrimExpr& in, const PrimExpr& out) { return FloorDiv(o * in, out); }
PrimExpr WindowEnd(const PrimExpr& o, const PrimExpr& in, const PrimExpr& out) {
  return FloorDiv((o + Int(1)) * in + out - Int(1), out);
}
/// The largest window: exact for static sizes, else a bound (ceil(in / out) + 1).
PrimExpr LargestWindow(const PrimExpr& in, const PrimExpr& out) {
  std::optional<int64_t> n = infer::StaticDim(in), m = infer::StaticDim(out);
  if (n && m) {
    int64_t largest = 1;
    for (int64_t o = 0; o < *m; ++o) largest = std::max(largest, ((o + 1) * *n + *m - 1) / *m - o * *n / *m);
    return Int(largest);
  }
  return FloorDiv(in + out - Int(1), out) + Int(1);
}

Expr LegalizeAdaptiveAvgPool2d(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  infer::Layout2D layout = infer::LayoutAttr(call, "layout", {"NCHW", "NHWC"});
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef data = k.Tensor(0);
  PrimExpr in_h = data.dim(layout.h), in_w = data.dim(layout.w);
  PrimExpr out_h = out.shape[layout.h], out_w = out.shape[layout.w];
  auto window = [&](const Index& i) {
    return std::array<PrimExpr, 4>{WindowStart(i[layout.h], in_h, out_h), WindowEnd(i[layout.h], in_h, out_h),
                                   WindowStart(i[layout.w], in_w, out_w), WindowEnd(i[layout.w], in_w, out_w)};
  };
  TensorRef sum = WideSum(kb, "sum", out.shape, {LargestWindow(in_h, out_h), LargestWindow(in_w, out_w)},
                          [&](const Index& i, const Index& r) {
                              auto [h0, h1, w0, w1] = window(i);
                              Index in = i;
                              in[layout.h] = ClampIndex(h0 + r[0], in_h);
                              in[layout.w] = ClampIndex(w0 + r[1], in_w);
                              PrimExpr inside = And(Lt(r[0], h1 - h0), Lt(r[1], w1 - w0));
                              return Select(inside, data(in), Zero(out.dtype));
                            });
  TensorRef result = kb.Compute("adaptive_avg_pool2d", out.shape, [&](const Index& i) {
    auto [h0, h1, w0, w1] = window(i);
    return Cast(out.dtype, Div(sum(i), Cast(sum.dtype(), (h1 - h0) * (w1 - w0))));
  });
  return k.Finish(context, {result});
}

/// For each output element: the first window position (row-major) holding the window's
/// maximum, or the window size when none does (a NaN maximum). Small windows load every
/// position in one spatial stage (no reduction loops, and its selects choose between
/// constants); larger windows take two reductions.
TensorRef FirstMaximum(KernelBuilder& kb, const Pooling& p, const TensorRef& data, const Dims& pooled, DType dtype) {
  const int64_t positions = p.size[0] * p.size[1];
  if (positions <= kMaxLoadedWindow) {
    return kb.Compute("first_max", pooled, [&](const Index& i) {
      std::vector<PrimExpr> window = p.LoadWindow(data, i, dtype);
      PrimExpr maximum = Pooling::WindowMaximum(window);
      PrimExpr first = Int(positions);
      for (size_t k = 0; k < window.size(); ++k) {
        first = Min(first, Select(Eq(window[k], maximum), Int(static_cast<int64_t>(k)), Int(positions)));
      }
      return Cast(DType::kInt32, first);  // half the bytes for the stage that reads it per element
    });
  }
  TensorRef maxima = kb.Reduce("max", pooled, p.Window(), ReduceKind::kMax, [&](const Index& i, const Index& r) {
    return p.Load(data, i, r, LowestValue(dtype));
  });
  return kb.Reduce("argmax", pooled, p.Window(), ReduceKind::kMin, [&](const Index& i, const Index& r) {
    PrimExpr position = r[0] * Int(p.size[1]) + r[1];
    return Select(Eq(p.Load(data, i, r, LowestValue(dtype)), maxima(i)), position, Int(positions));
  });
}

// (output_grad, data): each window's first maximum (FirstMaximum, a stage into a local buffer),
// then every input element gathers the gradients of the windows whose first maximum it is.
// The last stage is spatial, so FuseOps inlines it into a consumer (the ReLU gradient's where)
// and keeps the first stage before it.
Expr LegalizeMaxPool2dBackward(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  Pooling p(call);
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef grad = k.Tensor(0), data = k.Tensor(1);
  const Dims& pooled = grad.shape();
  TensorRef first = FirstMaximum(kb, p, data, pooled, out.dtype);
  if (p.WindowsTile()) {
    // Each input element lies in one window at most: no reduction over window positions.
    TensorRef result = kb.Compute("max_pool2d_backward", out.shape, [&](const Index& i) {
      auto [o, position, exists] = p.TileOfInput(i, pooled, out.shape);
      PrimExpr mine = Eq(Cast(DType::kInt64, first(o)), position);
      return Select(exists ? And(exists, mine) : mine, grad(o), Zero(out.dtype));
    });
    return k.Finish(context, {result});
  }
  if (p.Undilated()) {
    TensorRef result = kb.Reduce("max_pool2d_backward", out.shape, p.Candidates(), ReduceKind::kSum,
                                 [&](const Index& i, const Index& j) {
                                   auto [o, position, hit] = p.CandidateOfInput(i, j, pooled);
                                   PrimExpr mine = Eq(Cast(DType::kInt64, first(o)), position);
                                   return Select(And(hit, mine), grad(o), Zero(out.dtype));
                                 });
    return k.Finish(context, {result});
  }
  TensorRef result = kb.Reduce("max_pool2d_backward", out.shape, p.Window(), ReduceKind::kSum,
                               [&](const Index& i, const Index& r) {
                                 auto [o, hit] = p.OutputOfInput(i, r, pooled);
                                 PrimExpr mine = Eq(Cast(DType::kInt64, first(o)), r[0] * Int(p.size[1]) + r[1]);
                                 return Select(And(hit, mine), grad(o), Zero(out.dtype));
                               });
  return k.Finish(context, {result});
}

Expr LegalizeAvgPool2dBackward(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  Pooling p(call);
  bool include_pad = infer::BoolAttr(call, "count_include_pad");
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef grad = k.Tensor(0), data = k.Tensor(1);
  const Dims& pooled = grad.shape();
  TensorRef count = WindowCounts(kb, p, include_pad, data.dim(p.layout.h), data.dim(p.layout.w), pooled, out.dtype);
  TensorRef result = kb.Reduce("avg_pool2d_backward", out.shape, p.Window(), ReduceKind::kSum,
                               [&](const Index& i, const Index& r) {
                                 auto [o, hit] = p.OutputOfInput(i, r, pooled);
                                 PrimExpr share = Div(grad(o), count({o[p.layout.h], o[p.layout.w]}));
                                 return Select(hit, share, Zero(out.dtype));
                               });
  return k.Finish(context, {result});
}

// Input position h lies in the windows of outputs floor(h * out / in) + j for j below a
// bound (the most windows one input can be in); each is checked exactly.
Expr LegalizeAdaptiveAvgPool2dBackward(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  infer::Layout2D layout = infer::LayoutAttr(call, "layout", {"NCHW", "NHWC"});
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef grad = k.Tensor(0);
  PrimExpr in_h = out.shape[layout.h], in_w = out.shape[layout.w];
  PrimExpr out_h = grad.dim(layout.h), out_w = grad.dim(layout.w);
  // Along one dim: the output |j| steps past the first whose window may hold |h|, and whether it does.
  auto window_of = [&](const PrimExpr& h, const PrimExpr& j, const PrimExpr& in, const PrimExpr& pooled) {
    PrimExpr o = FloorDiv(h * pooled, in) + j;
    PrimExpr safe = ClampIndex(o, pooled);
    PrimExpr start = WindowStart(safe, in, pooled), end = WindowEnd(safe, in, pooled);
    PrimExpr hit = And(Lt(o, pooled), And(Le(start, h), Lt(h, end)));
    return std::tuple{safe, hit, end - start};
  };
  TensorRef result = kb.Reduce(
      "adaptive_avg_pool2d_backward", out.shape, {LargestWindow(out_h, in_h), LargestWindow(out_w, in_w)},
      ReduceKind::kSum, [&](const Index& i, const Index& r) {
        auto [oh, hit_h, size_h] = window_of(i[layout.h], r[0], in_h, out_h);
        auto [ow, hit_w, size_w] = window_of(i[layout.w], r[1], in_w, out_w);
        Index o = i;
        o[layout.h] = oh;
        o[layout.w] = ow;
        PrimExpr share = Div(grad(o), Cast(out.dtype, size_h * size_w));
        return Select(And(hit_h, hit_w), share, Zero(out.dtype));
      });
  return k.Finish(context, {result});
}

}  // namespace

void RegisterPoolLegalizations(OpRegistry& r) {
  SetLegalization(r, "nn.max_pool2d", LegalizeMaxPool2d);
  SetLegalization(r, "nn.avg_pool2d", LegalizeAvgPool2d);
  SetLegalization(r, "nn.adaptive_avg_pool2d", LegalizeAdaptiveAvgPool2d);
  SetLegalization(r, "nn.max_pool2d_backward", LegalizeMaxPool2dBackward);
  SetLegalization(r, "nn.avg_pool2d_backward", LegalizeAvgPool2dBackward);
  SetLegalization(r, "nn.adaptive_avg_pool2d_backward", LegalizeAdaptiveAvgPool2dBackward);
}

}  // namespace rxt::legalize
