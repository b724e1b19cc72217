// nn.conv2d: 2-D convolution in NCHW or NHWC with OIHW or HWIO kernels.
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
}

}  // namespace rxt
