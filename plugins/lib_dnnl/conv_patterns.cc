// The patterns of 2-D convolutions (NCHW data, OIHW weights, float32, static shapes): the
// forward convolution with its bias, ReLU and a max pooling after it, and the two halves of its
// gradient (nn.conv2d_backward_data, also written nn.conv2d_transpose; nn.conv2d_backward_weight
// with, when the block sums the same output gradient to the bias's shape, the bias gradient in
// the same call). docs/libraries.md has the functions.
#include "patterns.h"

#include <dlpack/dlpack.h>

#include "constant_weights.h"

namespace rxt::lib_dnnl {
namespace {

/// A convolution's window: strides (h, w), padding (top, left, bottom, right), dilation, groups.
struct Window {
  std::vector<int64_t> strides, padding, dilation;
  int64_t groups = 1;
  void Append(Pattern& p, std::vector<Expr>& args) const {
    for (int64_t v : {strides[0], strides[1], padding[0], padding[1], padding[2], padding[3], dilation[0],
                      dilation[1], groups}) {
      args.push_back(p.PrimInt(v));
    }
  }
  int64_t OutSize(int axis, int64_t in, int64_t kernel) const {
    int64_t span = in + padding[axis] + padding[axis + 2] - dilation[axis] * (kernel - 1) - 1;
    return span < 0 ? 0 : span / strides[axis] + 1;
  }
};

/// The window of a convolution call with NCHW data and a |kernel_layout| kernel; nullopt for
/// other layouts, another out_dtype or malformed attributes.
std::optional<Window> ReadWindow(Pattern& p, Expr call, const char* kernel_layout) {
  if (StringOf(p, call, "data_layout") != "NCHW" || StringOf(p, call, "kernel_layout") != kernel_layout) {
    return std::nullopt;
  }
  std::optional<std::string> out_dtype = p.AttrString(call, "out_dtype");  // absent: the inputs'
  if (out_dtype && *out_dtype != "float32") return std::nullopt;
  Window w;
  w.strides = PairOf(IntsOf(p, call, "strides"));
  w.dilation = PairOf(IntsOf(p, call, "dilation"));
  w.padding = PaddingOf(IntsOf(p, call, "padding"));
  std::optional<int64_t> groups = p.AttrInt(call, "groups");
  if (w.strides.empty() || w.dilation.empty() || w.padding.empty() || !groups) return std::nullopt;
  w.groups = *groups;
  return w;
}

/// nn.max_pool2d(x) over NCHW without dilation or ceil mode, padding smaller than the window
/// (oneDNN's max pooling never reads padding): its 8 window ints, or nullopt.
std::optional<std::vector<int64_t>> MaxPoolWindow(Pattern& p, Expr pool) {
  if (StringOf(p, pool, "layout") != "NCHW" || p.AttrBool(pool, "ceil_mode").value_or(false)) return std::nullopt;
  std::vector<int64_t> size = PairOf(IntsOf(p, pool, "pool_size")), strides = PairOf(IntsOf(p, pool, "strides"));
  std::vector<int64_t> dilation = PairOf(IntsOf(p, pool, "dilation"));
  std::vector<int64_t> padding = PaddingOf(IntsOf(p, pool, "padding"));
  if (size.empty() || strides.empty() || padding.empty() || dilation != std::vector<int64_t>{1, 1}) return std::nullopt;
  if (padding[0] >= size[0] || padding[2] >= size[0] || padding[1] >= size[1] || padding[3] >= size[1]) {
    return std::nullopt;
  }
  return std::vector<int64_t>{size[0], size[1], strides[0], strides[1], padding[0], padding[1], padding[2], padding[3]};
}

/// The content id (constant_weights.h) of |e| if it is a float32 constant.
std::optional<int64_t> ConstantId(Pattern& p, Expr e) {
  if (p.ir()->expr_kind(p.builder(), e) != RXT_IR_CONSTANT) return std::nullopt;
  DLTensor tensor{};
  if (p.ir()->constant_tensor(p.builder(), e, &tensor) != RXT_OK || tensor.dtype.code != kDLFloat ||
      tensor.dtype.bits != 32) {
    return std::nullopt;
  }
  size_t count = 1;
  for (int i = 0; i < tensor.ndim; ++i) count *= static_cast<size_t>(tensor.shape[i]);
  return ContentId(tensor.data, count * sizeof(float));
}

/// dnnl.conv2d_backward_data(dz, w, window...) for the data gradient of conv2d(x, w), given as
/// output gradient and weight in |kernel_layout| (OIHW: nn.conv2d_backward_data; IOHW:
/// nn.conv2d_transpose, whose output_padding must then be below the strides).
void BackwardData(Pattern& p, const char* kernel_layout) {
  Expr call = p.call(0);
  std::optional<Window> window = ReadWindow(p, call, kernel_layout);
  Expr dz = p.Arg(call, 0), weight = p.Arg(call, 1), result = p.result(0);
  std::optional<std::vector<int64_t>> z = StaticFloat32(p, dz, 4), w = StaticFloat32(p, weight, 4);
  std::optional<std::vector<int64_t>> x = StaticFloat32(p, result, 4);
  if (!window || !z || !w || !x) return;
  std::vector<int64_t> output_padding = PairOf(IntsOf(p, call, "output_padding"));  // conv2d_transpose's
  if (output_padding.empty()) output_padding = {0, 0};
  for (int i = 0; i < 2; ++i) {
    if (output_padding[i] < 0 || output_padding[i] >= window->strides[i]) return;
    if (window->OutSize(i, (*x)[2 + i], (*w)[2 + i]) != (*z)[2 + i]) return;  // not the adjoint of a conv2d
  }
  // Both weight layouts hold the convolution's output channels first.
  if ((*w)[0] != (*z)[1] || (*x)[1] != (*w)[1] * window->groups || (*w)[0] % window->groups != 0) return;
  std::vector<Expr> args = {dz, weight};
  window->Append(p, args);
  p.Replace(1, p.CallExtern("dnnl.conv2d_backward_data", args, {result}));
}

}  // namespace

/// dnnl.conv2d(data, weight, sh, sw, pt, pl, pb, pr, dh, dw, groups, relu) and dnnl.conv2d_bias
/// (bias after weight); bias one value per output channel ((C,), (1, C, 1, 1) or (C, 1, 1)).
/// A max pooling after them makes it dnnl.conv2d(_bias)_pool with the pool's window appended.
void Conv2dPattern(Pattern& p) {
  Expr call = p.call(0);
  std::optional<Window> window = ReadWindow(p, call, "OIHW");
  Expr data = p.Arg(call, 0), weight = p.Arg(call, 1);
  std::optional<std::vector<int64_t>> w = StaticFloat32(p, weight, 4);
  if (!window || !IsStaticFloat32(p, data, 4) || !w || p.DType(p.result(0)) != "float32") return;
  int64_t channels = (*w)[0];
  Epilogue epilogue = FollowEpilogue(p, [&](Expr bias) {
    std::optional<std::vector<int64_t>> shape = StaticFloat32(p, bias, -1);
    if (!shape || NumElements(*shape) != channels) return false;
    // Broadcast against (N, C, H, W): C must sit at axis 1 counted from the right end of 4.
    size_t c_axis = shape->size() >= 3 ? shape->size() - 3 : shape->size() == 1 ? 0 : SIZE_MAX;
    return c_axis != SIZE_MAX && (*shape)[c_axis] == channels;
  });
  std::vector<Expr> args = {data, weight};
  if (epilogue.bias != nullptr) args.push_back(epilogue.bias);
  window->Append(p, args);
  args.push_back(p.PrimInt(epilogue.relu ? 1 : 0));
  std::string name = epilogue.bias != nullptr ? "dnnl.conv2d_bias" : "dnnl.conv2d";
  int num_calls = epilogue.num_calls;
  if (num_calls < p.num_calls() && p.OpName(p.call(num_calls)) == "nn.max_pool2d") {
    std::optional<std::vector<int64_t>> pool = MaxPoolWindow(p, p.call(num_calls));
    if (pool && IsStaticFloat32(p, p.result(num_calls), 4)) {
      for (int64_t v : *pool) args.push_back(p.PrimInt(v));
      ++num_calls;
      name += "_pool";
    }
  }
  // Weights that are a constant (bound for inference) are reordered once at run time, by id.
  if (std::optional<int64_t> id = ConstantId(p, weight)) args.push_back(p.PrimInt(*id));
  p.Replace(num_calls, p.CallExtern(name, args, {p.result(num_calls - 1)}));
}

void Conv2dBackwardDataPattern(Pattern& p) { BackwardData(p, "OIHW"); }

void Conv2dTransposePattern(Pattern& p) { BackwardData(p, "IOHW"); }

/// nn.conv2d_backward_weight(dz, data) (groups 1) becomes dnnl.conv2d_backward_weights(data, dz,
/// window...). With a sibling db = collapse_sum_to(dz, (1, O, 1, 1) or (O, 1, 1)), the call
/// computes both (dnnl.conv2d_backward_weights_bias, a tuple).
void Conv2dBackwardWeightPattern(Pattern& p) {
  Expr call = p.call(0);
  std::optional<Window> window = ReadWindow(p, call, "OIHW");
  Expr dz = p.Arg(call, 0), data = p.Arg(call, 1), dw = p.result(0);
  std::optional<std::vector<int64_t>> z = StaticFloat32(p, dz, 4), x = StaticFloat32(p, data, 4);
  std::optional<std::vector<int64_t>> w = StaticFloat32(p, dw, 4);
  if (!window || window->groups != 1 || !z || !x || !w) return;
  if ((*x)[0] != (*z)[0] || (*w)[0] != (*z)[1] || (*w)[1] != (*x)[1]) return;
  for (int i = 0; i < 2; ++i) {
    if (window->OutSize(i, (*x)[2 + i], (*w)[2 + i]) != (*z)[2 + i]) return;
  }
  std::vector<Expr> args = {data, dz};
  window->Append(p, args);
  // A bias gradient of the same dz.
  int64_t o = (*z)[1];
  for (int s = 0; s < p.num_siblings(); ++s) {
    if (p.Arg(p.sibling(s), 0) != dz) continue;
    Expr db = p.sibling_result(s);
    std::optional<std::vector<int64_t>> shape = StaticFloat32(p, db, -1);
    if (shape == std::vector<int64_t>{1, o, 1, 1} || shape == std::vector<int64_t>{o, 1, 1}) {
      p.Replace(1, s, p.CallExtern("dnnl.conv2d_backward_weights_bias", args, {dw, db}));
      return;
    }
  }
  p.Replace(1, p.CallExtern("dnnl.conv2d_backward_weights", args, {dw}));
}

}  // namespace rxt::lib_dnnl
