/// TrimConvTaps: the kernel taps of a convolution with constant weights that read only padding,
/// at every output position, are cut off the weights, and the padding shrinks to match:
///
///   nn.conv2d(x: (N, C, 1, 1), W: (O, C, 3, 3), padding=[1, 1, 1, 1])
///     ->  nn.conv2d(x, W[:, :, 1:2, 1:2], padding=[0, 0, 0, 0])
///
/// The result is the same (a cut tap only ever multiplied padding's zeros) and the convolution
/// reads a ninth of the weights: a classification network's last stages on small images
/// (resnet18's 512x512x3x3 convolutions on 1x1 maps) were dominated by reading the dead taps.
/// Only the live taps of each axis, a contiguous range, are kept; a convolution whose input
/// size is not static, or whose weights are not a constant, is left as it is.
#include <algorithm>
#include <cstring>

#include "../../op/nn_window.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/op.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

/// The taps [first, end) of one axis of the kernel that read the data (not padding) at some
/// output position; every tap outside them reads only padding. Empty (first == end) if the
/// live taps are not contiguous or none is live.
struct LiveTaps {
  int64_t first = 0, end = 0;
};

LiveTaps LiveAlongAxis(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  LiveTaps live{kernel, 0};
  std::vector<bool> reads(kernel, false);
  for (int64_t k = 0; k < kernel; ++k) {
    // Output o reads input o * stride - pad + k * dilation.
    for (int64_t o = 0; o < out && !reads[k]; ++o) {
      int64_t i = o * stride - pad + k * dilation;
      reads[k] = i >= 0 && i < in;
    }
    if (reads[k]) live.first = std::min(live.first, k), live.end = k + 1;
  }
  for (int64_t k = live.first; k < live.end; ++k) {
    if (!reads[k]) return {};
  }
  return live.first < live.end ? live : LiveTaps{};
}

int64_t OutSize(int64_t in, int64_t kernel, int64_t stride, int64_t pad_before, int64_t pad_after, int64_t dilation) {
  int64_t span = in + pad_before + pad_after - dilation * (kernel - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

/// |weight| with only kernel rows [h.first, h.end) and columns [w.first, w.end) of the
/// layout's H and W axes.
Tensor SliceKernel(const Tensor& weight, const infer::Layout2D& layout, LiveTaps h, LiveTaps w) {
  std::vector<int64_t> shape = weight.shape();
  std::vector<int64_t> first(4, 0);
  first[layout.h] = h.first, shape[layout.h] = h.end - h.first;
  first[layout.w] = w.first, shape[layout.w] = w.end - w.first;
  Tensor out = Tensor::Empty(shape, weight.dtype());
  size_t element = weight.nbytes() / static_cast<size_t>(weight.numel());
  const auto* src = static_cast<const std::byte*>(weight.data());
  auto* dst = static_cast<std::byte*>(out.data());
  const std::vector<int64_t>& in = weight.shape();
  for (int64_t a = 0; a < shape[0]; ++a) {
    for (int64_t b = 0; b < shape[1]; ++b) {
      for (int64_t c = 0; c < shape[2]; ++c) {
        // The innermost axis is copied as one run.
        int64_t from = (((a + first[0]) * in[1] + b + first[1]) * in[2] + c + first[2]) * in[3] + first[3];
        std::memcpy(dst, src + from * element, shape[3] * element);
        dst += shape[3] * element;
      }
    }
  }
  return out;
}

/// The conv2d call with dead taps cut, or null.
Expr Trim(const CallNode& conv) {
  const auto* constant = conv.args[1]->As<ConstantNode>();
  const auto* data = GetStructInfo(conv.args[0]) ? GetStructInfo(conv.args[0])->As<TensorSINode>() : nullptr;
  if (constant == nullptr || constant->data.ndim() != 4 || data == nullptr || !data->shape || data->ndim != 4) {
    return nullptr;
  }
  infer::Layout2D data_layout = infer::LayoutAttr(conv, "data_layout", {"NCHW", "NHWC"});
  infer::Layout2D kernel_layout = infer::LayoutAttr(conv, "kernel_layout", {"OIHW", "HWIO"});
  std::array<int64_t, 2> strides = infer::PairAttr(conv, "strides", 1);
  std::array<int64_t, 2> dilation = infer::PairAttr(conv, "dilation", 1);
  std::array<int64_t, 4> padding = infer::PaddingAttr(conv, "padding");
  const std::vector<int64_t>& kernel_shape = constant->data.shape();
  LiveTaps live[2];
  std::array<int64_t, 4> trimmed = padding;
  bool cut = false;
  for (int axis = 0; axis < 2; ++axis) {
    int64_t in = 0;
    if (!GetConstInt((*data->shape)[axis == 0 ? data_layout.h : data_layout.w], &in)) return nullptr;
    int64_t kernel = kernel_shape[axis == 0 ? kernel_layout.h : kernel_layout.w];
    int64_t out = OutSize(in, kernel, strides[axis], padding[axis], padding[axis + 2], dilation[axis]);
    live[axis] = LiveAlongAxis(in, out, kernel, strides[axis], padding[axis], dilation[axis]);
    if (out < 1 || live[axis].first == live[axis].end) return nullptr;
    trimmed[axis] -= live[axis].first * dilation[axis];
    trimmed[axis + 2] -= (kernel - live[axis].end) * dilation[axis];
    int64_t kept = live[axis].end - live[axis].first;
    if (trimmed[axis] < 0 || trimmed[axis + 2] < 0 ||
        OutSize(in, kept, strides[axis], trimmed[axis], trimmed[axis + 2], dilation[axis]) != out) {
      return nullptr;
    }
    cut = cut || kept < kernel;
  }
  if (!cut) return nullptr;
  Attrs attrs = conv.attrs;
  attrs.Set("padding", AttrValue::IntList({trimmed[0], trimmed[1], trimmed[2], trimmed[3]}));
  Tensor weight = SliceKernel(constant->data, kernel_layout, live[0], live[1]);
  return MakeCall(conv.callee, {conv.args[0], MakeConstant(std::move(weight))}, std::move(attrs));
}

class TapTrimmer : public ExprMutator {
 public:
  using ExprMutator::ExprMutator;

  Expr VisitCall(const Expr& e, const CallNode& node) override {
    Expr visited = ExprMutator::VisitCall(e, node);
    const auto* call = visited->As<CallNode>();
    const OpDef* op = call ? AsOp(call->callee) : nullptr;
    if (op == nullptr || op->name() != "nn.conv2d") return visited;
    Expr trimmed = Trim(*call);
    return trimmed ? trimmed : visited;
  }
};

}  // namespace

Pass TrimConvTaps() {
  return CreateModulePass([](IRModule module) { return TapTrimmer().MutateModule(std::move(module)); }, "TrimConvTaps");
}

}  // namespace rxt
