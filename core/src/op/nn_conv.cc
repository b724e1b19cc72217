// nn.conv2d: 2-D convolution in NCHW or NHWC with OIHW or HWIO kernels; nn.conv2d_transpose,
// its adjoint map (the data gradient of conv2d, PyTorch's ConvTranspose2d).
#include <algorithm>

#include "nn_window.h"
#include "op_families.h"

namespace rxt {
namespace {

using namespace infer;

StructInfo InferConv2d(const CallNode& call) {
  const TensorSINode& data = TensorArg(call, 0);
  const TensorSINode& weight = TensorArg(call, 1);
  DType dtype = CommonDType(call, {0, 1});
  DType out_dtype = DTypeAttr(call, "out_dtype");
  if (out_dtype == DType::kUnknown) out_dtype = dtype;
  std::array<int64_t, 2> strides = PairAttr(call, "strides", 1);
  std::array<int64_t, 2> dilation = PairAttr(call, "dilation", 1);
  std::array<int64_t, 4> pad = PaddingAttr(call, "padding");
  int64_t groups = IntAttr(call, "groups");
  if (groups < 1) OpError(call, StrCat("attribute groups must be >= 1, got ", groups));
  Layout2D dl = LayoutAttr(call, "data_layout", {"NCHW", "NHWC"});
  Layout2D kl = LayoutAttr(call, "kernel_layout", {"OIHW", "HWIO"});
  Require4D(call, 0);
  Require4D(call, 1);
  if (!data.shape || !weight.shape) return TensorSI(out_dtype, 4);

  const Dims& d = *data.shape;
  const Dims& w = *weight.shape;
  std::optional<int64_t> in_channels = StaticDim(d[dl.c]), kernel_in = StaticDim(w[kl.c]);
  if (in_channels && kernel_in && *in_channels != *kernel_in * groups) {
    OpError(call,
            StrCat("input channels differ: ", DescribeArg(call, 0), " has ", *in_channels, ", ", DescribeArg(call, 1),
                   " expects ", *kernel_in, " * groups ", groups, " = ", *kernel_in * groups));
  }
  std::optional<int64_t> out_channels = StaticDim(w[kl.n]);
  if (out_channels && *out_channels % groups != 0) {
    OpError(call, StrCat("output channels of ", DescribeArg(call, 1), " (", *out_channels,
                         ") do not divide into groups ", groups));
  }
  PrimExpr height = WindowOutputSize(call, "height", d[dl.h], w[kl.h], pad[0], pad[2], strides[0], dilation[0], false);
  PrimExpr width = WindowOutputSize(call, "width", d[dl.w], w[kl.w], pad[1], pad[3], strides[1], dilation[1], false);
  Dims out(4);
  out[dl.n] = d[dl.n];
  out[dl.c] = w[kl.n];
  out[dl.h] = height;
  out[dl.w] = width;
  return TensorSI(out, out_dtype);
}

// The transposed convolution's output size along one dim: (in - 1) * stride - pads
// + dilation * (kernel - 1) + output_padding + 1.
PrimExpr TransposedSize(const CallNode& call, const char* what, const PrimExpr& in, const PrimExpr& kernel,
                        int64_t pads, int64_t stride, int64_t dilation, int64_t output_padding) {
  std::optional<int64_t> n = StaticDim(in), k = StaticDim(kernel);
  if (n && k) {
    int64_t out = (*n - 1) * stride - pads + dilation * (*k - 1) + output_padding + 1;
    if (out < 1) OpError(call, StrCat("the ", what, " of the result would be ", out));
    return IntImm(out);
  }
  PrimExpr span = MulDims(IntImm(stride), AddConst(in, -1));
  if (k) return AddConst(span, dilation * (*k - 1) + output_padding + 1 - pads);
  return AddConst(MakeBinary(BinaryOp::kAdd, span, MulDims(IntImm(dilation), kernel)),
                  output_padding + 1 - pads - dilation);
}

// data (N, C_in, H, W) in data_layout; weight (C_in, C_out / groups, kH, kW) as IOHW, or
// (kH, kW, C_out / groups, C_in) as HWOI.
StructInfo InferConv2dTranspose(const CallNode& call) {
  const TensorSINode& data = TensorArg(call, 0);
  const TensorSINode& weight = TensorArg(call, 1);
  DType dtype = CommonDType(call, {0, 1});
  DType out_dtype = DTypeAttr(call, "out_dtype");
  if (out_dtype == DType::kUnknown) out_dtype = dtype;
  std::array<int64_t, 2> strides = PairAttr(call, "strides", 1);
  std::array<int64_t, 2> dilation = PairAttr(call, "dilation", 1);
  std::array<int64_t, 2> output_padding = PairAttr(call, "output_padding", 0);
  std::array<int64_t, 4> pad = PaddingAttr(call, "padding");
  for (int i = 0; i < 2; ++i) {
    if (output_padding[i] >= std::max(strides[i], dilation[i])) {
      OpError(call, StrCat("attribute output_padding ", IntListToString(IntListAttr(call, "output_padding")),
                           " must be smaller than the stride or the dilation"));
    }
  }
  int64_t groups = IntAttr(call, "groups");
  if (groups < 1) OpError(call, StrCat("attribute groups must be >= 1, got ", groups));
  Layout2D dl = LayoutAttr(call, "data_layout", {"NCHW", "NHWC"});
  Layout2D kl = LayoutAttr(call, "kernel_layout", {"IOHW", "HWOI"});  // c: I (input channels), n: O per group
  Require4D(call, 0);
  Require4D(call, 1);
  if (!data.shape || !weight.shape) return TensorSI(out_dtype, 4);

  const Dims& d = *data.shape;
  const Dims& w = *weight.shape;
  std::optional<int64_t> in_channels = StaticDim(d[dl.c]), kernel_in = StaticDim(w[kl.c]);
  if (in_channels && kernel_in && *in_channels != *kernel_in) {
    OpError(call, StrCat("input channels differ: ", DescribeArg(call, 0), " has ", *in_channels, ", ",
                         DescribeArg(call, 1), " has ", *kernel_in));
  }
  if (in_channels && *in_channels % groups != 0) {
    OpError(call, StrCat("input channels of ", DescribeArg(call, 0), " (", *in_channels,
                         ") do not divide into groups ", groups));
  }
  Dims out(4);
  out[dl.n] = d[dl.n];
  out[dl.c] = MulDims(w[kl.n], IntImm(groups));
  out[dl.h] = TransposedSize(call, "height", d[dl.h], w[kl.h], pad[0] + pad[2], strides[0], dilation[0],
                             output_padding[0]);
  out[dl.w] = TransposedSize(call, "width", d[dl.w], w[kl.w], pad[1] + pad[3], strides[1], dilation[1],
                             output_padding[1]);
  return TensorSI(out, out_dtype);
}

}  // namespace

void RegisterConvOps(OpRegistry& r) {
  r.Def("nn.conv2d")
      .Describe(
          "2-D convolution (cross-correlation) of data with weight; the result is in data_layout with the "
          "weight's output channels.")
      .Input("data")
      .Input("weight")
      .Attr("strides", AttrKind::kIntList, AttrValue::IntList({1, 1}), "1 or 2 ints (height, width)")
      .Attr("padding", AttrKind::kIntList, AttrValue::IntList({0, 0, 0, 0}),
            "1 int (all sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right)")
      .Attr("dilation", AttrKind::kIntList, AttrValue::IntList({1, 1}), "1 or 2 ints (height, width)")
      .Attr("groups", AttrKind::kInt, 1, "input channels / groups = the weight's input channels")
      .Attr("data_layout", AttrKind::kString, "NCHW", "\"NCHW\" or \"NHWC\"")
      .Attr("kernel_layout", AttrKind::kString, "OIHW", "\"OIHW\" or \"HWIO\"")
      .Attr("out_dtype", AttrKind::kDType, DType::kUnknown, "the result's dtype; unknown: the inputs'")
      .Set<FInferStructInfo>(InferConv2d);
  r.Def("nn.conv2d_transpose")
      .Describe(
          "2-D transposed convolution (PyTorch's ConvTranspose2d; the data gradient of conv2d with the same "
          "weight and attributes): each input element adds weight * it to a window of the result.")
      .Input("data")
      .Input("weight")
      .Attr("strides", AttrKind::kIntList, AttrValue::IntList({1, 1}), "1 or 2 ints (height, width)")
      .Attr("padding", AttrKind::kIntList, AttrValue::IntList({0, 0, 0, 0}),
            "cut off the result: 1 int (all sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right)")
      .Attr("output_padding", AttrKind::kIntList, AttrValue::IntList({0, 0}),
            "1 or 2 ints added to the bottom/right of the result, each below the stride or the dilation")
      .Attr("dilation", AttrKind::kIntList, AttrValue::IntList({1, 1}), "1 or 2 ints (height, width)")
      .Attr("groups", AttrKind::kInt, 1, "input channels / groups feed output channels / groups")
      .Attr("data_layout", AttrKind::kString, "NCHW", "\"NCHW\" or \"NHWC\" (also the result's)")
      .Attr("kernel_layout", AttrKind::kString, "IOHW",
            "\"IOHW\" (input channels, output channels / groups, kH, kW) or \"HWOI\"")
      .Attr("out_dtype", AttrKind::kDType, DType::kUnknown, "the result's dtype; unknown: the inputs'")
      .Set<FInferStructInfo>(InferConv2dTranspose);
}

}  // namespace rxt
