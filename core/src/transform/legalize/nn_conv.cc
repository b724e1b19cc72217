/// Legalization of nn.conv2d (NCHW or NHWC data, OIHW or HWIO weights; strides, padding,
/// dilation, groups): a padding stage when there is padding, then one reduction over the
/// input channels of the group and the kernel window, in out_dtype. nn.conv2d_transpose
/// gathers instead of scattering: result element y sums data[i] * weight[k] over the window
/// positions k with i * stride - pad + k * dilation = y; nn.conv2d_backward_data is the same
/// map with the convolution's weight. nn.conv2d_backward_weight sums, for each kernel position,
/// output_grad times the data it saw over the batch and the output positions.
#include "../../op/nn_window.h"
#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;

Expr LegalizeConv2d(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  std::array<int64_t, 2> strides = infer::PairAttr(call, "strides", 1);
  std::array<int64_t, 2> dilation = infer::PairAttr(call, "dilation", 1);
  std::array<int64_t, 4> pad = infer::PaddingAttr(call, "padding");  // top, left, bottom, right
  int64_t groups = infer::IntAttr(call, "groups");
  infer::Layout2D dl = infer::LayoutAttr(call, "data_layout", {"NCHW", "NHWC"});
  infer::Layout2D kl = infer::LayoutAttr(call, "kernel_layout", {"OIHW", "HWIO"});

  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef data = k.Tensor(0), weight = k.Tensor(1);
  TensorRef input = data;
  if (pad[0] || pad[1] || pad[2] || pad[3]) {
    Dims padded = data.shape();
    padded[dl.h] = padded[dl.h] + Int(pad[0] + pad[2]);
    padded[dl.w] = padded[dl.w] + Int(pad[1] + pad[3]);
    input = kb.Compute("pad", padded, [&](const Index& i) {
      Index in = i;
      in[dl.h] = i[dl.h] - Int(pad[0]);
      in[dl.w] = i[dl.w] - Int(pad[1]);
      return LoadOr(data, in, Zero(data.dtype()), {dl.h, dl.w});
    });
  }
  PrimExpr group_channels = weight.dim(kl.c);                           // input channels per group
  PrimExpr group_outputs = FloorDiv(weight.dim(kl.n), Int(groups));     // output channels per group
  TensorRef result = kb.Reduce(
      "conv2d", out.shape, {group_channels, weight.dim(kl.h), weight.dim(kl.w)}, ReduceKind::kSum,
      [&](const Index& i, const Index& r) {
        PrimExpr oc = i[dl.c];
        PrimExpr ic = groups == 1 ? r[0] : FloorDiv(oc, group_outputs) * group_channels + r[0];
        Index d(4), w(4);
        d[dl.n] = i[dl.n];
        d[dl.c] = ic;
        d[dl.h] = i[dl.h] * Int(strides[0]) + r[1] * Int(dilation[0]);
        d[dl.w] = i[dl.w] * Int(strides[1]) + r[2] * Int(dilation[1]);
        w[kl.n] = oc;
        w[kl.c] = r[0];
        w[kl.h] = r[1];
        w[kl.w] = r[2];
        return Cast(out.dtype, input(d)) * Cast(out.dtype, weight(w));
      });
  return k.Finish(context, {result});
}

/// A convolution's attributes. For a transposed convolution kernel.c is its input channels
/// (the convolution's output channels) and kernel.n its output channels per group.
struct ConvWindow {
  std::array<int64_t, 2> strides, dilation;
  std::array<int64_t, 4> pad;  // top, left, bottom, right (transposed: cut off the result)
  int64_t groups;
  infer::Layout2D data, kernel;
};

/// The result of shape OutputOf(call) gathers data[i] * weight[k] (arguments 0 and 1) over the
/// window positions k with i * stride - pad + k * dilation = y.
Expr TransposedConvolution(LegalizeContext& context, const CallNode& call, const std::string& name,
                           const ConvWindow& t) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  const auto& strides = t.strides;
  const auto& dilation = t.dilation;
  const auto& pad = t.pad;
  const int64_t groups = t.groups;
  const infer::Layout2D dl = t.data, kl = t.kernel;
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef data = k.Tensor(0), weight = k.Tensor(1);
  PrimExpr group_inputs = FloorDiv(weight.dim(kl.c), Int(groups));  // input channels per group
  PrimExpr group_outputs = weight.dim(kl.n);                          // output channels per group
  // The input position feeding result position |y| through window position |k| along one
  // dim, and whether there is one.
  auto source = [&](int dim, const PrimExpr& y, const PrimExpr& k, const PrimExpr& extent) {
    PrimExpr shifted = y + Int(pad[dim]) - k * Int(dilation[dim]);
    if (strides[dim] == 1) return std::pair{ClampIndex(shifted, extent), InRange(shifted, Int(0), extent)};
    PrimExpr i = FloorDiv(shifted, Int(strides[dim]));
    PrimExpr hit = And(Eq(FloorMod(shifted, Int(strides[dim])), Int(0)), InRange(i, Int(0), extent));
    return std::pair{ClampIndex(i, extent), hit};
  };
  TensorRef result = kb.Reduce(
      name, out.shape, {group_inputs, weight.dim(kl.h), weight.dim(kl.w)}, ReduceKind::kSum,
      [&](const Index& i, const Index& r) {
        PrimExpr oc = i[dl.c];
        PrimExpr group = groups == 1 ? Int(0) : FloorDiv(oc, group_outputs);
        PrimExpr ic = groups == 1 ? r[0] : group * group_inputs + r[0];
        auto [iy, hit_y] = source(0, i[dl.h], r[1], data.dim(dl.h));
        auto [ix, hit_x] = source(1, i[dl.w], r[2], data.dim(dl.w));
        Index d(4), w(4);
        d[dl.n] = i[dl.n];
        d[dl.c] = ic;
        d[dl.h] = iy;
        d[dl.w] = ix;
        w[kl.c] = ic;
        w[kl.n] = groups == 1 ? oc : FloorMod(oc, group_outputs);
        w[kl.h] = r[1];
        w[kl.w] = r[2];
        PrimExpr product = Cast(out.dtype, data(d)) * Cast(out.dtype, weight(w));
        return Select(And(hit_y, hit_x), product, Zero(out.dtype));
      });
  return k.Finish(context, {result});
}

/// The window attributes conv2d and its relatives share.
ConvWindow ReadWindow(const CallNode& call, const std::vector<std::string>& kernel_layouts) {
  return {infer::PairAttr(call, "strides", 1),
          infer::PairAttr(call, "dilation", 1),
          infer::PaddingAttr(call, "padding"),
          infer::IntAttr(call, "groups"),
          infer::LayoutAttr(call, "data_layout", {"NCHW", "NHWC"}),
          infer::LayoutAttr(call, "kernel_layout", kernel_layouts)};
}

Expr LegalizeConv2dTranspose(LegalizeContext& context, const CallNode& call) {
  // kernel.c: the input channels, kernel.n: the output channels per group.
  return TransposedConvolution(context, call, "conv2d_transpose", ReadWindow(call, {"IOHW", "HWOI"}));
}

// The data gradient of conv2d is the transposed convolution with its weight, whose output
// channels (O) are the transposed convolution's input channels.
Expr LegalizeConv2dBackwardData(LegalizeContext& context, const CallNode& call) {
  ConvWindow t = ReadWindow(call, {"OIHW", "HWIO"});
  std::swap(t.kernel.c, t.kernel.n);
  return TransposedConvolution(context, call, "conv2d_backward_data", t);
}

// dw[o, i, r, s] = sum over n, y, x of dz[n, o, y, x] * data[n, g(o) I + i, y sh + r dh - pt,
// x sw + s dw - pl], zero where that falls in the padding.
Expr LegalizeConv2dBackwardWeight(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  const ConvWindow t = ReadWindow(call, {"OIHW", "HWIO"});
  const auto& strides = t.strides;
  const auto& dilation = t.dilation;
  const auto& pad = t.pad;
  const int64_t groups = t.groups;
  const infer::Layout2D dl = t.data, kl = t.kernel;
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef grad = k.Tensor(0), data = k.Tensor(1);
  PrimExpr group_outputs = FloorDiv(grad.dim(dl.c), Int(groups));  // output channels per group
  PrimExpr group_inputs = out.shape[kl.c];                          // input channels per group
  TensorRef result = kb.Reduce(
      "conv2d_backward_weight", out.shape, {grad.dim(dl.n), grad.dim(dl.h), grad.dim(dl.w)}, ReduceKind::kSum,
      [&](const Index& i, const Index& r) {
        PrimExpr oc = i[kl.n];
        PrimExpr ic = groups == 1 ? i[kl.c] : FloorDiv(oc, group_outputs) * group_inputs + i[kl.c];
        Index g(4), d(4);
        g[dl.n] = r[0];
        g[dl.c] = oc;
        g[dl.h] = r[1];
        g[dl.w] = r[2];
        d[dl.n] = r[0];
        d[dl.c] = ic;
        d[dl.h] = r[1] * Int(strides[0]) + i[kl.h] * Int(dilation[0]) - Int(pad[0]);
        d[dl.w] = r[2] * Int(strides[1]) + i[kl.w] * Int(dilation[1]) - Int(pad[1]);
        PrimExpr seen = LoadOr(data, d, Zero(data.dtype()), {dl.h, dl.w});
        return Cast(out.dtype, grad(g)) * Cast(out.dtype, seen);
      });
  return k.Finish(context, {result});
}

}  // namespace

void RegisterConvLegalizations(OpRegistry& r) {
  SetLegalization(r, "nn.conv2d", LegalizeConv2d);
  SetLegalization(r, "nn.conv2d_transpose", LegalizeConv2dTranspose);
  SetLegalization(r, "nn.conv2d_backward_data", LegalizeConv2dBackwardData);
  SetLegalization(r, "nn.conv2d_backward_weight", LegalizeConv2dBackwardWeight);
}

}  // namespace rxt::legalize
