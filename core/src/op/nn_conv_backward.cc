// nn.conv2d_backward_data and nn.conv2d_backward_weight: the two halves of conv2d's gradient as
// ops of their own (as PyTorch's convolution_backward and TVM's conv2d_backward_weight), so that
// a gradient rule emits one call per half and a kernel library matches that call, not the
// formulation a rule happened to choose. Both take conv2d's attributes, plus the sizes the
// gradient cannot recover from its operands: the data's height and width (a strided window may
// leave trailing rows unread) and the kernel's.
#include "nn_window.h"
#include "op_families.h"

namespace rxt {
namespace {

using namespace infer;

/// conv2d's attributes as both ops read them.
struct ConvWindow {
  std::array<int64_t, 2> strides, dilation;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  int64_t groups;
  Layout2D data, kernel;
};

ConvWindow ReadWindow(const CallNode& call) {
  ConvWindow w;
  w.strides = PairAttr(call, "strides", 1);
  w.dilation = PairAttr(call, "dilation", 1);
  w.pad = PaddingAttr(call, "padding");
  w.groups = IntAttr(call, "groups");
  if (w.groups < 1) OpError(call, StrCat("attribute groups must be >= 1, got ", w.groups));
  w.data = LayoutAttr(call, "data_layout", {"NCHW", "NHWC"});
  w.kernel = LayoutAttr(call, "kernel_layout", {"OIHW", "HWIO"});
  Require4D(call, 0);
  Require4D(call, 1);
  return w;
}

DType ResultDType(const CallNode& call) {
  DType dtype = CommonDType(call, {0, 1});
  DType out_dtype = DTypeAttr(call, "out_dtype");
  return out_dtype == DType::kUnknown ? dtype : out_dtype;
}

/// Checks, where every size is static, that conv2d maps |size| with a kernel of |kernel| to
/// |out| along spatial axis |axis| (0: height, 1: width): the output gradient must be the
/// gradient of such a convolution's result.
void CheckOutputSize(const CallNode& call, const ConvWindow& w, int axis, const PrimExpr& size,
                     const PrimExpr& kernel, const PrimExpr& out) {
  std::optional<int64_t> n = StaticDim(size), k = StaticDim(kernel), o = StaticDim(out);
  if (!n || !k || !o) return;
  int64_t span = *n + w.pad[axis] + w.pad[axis + 2] - w.dilation[axis] * (*k - 1) - 1;
  int64_t expected = span < 0 ? 0 : span / w.strides[axis] + 1;
  if (expected != *o) {
    const char* what = axis == 0 ? "height" : "width";
    OpError(call, StrCat(DescribeArg(call, 0), " has ", what, " ", *o, ", but conv2d of ", what, " ", *n,
                         " with a kernel of ", *k, " gives ", expected));
  }
}

/// Output channels (of output_grad) must divide into the groups.
void CheckGroupedOutputs(const CallNode& call, const ConvWindow& w, const PrimExpr& channels) {
  std::optional<int64_t> o = StaticDim(channels);
  if (o && *o % w.groups != 0) {
    OpError(call, StrCat("output channels of ", DescribeArg(call, 0), " (", *o, ") do not divide into groups ",
                         w.groups));
  }
}

// output_grad (N, O, oH, oW) in data_layout, weight (O, I / groups, kH, kW) in kernel_layout ->
// the data's gradient (N, I, data_size) in data_layout.
StructInfo InferConv2dBackwardData(const CallNode& call) {
  ConvWindow w = ReadWindow(call);
  DType dtype = ResultDType(call);
  std::array<int64_t, 2> size = PairAttr(call, "data_size", 1);
  const TensorSINode& grad = TensorArg(call, 0);
  const TensorSINode& weight = TensorArg(call, 1);
  if (!grad.shape || !weight.shape) return TensorSI(dtype, 4);
  const Dims& g = *grad.shape;
  const Dims& k = *weight.shape;
  std::optional<int64_t> o = StaticDim(g[w.data.c]), ko = StaticDim(k[w.kernel.n]);
  if (o && ko && *o != *ko) {
    OpError(call, StrCat("output channels differ: ", DescribeArg(call, 0), " has ", *o, ", ", DescribeArg(call, 1),
                         " has ", *ko));
  }
  CheckGroupedOutputs(call, w, g[w.data.c]);
  CheckOutputSize(call, w, 0, IntImm(size[0]), k[w.kernel.h], g[w.data.h]);
  CheckOutputSize(call, w, 1, IntImm(size[1]), k[w.kernel.w], g[w.data.w]);
  Dims out(4);
  out[w.data.n] = g[w.data.n];
  out[w.data.c] = MulDims(k[w.kernel.c], IntImm(w.groups));
  out[w.data.h] = IntImm(size[0]);
  out[w.data.w] = IntImm(size[1]);
  return TensorSI(out, dtype);
}

// output_grad (N, O, oH, oW) and data (N, I, H, W) in data_layout -> the weight's gradient
// (O, I / groups, kernel_size) in kernel_layout.
StructInfo InferConv2dBackwardWeight(const CallNode& call) {
  ConvWindow w = ReadWindow(call);
  DType dtype = ResultDType(call);
  std::array<int64_t, 2> kernel = PairAttr(call, "kernel_size", 1);
  const TensorSINode& grad = TensorArg(call, 0);
  const TensorSINode& data = TensorArg(call, 1);
  if (!grad.shape || !data.shape) return TensorSI(dtype, 4);
  const Dims& g = *grad.shape;
  const Dims& d = *data.shape;
  std::optional<int64_t> gn = StaticDim(g[w.data.n]), dn = StaticDim(d[w.data.n]);
  if (gn && dn && *gn != *dn) {
    OpError(call, StrCat("batch sizes differ: ", DescribeArg(call, 0), " has ", *gn, ", ", DescribeArg(call, 1),
                         " has ", *dn));
  }
  CheckGroupedOutputs(call, w, g[w.data.c]);
  std::optional<int64_t> in_channels = StaticDim(d[w.data.c]);
  if (in_channels && *in_channels % w.groups != 0) {
    OpError(call, StrCat("input channels of ", DescribeArg(call, 1), " (", *in_channels,
                         ") do not divide into groups ", w.groups));
  }
  CheckOutputSize(call, w, 0, d[w.data.h], IntImm(kernel[0]), g[w.data.h]);
  CheckOutputSize(call, w, 1, d[w.data.w], IntImm(kernel[1]), g[w.data.w]);
  Dims out(4);
  out[w.kernel.n] = g[w.data.c];
  out[w.kernel.c] = FloorDivConst(d[w.data.c], w.groups);
  out[w.kernel.h] = IntImm(kernel[0]);
  out[w.kernel.w] = IntImm(kernel[1]);
  return TensorSI(out, dtype);
}

/// conv2d's attributes, with the documentation both ops share.
OpDef& DefConvAttrs(OpDef& def) {
  return def.Attr("strides", AttrKind::kIntList, AttrValue::IntList({1, 1}), "the convolution's: 1 or 2 ints")
      .Attr("padding", AttrKind::kIntList, AttrValue::IntList({0, 0, 0, 0}),
            "the convolution's: 1 int (all sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right)")
      .Attr("dilation", AttrKind::kIntList, AttrValue::IntList({1, 1}), "the convolution's: 1 or 2 ints")
      .Attr("groups", AttrKind::kInt, 1, "the convolution's")
      .Attr("data_layout", AttrKind::kString, "NCHW", "\"NCHW\" or \"NHWC\": of output_grad and the data")
      .Attr("kernel_layout", AttrKind::kString, "OIHW", "\"OIHW\" or \"HWIO\": of the weight")
      .Attr("out_dtype", AttrKind::kDType, DType::kUnknown, "the result's dtype; unknown: the inputs'");
}

}  // namespace

void RegisterConvBackwardOps(OpRegistry& r) {
  DefConvAttrs(r.Def("nn.conv2d_backward_data")
                   .Describe("The data gradient of nn.conv2d: output_grad spread back over the windows through "
                             "the weight (nn.conv2d_transpose with the convolution's weight), sized data_size.")
                   .Input("output_grad")
                   .Input("weight"))
      .RequiredAttr("data_size", AttrKind::kIntList, "the data's height and width: 1 or 2 ints")
      .Set<FInferStructInfo>(InferConv2dBackwardData);
  DefConvAttrs(r.Def("nn.conv2d_backward_weight")
                   .Describe("The weight gradient of nn.conv2d: each kernel position sums output_grad times the "
                             "data it saw, over the batch and the output positions.")
                   .Input("output_grad")
                   .Input("data"))
      .RequiredAttr("kernel_size", AttrKind::kIntList, "the kernel's height and width: 1 or 2 ints")
      .Set<FInferStructInfo>(InferConv2dBackwardWeight);
}

}  // namespace rxt
