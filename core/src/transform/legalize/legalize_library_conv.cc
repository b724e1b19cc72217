/// LegalizeLibraryCalls' matchers for 2-D convolutions (NCHW data, OIHW weights, float32,
/// static shapes): the forward convolution with its bias, ReLU and a max pooling after it,
/// and the two halves of its gradient (nn.conv2d_backward_data, also written
/// nn.conv2d_transpose; nn.conv2d_backward_weight, plus, when the block also sums the output
/// gradient to the bias's shape, the bias gradient in the same call).
#include "legalize_library_match.h"

namespace rxt::legalize_library {
namespace {

/// A convolution's window: strides (h, w), padding (top, left, bottom, right), dilation, groups.
struct Window {
  std::vector<int64_t> strides, padding, dilation;
  int64_t groups = 1;
  void Append(std::vector<Expr>& args) const {
    for (int64_t v : {strides[0], strides[1], padding[0], padding[1], padding[2], padding[3], dilation[0],
                      dilation[1], groups}) {
      args.push_back(Int(v));
    }
  }
  int64_t OutSize(int axis, int64_t in, int64_t kernel) const {
    int64_t span = in + padding[axis] + padding[axis + 2] - dilation[axis] * (kernel - 1) - 1;
    return span < 0 ? 0 : span / strides[axis] + 1;
  }
};

/// The window of a conv2d / conv2d_transpose call in |data_layout| / |kernel_layout|; nullopt
/// for other layouts, another out_dtype or malformed attributes.
std::optional<Window> ReadWindow(const CallNode& call, const char* kernel_layout) {
  if (StringAttr(call, "data_layout") != "NCHW" || StringAttr(call, "kernel_layout") != kernel_layout) {
    return std::nullopt;
  }
  const AttrValue* out_dtype = call.attrs.Find("out_dtype");
  if (out_dtype != nullptr && out_dtype->is<DType>() && out_dtype->get<DType>() != DType::kUnknown &&
      out_dtype->get<DType>() != DType::kFloat32) {
    return std::nullopt;
  }
  Window w;
  w.strides = PairOf(IntsAttr(call, "strides"));
  w.dilation = PairOf(IntsAttr(call, "dilation"));
  w.padding = PaddingOf(IntsAttr(call, "padding"));
  const AttrValue* groups = call.attrs.Find("groups");
  if (w.strides.empty() || w.dilation.empty() || w.padding.empty() || groups == nullptr || !groups->is<int64_t>()) {
    return std::nullopt;
  }
  w.groups = groups->get<int64_t>();
  return w;
}

/// nn.max_pool2d(x) over NCHW without dilation or ceil mode, padding smaller than the window
/// (oneDNN's max pooling never reads padding): its 8 window ints, or nullopt.
std::optional<std::vector<int64_t>> MaxPoolWindow(const CallNode& pool) {
  if (StringAttr(pool, "layout") != "NCHW") return std::nullopt;
  const AttrValue* ceil = pool.attrs.Find("ceil_mode");
  if (ceil != nullptr && (!ceil->is<bool>() || ceil->get<bool>())) return std::nullopt;
  std::vector<int64_t> size = PairOf(IntsAttr(pool, "pool_size")), strides = PairOf(IntsAttr(pool, "strides"));
  std::vector<int64_t> dilation = PairOf(IntsAttr(pool, "dilation")), padding = PaddingOf(IntsAttr(pool, "padding"));
  if (size.empty() || strides.empty() || padding.empty() || dilation != std::vector<int64_t>{1, 1}) return std::nullopt;
  if (padding[0] >= size[0] || padding[2] >= size[0] || padding[1] >= size[1] || padding[3] >= size[1]) {
    return std::nullopt;
  }
  return std::vector<int64_t>{size[0], size[1], strides[0], strides[1], padding[0], padding[1], padding[2], padding[3]};
}

}  // namespace

/// dnnl.conv2d(data, weight, sh, sw, pt, pl, pb, pr, dh, dw, groups, relu) and dnnl.conv2d_bias
/// (bias after weight); bias one value per output channel ((C,), (1, C, 1, 1) or (C, 1, 1)).
/// A max pooling that is the sole user of the result makes it dnnl.conv2d(_bias)_pool with
/// the pool's window appended.
std::optional<Replacement> MatchDnnlConv2d(const BlockView& view, size_t root, BlockBuilder& /*builder*/) {
  const CallNode* call = OpCall(view.bindings[root].value, "nn.conv2d");
  if (call == nullptr) return std::nullopt;
  std::optional<Window> window = ReadWindow(*call, "OIHW");
  const Expr& data = call->args[0];
  const Expr& weight = call->args[1];
  const TensorSINode* out = TensorInfo(view.bindings[root].var);
  if (!window || !IsStaticFloat32(data, 4) || !IsStaticFloat32(weight, 4) || out == nullptr ||
      out->dtype != DType::kFloat32) {
    return std::nullopt;
  }
  int64_t channels = TensorInfo(weight)->StaticShape()[0];
  auto bias_ok = [channels](const Expr& bias) {
    const TensorSINode* t = TensorInfo(bias);
    if (t == nullptr || t->dtype != DType::kFloat32 || !t->shape || !t->IsStatic() || NumElements(*t) != channels) {
      return false;
    }
    std::vector<int64_t> shape = t->StaticShape();
    // Broadcast against (N, C, H, W): C must sit at axis 1 counted from the right end of 4.
    size_t c_axis = shape.size() >= 3 ? shape.size() - 3 : shape.size() == 1 ? 0 : SIZE_MAX;
    return c_axis != SIZE_MAX && shape[c_axis] == channels;
  };
  Epilogue epilogue = FollowEpilogue(view, root, bias_ok);
  std::vector<Expr> args = {data, weight};
  if (epilogue.bias) args.push_back(epilogue.bias);
  window->Append(args);
  args.push_back(Int(epilogue.relu ? 1 : 0));
  std::vector<size_t> chain = {root};
  chain.insert(chain.end(), epilogue.chain.begin(), epilogue.chain.end());
  std::string name = epilogue.bias ? "dnnl.conv2d_bias" : "dnnl.conv2d";
  if (auto user = view.SoleUser(view.bindings[chain.back()].var, chain.back())) {
    const CallNode* pool = OpCall(view.bindings[*user].value, "nn.max_pool2d");
    std::optional<std::vector<int64_t>> pool_window = pool ? MaxPoolWindow(*pool) : std::nullopt;
    if (pool_window && IsStaticFloat32(view.bindings[*user].var, 4)) {
      for (int64_t v : *pool_window) args.push_back(Int(v));
      chain.push_back(*user);
      name += "_pool";
    }
  }
  StructInfo out_sinfo = view.bindings[chain.back()].var->struct_info;
  return Replacement::Chain(chain, CallExtern(name, std::move(args), {out_sinfo}));
}

/// nn.conv2d_backward_data(dz, w) (NCHW, OIHW kernel), or nn.conv2d_transpose(dz, w) (IOHW
/// kernel, output_padding < strides), is the data gradient of a convolution with weight w:
/// dnnl.conv2d_backward_data(dz, w, window...).
std::optional<Replacement> MatchDnnlConv2dBackwardData(const BlockView& view, size_t root, BlockBuilder& /*builder*/) {
  const CallNode* call = OpCall(view.bindings[root].value, "nn.conv2d_backward_data");
  const char* kernel_layout = "OIHW";
  if (call == nullptr) {
    call = OpCall(view.bindings[root].value, "nn.conv2d_transpose");
    kernel_layout = "IOHW";
  }
  if (call == nullptr) return std::nullopt;
  std::optional<Window> window = ReadWindow(*call, kernel_layout);
  const Expr& dz = call->args[0];
  const Expr& weight = call->args[1];
  const Expr& result = view.bindings[root].var;
  if (!window || !IsStaticFloat32(dz, 4) || !IsStaticFloat32(weight, 4) || !IsStaticFloat32(result, 4)) {
    return std::nullopt;
  }
  std::vector<int64_t> output_padding = PairOf(IntsAttr(*call, "output_padding"));
  if (output_padding.empty()) output_padding = {0, 0};
  std::vector<int64_t> z = TensorInfo(dz)->StaticShape(), w = TensorInfo(weight)->StaticShape();
  std::vector<int64_t> x = TensorInfo(result)->StaticShape();
  for (int i = 0; i < 2; ++i) {
    if (output_padding[i] < 0 || output_padding[i] >= window->strides[i]) return std::nullopt;
    if (window->OutSize(i, x[2 + i], w[2 + i]) != z[2 + i]) return std::nullopt;  // not the adjoint of a conv2d
  }
  if (w[0] != z[1] || x[1] != w[1] * window->groups || w[0] % window->groups != 0) return std::nullopt;
  std::vector<Expr> args = {dz, weight};
  window->Append(args);
  return Replacement::Chain({root}, CallExtern("dnnl.conv2d_backward_data", std::move(args), {result->struct_info}));
}

/// dw = nn.conv2d_backward_weight(dz, data) (groups 1) becomes
/// dnnl.conv2d_backward_weights(data, dz, window...). If the block also has
/// db = collapse_sum_to(dz, (1, O, 1, 1) or (O, 1, 1)), the call computes both
/// (dnnl.conv2d_backward_weights_bias, a tuple): dw and db become its items.
std::optional<Replacement> MatchDnnlConv2dBackwardWeights(const BlockView& view, size_t root, BlockBuilder& builder) {
  const CallNode* call = OpCall(view.bindings[root].value, "nn.conv2d_backward_weight");
  if (call == nullptr) return std::nullopt;
  std::optional<Window> window = ReadWindow(*call, "OIHW");
  if (!window || window->groups != 1) return std::nullopt;
  const Expr& dz = call->args[0];
  const Expr& data = call->args[1];
  if (!IsStaticFloat32(data, 4) || !IsStaticFloat32(dz, 4) || !IsStaticFloat32(view.bindings[root].var, 4)) {
    return std::nullopt;
  }
  std::vector<size_t> chain = {root};
  const Var& dw = view.bindings[root].var;
  std::vector<int64_t> x = TensorInfo(data)->StaticShape(), z = TensorInfo(dz)->StaticShape();
  std::vector<int64_t> w = TensorInfo(dw)->StaticShape();
  if (x[0] != z[0] || w[0] != z[1] || w[1] != x[1]) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    if (window->OutSize(i, x[2 + i], w[2 + i]) != z[2 + i]) return std::nullopt;
  }
  std::vector<Expr> args = {data, dz};
  window->Append(args);

  // A bias gradient of the same dz anywhere in the block.
  std::optional<size_t> bias_grad;
  for (size_t i = 0; i < view.bindings.size() && !bias_grad; ++i) {
    const CallNode* sum = OpCall(view.bindings[i].value, "collapse_sum_to");
    if (sum == nullptr || view.bindings[i].is_match_cast() || sum->args[0] != dz) continue;
    const TensorSINode* t = TensorInfo(view.bindings[i].var);
    if (t == nullptr || !IsStaticFloat32(view.bindings[i].var, t->ndim)) continue;
    std::vector<int64_t> shape = t->StaticShape();
    if (shape == std::vector<int64_t>{1, z[1], 1, 1} || shape == std::vector<int64_t>{z[1], 1, 1}) bias_grad = i;
  }
  // The tuple binding goes before the first of dw and db; data must be bound by then.
  if (bias_grad && *bias_grad < chain.back()) {
    std::optional<size_t> data_at = view.BindingOf(data);
    if (data_at && *data_at >= *bias_grad) bias_grad.reset();
  }
  if (!bias_grad) {
    return Replacement::Chain(chain, CallExtern("dnnl.conv2d_backward_weights", std::move(args), {dw->struct_info}));
  }
  const Var& db = view.bindings[*bias_grad].var;
  Expr both = builder.Normalize(
      CallExtern("dnnl.conv2d_backward_weights_bias", std::move(args), {dw->struct_info, db->struct_info}));
  Var grads = view.is_dataflow ? MakeDataflowVar(dw->name + "_grads", both->struct_info)
                               : MakeVar(dw->name + "_grads", both->struct_info);
  Replacement r;
  r.dropped.assign(chain.begin(), chain.end() - 1);
  r.values.emplace_back(chain.back(), MakeTupleGetItem(grads, 0));
  r.values.emplace_back(*bias_grad, MakeTupleGetItem(grads, 1));
  r.inserted.emplace(std::min(chain.back(), *bias_grad), Binding{grads, both, nullptr});
  return r;
}

}  // namespace rxt::legalize_library
