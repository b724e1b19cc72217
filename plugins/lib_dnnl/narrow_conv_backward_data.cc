#include "narrow_conv_backward_data.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "cpu_isa.h"
#include "dnnl_context.h"
#include "host_threads.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RXT_HAVE_NARROW_AVX512 1
#endif

namespace rxt::lib_dnnl {
namespace {

constexpr int kMaxChannels = 8;
// Scratch: each thread's padded rows of one image's output gradient; the caller's flipped
// weights (read by every thread).
constexpr int kRowsSlot = 0, kWeightsSlot = 1;

int64_t RoundUp16(int64_t n) { return (n + 15) / 16 * 16; }

#ifdef RXT_HAVE_NARROW_AVX512
// GCC 12 warns inside its own AVX-512 headers (the masked intrinsics' unused "src" operand).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

/// One image: dx[c][y][x0..x0+16) = sum over k, kh, kw of flipped[k][kh][kw][c] * rows[k][a][x0 + pl + kw]
/// with a = y + pt + kh - (R - 1), the rows of dz that exist (others are padding: skipped).
/// |rows| holds dz's rows with S - 1 zeros on the left and zeros up to |row_width| on the right.
template <int kC>
__attribute__((target("avx512f"))) void Image(const NarrowDataGradient& g, const float* rows, int64_t row_width,
                                              const float* flipped, float* dx) {
  const int64_t oh = g.out_h(), R = g.kernel_h, S = g.kernel_w, plane = g.height * g.width;
  for (int64_t y = 0; y < g.height; ++y) {
    // Taps kh whose row a = y + pt + kh - (R - 1) lies in [0, oh).
    int64_t kh_begin = std::max<int64_t>(0, R - 1 - y - g.pad[0]);
    int64_t kh_end = std::min<int64_t>(R, oh + R - 1 - y - g.pad[0]);
    for (int64_t x0 = 0; x0 < g.width; x0 += 16) {
      __m512 acc[kC];
#pragma GCC unroll 8
      for (int c = 0; c < kC; ++c) acc[c] = _mm512_setzero_ps();
      for (int64_t k = 0; k < g.filters; ++k) {
        for (int64_t kh = kh_begin; kh < kh_end; ++kh) {
          const float* row = rows + (k * oh + y + g.pad[0] + kh - (R - 1)) * row_width + x0 + g.pad[1];
          const float* w = flipped + (k * R + kh) * S * kC;
          for (int64_t kw = 0; kw < S; ++kw) {
            __m512 v = _mm512_loadu_ps(row + kw);
#pragma GCC unroll 8
            for (int c = 0; c < kC; ++c) acc[c] = _mm512_fmadd_ps(_mm512_set1_ps(w[kw * kC + c]), v, acc[c]);
          }
        }
      }
      int64_t lanes = std::min<int64_t>(16, g.width - x0);
      auto mask = static_cast<__mmask16>(lanes == 16 ? 0xFFFF : (1u << lanes) - 1);
#pragma GCC unroll 8
      for (int c = 0; c < kC; ++c) _mm512_mask_storeu_ps(dx + c * plane + y * g.width + x0, mask, acc[c]);
    }
  }
}
#pragma GCC diagnostic pop

using ImageFn = void (*)(const NarrowDataGradient&, const float*, int64_t, const float*, float*);
constexpr ImageFn kImage[kMaxChannels] = {Image<1>, Image<2>, Image<3>, Image<4>,
                                          Image<5>, Image<6>, Image<7>, Image<8>};
#endif

}  // namespace

bool NarrowDataGradient::Applies(const std::vector<int64_t>& data, const std::vector<int64_t>& weight,
                                 const ConvWindow& window) {
#ifdef RXT_HAVE_NARROW_AVX512
  return UseAvx512() && data.size() == 4 && weight.size() == 4 && data[1] >= 1 && data[1] <= kMaxChannels &&
         weight[1] == data[1] && window.groups == 1 && window.stride[0] == 1 && window.stride[1] == 1 &&
         window.dilation[0] == 1 && window.dilation[1] == 1 && data[2] + window.pad[0] + window.pad[2] >= weight[2] &&
         data[3] + window.pad[1] + window.pad[3] >= weight[3];
#else
  (void)data, (void)weight, (void)window;
  return false;
#endif
}

NarrowDataGradient NarrowDataGradient::Of(const std::vector<int64_t>& data, const std::vector<int64_t>& weight,
                                          const ConvWindow& window) {
  return {data[0],   data[1],   data[2],   data[3], weight[0],
          weight[2], weight[3], {window.pad[0], window.pad[1], window.pad[2], window.pad[3]}};
}

void NarrowDataGradient::Run(const float* dz, const float* weight, float* dx) const {
#ifdef RXT_HAVE_NARROW_AVX512
  const int64_t C = channels, K = filters, R = kernel_h, S = kernel_w, oh = out_h(), ow = out_w();
  // flipped[k][kh][kw][c] = weight[k][c][R-1-kh][S-1-kw]: the taps in the order the loops read.
  auto* flipped = static_cast<float*>(ScratchBuffer(kWeightsSlot, K * R * S * C * sizeof(float)));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t kh = 0; kh < R; ++kh)
        for (int64_t kw = 0; kw < S; ++kw) {
          flipped[((k * R + kh) * S + kw) * C + c] = weight[((k * C + c) * R + (R - 1 - kh)) * S + (S - 1 - kw)];
        }
  // A row's vector loads reach column x0 + pl + kw + 15 for the last x0 < width; the row itself
  // ends at S - 1 + ow.
  const int64_t row_width = std::max(RoundUp16(width) + pad[1] + S - 1, S - 1 + ow);
  const int64_t dz_image = K * oh * ow, dx_image = C * height * width;
  BatchSplit split = BatchSplit::Of(images);
  ParallelParts(split.parts, [&](int64_t part) {
    auto [first, count] = split.Part(part);
    auto* rows = static_cast<float*>(ScratchBuffer(kRowsSlot, K * oh * row_width * sizeof(float)));
    for (int64_t n = first; n < first + count; ++n) {
      const float* image = dz + n * dz_image;
      for (int64_t r = 0; r < K * oh; ++r) {
        float* row = rows + r * row_width;
        std::fill(row, row + S - 1, 0.0f);
        std::memcpy(row + S - 1, image + r * ow, ow * sizeof(float));
        std::fill(row + S - 1 + ow, row + row_width, 0.0f);
      }
      kImage[C - 1](*this, rows, row_width, flipped, dx + n * dx_image);
    }
  });
#else
  (void)dz, (void)weight, (void)dx;
  throw std::logic_error("NarrowDataGradient without AVX-512");
#endif
}

}  // namespace rxt::lib_dnnl
