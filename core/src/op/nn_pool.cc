// 2-D pooling: nn.max_pool2d, nn.avg_pool2d, nn.adaptive_avg_pool2d, and their backward ops
// (the gradients of the data: dz spread back over the windows).
#include "nn_window.h"
#include "op_families.h"

namespace rxt {
namespace {

using namespace infer;

// The pooled struct info of argument |data_arg|.
StructInfo PooledSI(const CallNode& call, int data_arg) {
  const TensorSINode& data = TensorArg(call, data_arg);
  std::array<int64_t, 2> size = PairAttr(call, "pool_size", 1);
  std::array<int64_t, 2> strides = PairAttr(call, "strides", 1);
  std::array<int64_t, 2> dilation = PairAttr(call, "dilation", 1);
  std::array<int64_t, 4> pad = PaddingAttr(call, "padding");
  bool ceil_mode = BoolAttr(call, "ceil_mode");
  Layout2D layout = LayoutAttr(call, "layout", {"NCHW", "NHWC"});
  Require4D(call, data_arg);
  if (!data.shape) return TensorSI(data.dtype, 4);
  const Dims& d = *data.shape;
  PrimExpr height = WindowOutputSize(call, "height", d[layout.h], IntImm(size[0]), pad[0], pad[2], strides[0],
                                     dilation[0], ceil_mode);
  PrimExpr width =
      WindowOutputSize(call, "width", d[layout.w], IntImm(size[1]), pad[1], pad[3], strides[1], dilation[1], ceil_mode);
  if (height == nullptr || width == nullptr) return TensorSI(data.dtype, 4);
  Dims out = d;
  out[layout.h] = height;
  out[layout.w] = width;
  return TensorSI(out, data.dtype);
}

StructInfo InferPool2d(const CallNode& call) { return PooledSI(call, 0); }

StructInfo InferAdaptiveAvgPool2d(const CallNode& call) {
  const TensorSINode& data = TensorArg(call, 0);
  std::optional<std::vector<int64_t>> size = OptionalIntListAttr(call, "output_size");
  Layout2D layout = LayoutAttr(call, "layout", {"NCHW", "NHWC"});
  Require4D(call, 0);
  if (size) {
    if (size->size() != 1 && size->size() != 2) {
      OpError(call, StrCat("attribute output_size must have 1 or 2 ints, got ", IntListToString(*size)));
    }
    for (int64_t s : *size) {
      if (s < 1) OpError(call, StrCat("attribute output_size ", IntListToString(*size), " must be positive"));
    }
  }
  if (!data.shape) return TensorSI(data.dtype, 4);
  Dims out = *data.shape;
  if (size) {
    out[layout.h] = IntImm(size->front());
    out[layout.w] = IntImm(size->back());
  }
  return TensorSI(out, data.dtype);
}

// (output_grad, data) -> a tensor like data: output_grad must have the pooled shape of data.
StructInfo InferPoolBackward(const CallNode& call, const StructInfo& pooled) {
  CommonDType(call, {0, 1});
  Require4D(call, 0);
  const TensorSINode& grad = TensorArg(call, 0);
  const auto* expected = pooled->As<TensorSINode>();
  if (grad.shape && expected->shape) {
    for (int i = 0; i < 4; ++i) {
      std::optional<int64_t> got = StaticDim((*grad.shape)[i]), want = StaticDim((*expected->shape)[i]);
      if (got && want && *got != *want) {
        OpError(call, StrCat(DescribeArg(call, 0), " has ", *got, " at dim ", i, " but pooling ",
                             DescribeArg(call, 1), " gives ", *want));
      }
    }
  }
  return ArgSI(call, 1);
}

StructInfo InferPool2dBackward(const CallNode& call) { return InferPoolBackward(call, PooledSI(call, 1)); }

StructInfo InferAdaptiveAvgPool2dBackward(const CallNode& call) {
  Require4D(call, 1);
  LayoutAttr(call, "layout", {"NCHW", "NHWC"});
  CommonDType(call, {0, 1});
  Require4D(call, 0);
  return ArgSI(call, 1);
}

OpDef& DefPoolWindow(OpDef& def) {
  return def.Attr("pool_size", AttrKind::kIntList, AttrValue::IntList({1, 1}), "1 or 2 ints (height, width)")
      .Attr("strides", AttrKind::kIntList, AttrValue::IntList({1, 1}), "1 or 2 ints (height, width)")
      .Attr("padding", AttrKind::kIntList, AttrValue::IntList({0, 0, 0, 0}),
            "1 int (all sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right)")
      .Attr("dilation", AttrKind::kIntList, AttrValue::IntList({1, 1}), "1 or 2 ints (height, width)")
      .Attr("ceil_mode", AttrKind::kBool, false,
            "round the output size up (a window may still not start in the trailing padding)")
      .Attr("layout", AttrKind::kString, "NCHW", "\"NCHW\" or \"NHWC\"");
}

OpDef& DefPool(OpRegistry& r, const char* name, const char* doc) {
  return DefPoolWindow(r.Def(name).Describe(doc).Input("data")).Set<FInferStructInfo>(InferPool2d);
}

OpDef& DefPoolBackward(OpRegistry& r, const char* name, const char* doc) {
  return DefPoolWindow(r.Def(name).Describe(doc).Input("output_grad").Input("data"))
      .Set<FInferStructInfo>(InferPool2dBackward);
}

}  // namespace

void RegisterPoolOps(OpRegistry& r) {
  DefPool(r, "nn.max_pool2d", "2-D max pooling over sliding windows (padding never wins the max).");
  DefPool(r, "nn.avg_pool2d", "2-D average pooling over sliding windows.")
      .Attr("count_include_pad", AttrKind::kBool, false, "divide by the whole window, padding included");
  r.Def("nn.adaptive_avg_pool2d")
      .Describe("2-D average pooling to a given output size (none: the input's), windows chosen as in PyTorch.")
      .Input("data")
      .Attr("output_size", AttrKind::kOptionalIntList, AttrValue(), "1 or 2 ints (height, width); none: the input's")
      .Attr("layout", AttrKind::kString, "NCHW", "\"NCHW\" or \"NHWC\"")
      .Set<FInferStructInfo>(InferAdaptiveAvgPool2d);
  DefPoolBackward(r, "nn.max_pool2d_backward",
                  "The data gradient of nn.max_pool2d: each window's output_grad goes to the window's first maximum "
                  "(row-major), as in PyTorch.");
  DefPoolBackward(r, "nn.avg_pool2d_backward",
                  "The data gradient of nn.avg_pool2d: each window's output_grad, divided by the window's count, "
                  "goes to every element of the window.")
      .Attr("count_include_pad", AttrKind::kBool, false, "divide by the whole window, padding included");
  r.Def("nn.adaptive_avg_pool2d_backward")
      .Describe(
          "The data gradient of nn.adaptive_avg_pool2d: each output_grad element, divided by its window's size, "
          "goes to every element of the window; the windows follow from the shapes of output_grad and data.")
      .Input("output_grad")
      .Input("data")
      .Attr("layout", AttrKind::kString, "NCHW", "\"NCHW\" or \"NHWC\"")
      .Set<FInferStructInfo>(InferAdaptiveAvgPool2dBackward);
}

}  // namespace rxt
