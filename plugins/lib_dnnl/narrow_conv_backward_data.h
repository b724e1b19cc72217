// The data gradient of a convolution whose data has few channels (at most 8: LeNet's second,
// 6 -> 16 on 14x14), stride 1 and no dilation, as direct AVX-512 loops on the caller's NCHW
// tensors. oneDNN pads such channels to an 8- or 16-channel block and runs its AVX2 kernel
// (LeNet: 0.65 ms); here each output row of every channel accumulates in its own register
// while the output gradient's rows stream through once, and rows that only padding would feed
// are skipped. Results are the same sums in a fixed order whatever the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "conv_params.h"

namespace rxt::lib_dnnl {

struct NarrowDataGradient {
  int64_t images, channels, height, width;  // the data gradient dx (N, C, H, W)
  int64_t filters, kernel_h, kernel_w;      // weight (K, C, R, S)
  int64_t pad[4];                           // top, left, bottom, right

  /// True if this path computes the data gradient for |data|, |weight| and |window| here
  /// (AVX-512 in use, see cpu_isa.h).
  static bool Applies(const std::vector<int64_t>& data, const std::vector<int64_t>& weight, const ConvWindow& window);
  static NarrowDataGradient Of(const std::vector<int64_t>& data, const std::vector<int64_t>& weight,
                               const ConvWindow& window);

  int64_t out_h() const { return height + pad[0] + pad[2] - kernel_h + 1; }
  int64_t out_w() const { return width + pad[1] + pad[3] - kernel_w + 1; }

  /// dx (N, C, H, W) from the output gradient dz (N, K, oH, oW) and weight (K, C, R, S).
  void Run(const float* dz, const float* weight, float* dx) const;
};

}  // namespace rxt::lib_dnnl
