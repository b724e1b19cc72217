// Convolutions of one-channel images (a network's first layer on grey images: LeNet's 1 -> 6
// on 28x28) with stride 1 and no dilation, as direct loops on the caller's NCHW tensors.
// oneDNN pads the output channels to blocks of 16 and reorders them back (LeNet: 6 -> 16, 2.7x
// the work and memory, then a 0.25 ms reorder); one input channel has nothing to block, so
// plain loops over output rows, vectorized across the row, do less. Results are the same sums
// in a fixed order (bias, then the taps row by row), whatever the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "conv_params.h"

namespace rxt::lib_dnnl {

struct SingleChannelConv {
  int64_t images, height, width;        // data (N, 1, H, W)
  int64_t filters, kernel_h, kernel_w;  // weight (K, 1, R, S)
  int64_t pad[4];                       // top, left, bottom, right

  /// True if this path computes the convolution of |data| and |weight| with |window|.
  static bool Applies(const std::vector<int64_t>& data, const std::vector<int64_t>& weight, const ConvWindow& window);
  static SingleChannelConv Of(const std::vector<int64_t>& data, const std::vector<int64_t>& weight,
                              const ConvWindow& window);

  int64_t out_h() const { return height + pad[0] + pad[2] - kernel_h + 1; }
  int64_t out_w() const { return width + pad[1] + pad[3] - kernel_w + 1; }

  /// out (N, K, oH, oW) = conv(data, weight) (+ bias per filter) (then ReLU); bias may be null.
  void Forward(const float* data, const float* weight, const float* bias, bool relu, float* out) const;
  /// dweight (K, 1, R, S) and, unless null, dbias (K) from data and the output gradient dz.
  void BackwardWeights(const float* data, const float* dz, float* dweight, float* dbias) const;
};

}  // namespace rxt::lib_dnnl
