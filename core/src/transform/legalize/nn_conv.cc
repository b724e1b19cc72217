/// Legalization of nn.conv2d (NCHW or NHWC data, OIHW or HWIO weights; strides, padding,
/// dilation, groups): a padding stage when there is padding, then one reduction over the
/// input channels of the group and the kernel window, in out_dtype.
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

}  // namespace

void RegisterConvLegalizations(OpRegistry& r) { SetLegalization(r, "nn.conv2d", LegalizeConv2d); }

}  // namespace rxt::legalize
