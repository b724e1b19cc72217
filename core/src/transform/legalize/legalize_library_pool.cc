// LegalizeLibraryCalls' matchers for a max pooling whose windows tile the input (window =
// stride, no padding, no dilation, NCHW) and for its gradient, with the ReLU gradient that
// follows it in a training step folded in:
//   y = nn.max_pool2d(x, pool_size=[kh, kw], strides=[kh, kw])   (one the convolution before
//       it did not take: in training the pooling gradient reads the convolution's output too)
// becomes dnnl.max_pool2d(x, kh, kw);
//   dx = nn.max_pool2d_backward(dz, x, pool_size=[kh, kw], strides=[kh, kw])
//   [m = greater(x, 0); dx' = where(m, dx, 0)]
// becomes dnnl.max_pool2d_backward(dz, x, kh, kw, relu). The generated kernels compute each
// output element from its window (gathers for the x * kw and x / kw indices); the library
// loops over windows.
#include "legalize_library_match.h"

namespace rxt::legalize_library {
namespace {

/// True if |e| is a one-element float constant equal to 0 (grad_std's scalar zeros).
bool IsZeroConstant(const Expr& e) {
  const ConstantNode* c = e->As<ConstantNode>();
  if (c == nullptr || c->data.numel() != 1) return false;
  switch (c->data.dtype()) {
    case DType::kFloat32: return c->data.data_as<float>()[0] == 0.0f;
    case DType::kFloat64: return c->data.data_as<double>()[0] == 0.0;
    default: return false;
  }
}

bool AllEqual(const std::vector<int64_t>& values, int64_t value) {
  for (int64_t v : values) {
    if (v != value) return false;
  }
  return true;
}

/// The ReLU gradient after |root| (the pooling gradient of |x|): m = greater(x, 0) and
/// where(m, root, 0), each read only by the next. Their binding indices, or nothing.
std::optional<std::pair<size_t, size_t>> FollowReluMask(const BlockView& view, size_t root, const Expr& x) {
  std::optional<size_t> where_index = view.SoleUser(view.bindings[root].var, root);
  if (!where_index) return std::nullopt;
  const CallNode* where = OpCall(view.bindings[*where_index].value, "where");
  if (where == nullptr || where->args.size() != 3 || where->args[1] != view.bindings[root].var ||
      !IsZeroConstant(where->args[2]) || !IsStaticFloat32(view.bindings[*where_index].var, 4)) {
    return std::nullopt;
  }
  std::optional<size_t> mask_index = view.BindingOf(where->args[0]);
  if (!mask_index || view.SoleUser(view.bindings[*mask_index].var, *mask_index) != *where_index) return std::nullopt;
  const CallNode* greater = OpCall(view.bindings[*mask_index].value, "greater");
  if (greater == nullptr || greater->args.size() != 2 || greater->args[0] != x || !IsZeroConstant(greater->args[1])) {
    return std::nullopt;
  }
  return std::make_pair(*mask_index, *where_index);
}

/// The window of a pooling call whose windows tile |x| into |pooled| (NCHW, window = stride,
/// no padding or dilation, nothing left over in ceil mode), or nothing.
std::optional<std::vector<int64_t>> TilingWindow(const CallNode& call, const Expr& x, const Expr& pooled) {
  std::string layout = StringAttr(call, "layout");
  if (!layout.empty() && layout != "NCHW") return std::nullopt;
  std::vector<int64_t> window = PairOf(IntsAttr(call, "pool_size"));
  std::vector<int64_t> strides = PairOf(IntsAttr(call, "strides"));
  std::vector<int64_t> padding = PaddingOf(IntsAttr(call, "padding"));
  if (window.empty() || strides != window || window[0] < 1 || window[1] < 1) return std::nullopt;
  if (!AllEqual(padding, 0) || !AllEqual(IntsAttr(call, "dilation"), 1)) return std::nullopt;
  std::vector<int64_t> xs = TensorInfo(x)->StaticShape(), zs = TensorInfo(pooled)->StaticShape();
  // Windows tiling the input from its corner (floor mode, or ceil mode with nothing left over).
  if (zs[0] != xs[0] || zs[1] != xs[1] || zs[2] != xs[2] / window[0] || zs[3] != xs[3] / window[1]) return std::nullopt;
  return window;
}

}  // namespace

std::optional<Replacement> MatchDnnlMaxPool2d(const BlockView& view, size_t root, BlockBuilder& /*builder*/) {
  const CallNode* call = OpCall(view.bindings[root].value, "nn.max_pool2d");
  if (call == nullptr || call->args.size() != 1) return std::nullopt;
  const Expr& x = call->args[0];
  const Expr& result = view.bindings[root].var;
  if (!IsStaticFloat32(x, 4) || !IsStaticFloat32(result, 4)) return std::nullopt;
  std::optional<std::vector<int64_t>> window = TilingWindow(*call, x, result);
  if (!window) return std::nullopt;
  return Replacement::Chain({root}, CallExtern("dnnl.max_pool2d", {x, Int((*window)[0]), Int((*window)[1])},
                                               {result->struct_info}));
}

std::optional<Replacement> MatchDnnlMaxPool2dBackward(const BlockView& view, size_t root, BlockBuilder& /*builder*/) {
  const CallNode* call = OpCall(view.bindings[root].value, "nn.max_pool2d_backward");
  if (call == nullptr || call->args.size() != 2) return std::nullopt;
  const Expr& dz = call->args[0];
  const Expr& x = call->args[1];
  const Expr& result = view.bindings[root].var;
  if (!IsStaticFloat32(dz, 4) || !IsStaticFloat32(x, 4) || !IsStaticFloat32(result, 4)) return std::nullopt;
  std::optional<std::vector<int64_t>> tiling = TilingWindow(*call, x, dz);
  if (!tiling) return std::nullopt;
  const std::vector<int64_t>& window = *tiling;
  std::vector<size_t> chain = {root};
  std::optional<std::pair<size_t, size_t>> mask = FollowReluMask(view, root, x);
  if (mask) chain = {root, mask->first, mask->second};
  const Expr& out = view.bindings[chain.back()].var;
  return Replacement::Chain(chain, CallExtern("dnnl.max_pool2d_backward",
                                              {dz, x, Int(window[0]), Int(window[1]), Int(mask ? 1 : 0)},
                                              {out->struct_info}));
}

}  // namespace rxt::legalize_library
