// Convolution and pooling over 3 spatial dims (N, C, D, H, W) as 2-D ones, one per tap of the
// depth window: the depth goes to the batch ([N, D, C, H, W] -> [N * D_out, C, H, W] after a
// take of the depths the tap reads), the 2-D op covers height and width, and the taps combine
// (a sum for convolution and average, a maximum for max pooling). So a Conv3d trains with the
// ops rxt has: kd 2-D convolutions over N * D_out images.
#include <algorithm>

#include "convert_util.h"
#include "converters.h"

namespace rxt::import_onnx {
namespace {

/// The static dims 1.. of input |i| (C, D, H, W) and the batch as a prim expression.
struct Volume {
  std::string batch;
  int64_t channels, depth, height, width;
};

Volume VolumeOf(NodeContext& ctx, int i) {
  const TypeInfo& t = ctx.type(i);
  if (!t.has_shape || t.rank() != 5) ctx.fail("the input must be 5-D (N, C, D, H, W)");
  for (int k = 1; k < 5; ++k) {
    if (!t.dims[k].is_static()) ctx.unsupported(ctx.op() + " over 3 spatial dims that are not static");
  }
  if (!t.dims[0].is_known()) ctx.unsupported(ctx.op() + " with a batch of unknown size");
  int64_t count = 1;
  for (int k = 0; k < 5; ++k) {
    const int64_t d = t.dims[k].is_static() ? t.dims[k].value : 1;
    if (d > 0 && count > kMaxStaticElements / d) ctx.unsupported(ctx.op() + " on a value of more than 2^40 elements");
    count *= d;
  }
  return {t.dims[0].text(), t.dims[1].value, t.dims[2].value, t.dims[3].value, t.dims[4].value};
}

/// Output |k|'s dims 2..4 (D_out, H_out, W_out) as ONNX's inference gives them.
std::vector<int64_t> OutputVolume(NodeContext& ctx) {
  std::optional<std::vector<std::string>> dims = OutputDims(ctx, 0);
  if (!dims || dims->size() != 5) ctx.unsupported(ctx.op() + " over 3 spatial dims whose output shape ONNX cannot infer");
  std::vector<int64_t> out;
  for (int k = 2; k < 5; ++k) {
    const std::string& d = (*dims)[k];
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos) {
      ctx.unsupported(ctx.op() + " over 3 spatial dims whose output shape ONNX cannot infer");
    }
    out.push_back(std::stoll(d));
  }
  return out;
}

/// The input laid out depth-major: [N, D, C, H, W].
std::string DepthMajor(NodeContext& ctx, const std::string& x) {
  return ctx.bind(Call("permute_dims", {x}, "axes=[0, 2, 1, 3, 4]"));
}

/// Tap |i| of the depth window: the slices it reads for each output depth (clamped into the
/// input; |valid| says which are inside it), as a batch of 2-D images [N * D_out, C, H, W].
std::string DepthTap(NodeContext& ctx, const std::string& depth_major, const Volume& v, const NdWindow& w,
                     int64_t out_depth, int64_t i, std::vector<bool>* valid) {
  std::vector<int64_t> indices(out_depth);
  valid->assign(out_depth, false);
  for (int64_t d = 0; d < out_depth; ++d) {
    const int64_t source = d * w.strides[0] - w.pads[0] + i * w.dilations[0];
    (*valid)[d] = source >= 0 && source < v.depth;
    indices[d] = std::clamp<int64_t>(source, 0, v.depth - 1);
  }
  std::string taken = ctx.bind(Call("take", {depth_major, ctx.constant_expr(MakeIntConstant(indices, {out_depth}))}, "axis=1"));
  const std::string rows = Product({v.batch, std::to_string(out_depth)});
  return ctx.bind(Call("reshape", {taken, ShapeExpr({rows, std::to_string(v.channels), std::to_string(v.height),
                                                     std::to_string(v.width)})}));
}

/// [N * D_out, C', H_out, W_out] back to [N, C', D_out, H_out, W_out].
std::string FromDepthMajor(NodeContext& ctx, const std::string& y, const Volume& v, int64_t channels,
                           const std::vector<int64_t>& out) {
  std::string split = ctx.bind(Call("reshape", {y, ShapeExpr({v.batch, std::to_string(out[0]), std::to_string(channels),
                                                              std::to_string(out[1]), std::to_string(out[2])})}));
  return ctx.bind(Call("permute_dims", {split}, "axes=[0, 2, 1, 3, 4]"));
}

std::string PlaneAttrs(const NdWindow& w) {
  return "strides=" + IntList({w.strides[1], w.strides[2]}) + ", padding=" +
         IntList({w.pads[1], w.pads[2], w.pads[4], w.pads[5]}) + ", dilation=" + IntList({w.dilations[1], w.dilations[2]});
}

/// Conv over 3 spatial dims: the sum over the depth taps of a 2-D convolution with that tap's
/// slice of the kernel. Taps outside the input read zeros (its padding): they are left out.
void Conv3D(NodeContext& ctx, const NdWindow& w) {
  const Volume v = VolumeOf(ctx, 0);
  const std::vector<int64_t> kernel = StaticDims(ctx, 1);  // O, C / groups, kd, kh, kw
  if (kernel.size() != 5) ctx.fail("the weight must be 5-D (O, C / group, kD, kH, kW)");
  if (kernel[2] != w.kernel[0] || kernel[3] != w.kernel[1] || kernel[4] != w.kernel[2]) {
    ctx.fail("kernel_shape disagrees with the weight's spatial dims");
  }
  const int64_t groups = ctx.attr_int("group", 1);
  if (groups <= 0 || kernel[1] * groups != v.channels || kernel[0] % groups != 0) {
    ctx.fail("the input's channels, the weight and group do not match");
  }
  const std::vector<int64_t> out = OutputVolume(ctx);
  const std::string x = DepthMajor(ctx, ctx.expr(0)), weight = ctx.expr(1);
  std::string sum;
  for (int64_t i = 0; i < kernel[2]; ++i) {
    std::vector<bool> valid;
    std::string tap = DepthTap(ctx, x, v, w, out[0], i, &valid);
    if (std::find(valid.begin(), valid.end(), true) == valid.end()) continue;  // reads only padding
    if (std::find(valid.begin(), valid.end(), false) != valid.end()) {
      // Some output depths read padding here: zero those images.
      Constant mask;
      mask.dtype = ctx.type(0).dtype;
      mask.shape = {1, out[0], 1, 1, 1};
      for (bool b : valid) mask.floats.push_back(b ? 1.0 : 0.0);
      std::string masked = ctx.bind(Call("multiply", {ctx.bind(Call("reshape", {tap, ShapeExpr({v.batch, std::to_string(out[0]),
                                      std::to_string(v.channels), std::to_string(v.height), std::to_string(v.width)})})),
                                                       ctx.constant_expr(mask)}));
      tap = ctx.bind(Call("reshape", {masked, ShapeExpr({Product({v.batch, std::to_string(out[0])}), std::to_string(v.channels),
                                                         std::to_string(v.height), std::to_string(v.width)})}));
    }
    std::string slice = ctx.bind(Call("take", {weight, "const([" + std::to_string(i) + "], int64)"}, "axis=2"));
    std::string plane = ctx.bind(Call("reshape", {slice, ShapeExpr({std::to_string(kernel[0]), std::to_string(kernel[1]),
                                                                    std::to_string(kernel[3]), std::to_string(kernel[4])})}));
    std::string y = ctx.bind(Call("nn.conv2d", {tap, plane}, PlaneAttrs(w) + ", groups=" + std::to_string(groups)));
    sum = sum.empty() ? y : ctx.bind(Call("add", {sum, y}));
  }
  if (sum.empty()) ctx.unsupported("Conv over 3 spatial dims whose every depth tap reads padding");
  std::string y = FromDepthMajor(ctx, sum, v, kernel[0], out);
  if (!ctx.has_input(2)) return ctx.set_output(0, y);
  std::string bias = ctx.bind(Call("expand_dims", {ctx.expr(2)}, "axis=[1, 2, 3]"));
  ctx.set_output(0, Call("add", {y, bias}));
}

/// MaxPool and AveragePool over 3 spatial dims. Max: the maximum over the depth taps of 2-D
/// max pooling (a tap outside the input reads a clamped slice, which a maximum ignores).
/// Average: the 2-D averages of the taps inside the input, each weighted by one over the
/// number of depth positions counted (those inside the input, or with count_include_pad those
/// inside the padded input).
void Pool3D(NodeContext& ctx, const NdWindow& w, bool max) {
  if (ctx.has_output(1)) ctx.unsupported(ctx.op() + " with the Indices output");
  const Volume v = VolumeOf(ctx, 0);
  const std::vector<int64_t> out = OutputVolume(ctx);
  const bool ceil_mode = ctx.attr_int("ceil_mode", 0) != 0;
  const bool include_pad = ctx.attr_int("count_include_pad", 0) != 0;
  std::string attrs = "pool_size=" + IntList({w.kernel[1], w.kernel[2]}) + ", " + PlaneAttrs(w) +
                      ", ceil_mode=" + (ceil_mode ? "true" : "false");
  if (!max) attrs += std::string(", count_include_pad=") + (include_pad ? "true" : "false");
  const std::string x = DepthMajor(ctx, ctx.expr(0));
  // The depth positions each output averages over.
  std::vector<int64_t> counted(out[0], 0);
  for (int64_t d = 0; d < out[0]; ++d) {
    for (int64_t i = 0; i < w.kernel[0]; ++i) {
      const int64_t source = d * w.strides[0] - w.pads[0] + i * w.dilations[0];
      const bool inside = source >= 0 && source < v.depth;
      const bool padded = source >= -w.pads[0] && source < v.depth + w.pads[3];
      counted[d] += include_pad ? padded : inside;
    }
  }
  std::string result;
  for (int64_t i = 0; i < w.kernel[0]; ++i) {
    std::vector<bool> valid;
    std::string tap = DepthTap(ctx, x, v, w, out[0], i, &valid);
    std::string pooled = ctx.bind(Call(max ? "nn.max_pool2d" : "nn.avg_pool2d", {tap}, attrs));
    if (max) {
      result = result.empty() ? pooled : ctx.bind(Call("maximum", {result, pooled}));
      continue;
    }
    if (std::find(valid.begin(), valid.end(), true) == valid.end()) continue;
    Constant weight;
    weight.dtype = ctx.type(0).dtype;
    weight.shape = {1, out[0], 1, 1, 1};
    for (int64_t d = 0; d < out[0]; ++d) weight.floats.push_back(valid[d] ? 1.0 / static_cast<double>(counted[d]) : 0.0);
    std::string split = ctx.bind(Call("reshape", {pooled, ShapeExpr({v.batch, std::to_string(out[0]), std::to_string(v.channels),
                                                                     std::to_string(out[1]), std::to_string(out[2])})}));
    std::string term = ctx.bind(Call("multiply", {split, ctx.constant_expr(weight)}));
    result = result.empty() ? term : ctx.bind(Call("add", {result, term}));
  }
  if (max) return ctx.set_output(0, FromDepthMajor(ctx, result, v, v.channels, out));
  ctx.set_output(0, Call("permute_dims", {result}, "axes=[0, 2, 1, 3, 4]"));
}

}  // namespace

bool ConvertVolume(NodeContext& ctx, const std::vector<int64_t>& kernel) {
  if (kernel.size() != 3) return false;
  const NdWindow w = NdWindowOf(ctx, kernel);
  for (size_t k = 0; k < 3; ++k) {
    if (w.kernel[k] <= 0 || w.strides[k] <= 0 || w.dilations[k] <= 0 || w.pads[k] < 0 || w.pads[3 + k] < 0) {
      ctx.fail("kernel_shape, strides and dilations must be positive and pads not negative");
    }
  }
  if (ctx.op() == "Conv") Conv3D(ctx, w);
  else if (ctx.op() == "MaxPool") Pool3D(ctx, w, true);
  else if (ctx.op() == "AveragePool") Pool3D(ctx, w, false);
  else return false;
  return true;
}

}  // namespace rxt::import_onnx
