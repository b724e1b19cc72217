// 2-D pooling: nn.max_pool2d, nn.avg_pool2d, nn.adaptive_avg_pool2d.
#include "nn_window.h"
#include "op_families.h"

namespace rxt {
namespace {

using namespace infer;

StructInfo InferPool2d(const CallNode& call) {
  const TensorSINode& data = TensorArg(call, 0);
  std::array<int64_t, 2> size = PairAttr(call, "pool_size", 1);
  std::array<int64_t, 2> strides = PairAttr(call, "strides", 1);
  std::array<int64_t, 2> dilation = PairAttr(call, "dilation", 1);
  std::array<int64_t, 4> pad = PaddingAttr(call, "padding");
  bool ceil_mode = BoolAttr(call, "ceil_mode");
  Layout2D layout = LayoutAttr(call, "layout", {"NCHW", "NHWC"});
  Require4D(call, 0);
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

OpDef& DefPool(OpRegistry& r, const char* name, const char* doc) {
  return r.Def(name)
      .Describe(doc)
      .Input("data")
      .Attr("pool_size", AttrKind::kIntList, AttrValue::IntList({1, 1}), "1 or 2 ints (height, width)")
      .Attr("strides", AttrKind::kIntList, AttrValue::IntList({1, 1}), "1 or 2 ints (height, width)")
      .Attr("padding", AttrKind::kIntList, AttrValue::IntList({0, 0, 0, 0}),
            "1 int (all sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right)")
      .Attr("dilation", AttrKind::kIntList, AttrValue::IntList({1, 1}), "1 or 2 ints (height, width)")
      .Attr("ceil_mode", AttrKind::kBool, false,
            "round the output size up (a window may still not start in the trailing padding)")
      .Attr("layout", AttrKind::kString, "NCHW", "\"NCHW\" or \"NHWC\"")
      .Set<FInferStructInfo>(InferPool2d);
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
}

}  // namespace rxt
