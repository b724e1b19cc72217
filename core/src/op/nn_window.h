// Shared by 2-D convolution and pooling: layouts, the (1, 2 or 4)-int padding forms and
// the output size of a sliding window.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "infer_util.h"

namespace rxt::infer {

/// Positions of the batch, channel, height and width dims in a 4-D layout ("NCHW", "NHWC",
/// or the kernel layouts "OIHW", "HWIO" with O as n and I as c).
struct Layout2D {
  int n, c, h, w;
};
/// Reads a layout attribute that must be one of |allowed|.
Layout2D LayoutAttr(const CallNode& call, const std::string& name, const std::vector<std::string>& allowed);

/// An attribute of 1 int (used for both dims) or 2 ints (height, width), each >= |min|.
std::array<int64_t, 2> PairAttr(const CallNode& call, const std::string& name, int64_t min);
/// Padding of 1 int (all sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right),
/// returned as {top, left, bottom, right}; never negative.
std::array<int64_t, 4> PaddingAttr(const CallNode& call, const std::string& name);

/// The number of positions of a window of |kernel| (dilated) on |size| padded by
/// |pad_before| + |pad_after| with |stride|. ceil_mode rounds up, but (as in PyTorch) a
/// window may not start in the trailing padding. Null when it cannot be expressed
/// (ceil_mode on a symbolic size). A static result < 1 is a bad call.
PrimExpr WindowOutputSize(const CallNode& call, const char* what, const PrimExpr& size, const PrimExpr& kernel,
                          int64_t pad_before, int64_t pad_after, int64_t stride, int64_t dilation, bool ceil_mode);

/// Checks that tensor argument |arg| is 4-D when its ndim is known.
void Require4D(const CallNode& call, int arg);

}  // namespace rxt::infer
