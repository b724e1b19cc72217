// Convolutions whose output maps are a few pixels (a classification network's last stages:
// resnet18 on 32x32 images ends on 2x2 and 1x1 maps) as GEMMs on the caller's plain tensors.
// oneDNN runs them on blocked layouts, so every call reorders the weights in and the weight
// gradient out, and for such maps that reorder (a pass over 512x512x3x3 weights: 1.2-2.3 ms)
// costs more than the convolution, whose own kernels are slow there too (6.8 ms for the weight
// gradient of a 512 -> 512 3x3 convolution on 1x1 maps, batch 32: 17 MFLOP of work). Here the
// data is unfolded (im2col) into rows of (input channel, tap) per output pixel of every image;
// the weights are used in place as an (O, C x kH x kW) matrix; the weight gradient comes out in
// the caller's OIHW layout. Taps that read only padding for every output pixel are left out
// (a 3x3 kernel on a 1x1 map with padding 1 has one live tap): their columns would be zeros.
// With constant weights (a content id: constant_weights.h) on maps whose pixels read different
// taps (a 3x3 kernel with padding 1 on 2x2 maps: 4 of the 9 taps per pixel), each pixel gets a
// GEMM over its own taps only, on weights gathered for it once: 2.25x fewer multiply-adds there.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "conv_params.h"

namespace rxt::lib_dnnl {

struct SmallMapConv {
  int64_t images, channels, height, width;  // data (N, C, H, W)
  int64_t filters, kernel_h, kernel_w;      // weight (O, C, kH, kW)
  int64_t out_h, out_w;
  ConvWindow window;
  std::vector<int64_t> taps;   // kh * kW + kw of every live tap, in order
  std::vector<int64_t> reads;  // [pixel * live taps + tap]: the offset read in an input plane, -1 in padding

  /// Output maps of at most this many pixels go here.
  static constexpr int64_t kMaxPixels = 4;

  /// True if this path computes the convolution of |data| and |weight| with |window|.
  static bool Applies(const std::vector<int64_t>& data, const std::vector<int64_t>& weight, const ConvWindow& window);
  static SmallMapConv Of(const std::vector<int64_t>& data, const std::vector<int64_t>& weight,
                         const ConvWindow& window);

  /// out (N, O, oH, oW) = conv(data, weight) (+ bias per filter) (then ReLU); bias may be null;
  /// |weights_id|: 0, or the content id of weights that never change.
  void Forward(const float* data, const float* weight, const float* bias, bool relu, float* out,
               int64_t weights_id = 0) const;
  /// ddata (N, C, H, W) from the output gradient dz (N, O, oH, oW).
  void BackwardData(const float* dz, const float* weight, float* ddata) const;
  /// dweight (O, C, kH, kW) and, unless null, dbias (O) from data and dz.
  void BackwardWeights(const float* data, const float* dz, float* dweight, float* dbias) const;

 private:
  int64_t pixels() const { return out_h * out_w; }
  int64_t live() const { return static_cast<int64_t>(taps.size()); }
  bool all_taps() const { return live() == kernel_h * kernel_w; }
  /// cols (N x oH x oW, C x live taps): the data each output pixel's taps read, 0 in padding.
  void Unfold(const float* data, float* cols) const;
  /// ddata = the columns' gradient folded back onto the pixels they were read from.
  void Fold(const float* dcols, float* ddata) const;
  /// The weights of the live taps as an (O, C x live taps) matrix: |weight| itself when every
  /// tap is live, else gathered into |scratch|.
  const float* LiveWeights(const float* weight, float* scratch) const;
  /// body(first, end) over ranges of images, on the host's pool when there is enough work.
  void ForImages(const std::function<void(int64_t, int64_t)>& body) const;
  /// body(first, end) over ranges of filters, on the host's pool for large weights (a gather of
  /// a few taps reads every cache line of them: memory-bound, and one core does not saturate it).
  void ForFilters(const std::function<void(int64_t, int64_t)>& body) const;
  /// The live taps (positions in |taps|) that output pixel |p| reads data at.
  std::vector<int64_t> PixelTaps(int64_t p) const;
  /// Forward with one GEMM per output pixel over its own taps (constant weights only).
  void ForwardPerPixel(const float* data, const float* weight, int64_t weights_id, const float* bias, bool relu,
                       float* out) const;
  /// dz (N, O, P) as (N x P, O) rows: dz itself for 1-pixel maps, else transposed into |scratch|.
  const float* PixelRows(const float* dz, float* scratch) const;
};

}  // namespace rxt::lib_dnnl
