#include "single_channel_conv.h"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu_isa.h"
#include "dnnl_context.h"
#include "host_threads.h"

namespace rxt::lib_dnnl {
namespace {

// Scratch slots (dnnl_context.h) the convolutions of conv2d.cc and conv2d_backward.cc leave free.
constexpr int kPaddedSlot = 4, kRowSlot = 5;

void PadImage(const SingleChannelConv& c, const float* image, float* padded) {
  int64_t pw = c.width + c.pad[1] + c.pad[3], ph = c.height + c.pad[0] + c.pad[2];
  std::fill(padded, padded + ph * pw, 0.0f);
  for (int64_t y = 0; y < c.height; ++y) {
    std::copy(image + y * c.width, image + (y + 1) * c.width, padded + (y + c.pad[0]) * pw + c.pad[1]);
  }
}

// Portable loops (the plugin is built for any x86-64): a row at a time, vectorized by the
// compiler across the row.
void ForwardImage(const SingleChannelConv& c, const float* padded, const float* weight, const float* bias, bool relu,
                  float* out, float* row) {
  int64_t oh = c.out_h(), ow = c.out_w(), pw = c.width + c.pad[1] + c.pad[3];
  for (int64_t f = 0; f < c.filters; ++f) {
    const float* wf = weight + f * c.kernel_h * c.kernel_w;
    float b = bias != nullptr ? bias[f] : 0.0f;
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t x = 0; x < ow; ++x) row[x] = b;
      for (int64_t r = 0; r < c.kernel_h; ++r) {
        for (int64_t s = 0; s < c.kernel_w; ++s) {
          float wv = wf[r * c.kernel_w + s];
          const float* in = padded + (y + r) * pw + s;
          for (int64_t x = 0; x < ow; ++x) row[x] += wv * in[x];
        }
      }
      float* o = out + (f * oh + y) * ow;
      if (relu) {
        for (int64_t x = 0; x < ow; ++x) o[x] = row[x] > 0.0f ? row[x] : 0.0f;
      } else {
        std::copy(row, row + ow, o);
      }
    }
  }
}

// Adds one image's contribution to filter f's tap sums: sums[(r * S + s) * oW + x] gathers
// dz[y, x] * padded[y + r, x + s] over y, bias_sums[x] gathers dz[y, x].
void AccumulateFilter(const SingleChannelConv& c, const float* padded, const float* dz, float* sums,
                      float* bias_sums) {
  int64_t oh = c.out_h(), ow = c.out_w(), pw = c.width + c.pad[1] + c.pad[3];
  for (int64_t y = 0; y < oh; ++y) {
    const float* g = dz + y * ow;
    for (int64_t x = 0; x < ow; ++x) bias_sums[x] += g[x];
    for (int64_t r = 0; r < c.kernel_h; ++r) {
      for (int64_t s = 0; s < c.kernel_w; ++s) {
        float* acc = sums + (r * c.kernel_w + s) * ow;
        const float* in = padded + (y + r) * pw + s;
        for (int64_t x = 0; x < ow; ++x) acc[x] += g[x] * in[x];
      }
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
#define RXT_HAVE_AVX512_PATH 1
// GCC 12 warns inside its own AVX-512 headers (the masked intrinsics' unused "src" operand).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

__attribute__((target("avx512f"))) inline __mmask16 RowMask(int64_t left) {
  return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
}

// With AVX-512: 16 outputs of a row for kFilters filters in registers (the count is a template
// argument so the accumulators stay in registers), each input vector loaded once for all of
// them; a row's last chunk masked.
template <int kFilters>
__attribute__((target("avx512f"))) void ForwardFiltersAvx512(const SingleChannelConv& c, const float* padded,
                                                             const float* weight, const float* bias, bool relu,
                                                             int64_t f0, float* out) {
  int64_t oh = c.out_h(), ow = c.out_w(), pw = c.width + c.pad[1] + c.pad[3], taps = c.kernel_h * c.kernel_w;
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x0 = 0; x0 < ow; x0 += 16) {
      __mmask16 mask = RowMask(ow - x0);
      __m512 acc[kFilters];
#pragma GCC unroll 16
      for (int f = 0; f < kFilters; ++f) acc[f] = _mm512_set1_ps(bias != nullptr ? bias[f0 + f] : 0.0f);
      for (int64_t r = 0; r < c.kernel_h; ++r) {
        const float* in = padded + (y + r) * pw + x0;
        for (int64_t s = 0; s < c.kernel_w; ++s) {
          __m512 v = _mm512_maskz_loadu_ps(mask, in + s);
          const float* w = weight + f0 * taps + r * c.kernel_w + s;
#pragma GCC unroll 16
          for (int f = 0; f < kFilters; ++f) acc[f] = _mm512_fmadd_ps(_mm512_set1_ps(w[f * taps]), v, acc[f]);
        }
      }
#pragma GCC unroll 16
      for (int f = 0; f < kFilters; ++f) {
        __m512 a = relu ? _mm512_max_ps(acc[f], _mm512_setzero_ps()) : acc[f];
        _mm512_mask_storeu_ps(out + ((f0 + f) * oh + y) * ow + x0, mask, a);
      }
    }
  }
}

__attribute__((target("avx512f"))) void ForwardImageAvx512(const SingleChannelConv& c, const float* padded,
                                                           const float* weight, const float* bias, bool relu,
                                                           float* out) {
  int64_t f0 = 0;
  for (; f0 + 8 <= c.filters; f0 += 8) ForwardFiltersAvx512<8>(c, padded, weight, bias, relu, f0, out);
  switch (c.filters - f0) {
    case 7: return ForwardFiltersAvx512<7>(c, padded, weight, bias, relu, f0, out);
    case 6: return ForwardFiltersAvx512<6>(c, padded, weight, bias, relu, f0, out);
    case 5: return ForwardFiltersAvx512<5>(c, padded, weight, bias, relu, f0, out);
    case 4: return ForwardFiltersAvx512<4>(c, padded, weight, bias, relu, f0, out);
    case 3: return ForwardFiltersAvx512<3>(c, padded, weight, bias, relu, f0, out);
    case 2: return ForwardFiltersAvx512<2>(c, padded, weight, bias, relu, f0, out);
    case 1: return ForwardFiltersAvx512<1>(c, padded, weight, bias, relu, f0, out);
    default: return;
  }
}

// One filter's tap sums over all images with a kH x kW kernel known at compile time: each tap
// in its own register.
template <int kH, int kW>
__attribute__((target("avx512f"))) void BackwardFilterAvx512(const SingleChannelConv& c, const float* padded,
                                                             int64_t padded_size, const float* dz, int64_t f,
                                                             float* dweight, float* dbias) {
  int64_t oh = c.out_h(), ow = c.out_w(), pw = c.width + c.pad[1] + c.pad[3];
  __m512 acc[kH * kW];
#pragma GCC unroll 64
  for (int t = 0; t < kH * kW; ++t) acc[t] = _mm512_setzero_ps();
  __m512 bias_acc = _mm512_setzero_ps();
  for (int64_t i = 0; i < c.images; ++i) {
    const float* image = padded + i * padded_size;
    const float* g_plane = dz + (i * c.filters + f) * oh * ow;
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t x0 = 0; x0 < ow; x0 += 16) {
        __mmask16 mask = RowMask(ow - x0);
        __m512 g = _mm512_maskz_loadu_ps(mask, g_plane + y * ow + x0);
        bias_acc = _mm512_add_ps(bias_acc, g);
#pragma GCC unroll 16
        for (int r = 0; r < kH; ++r) {
          const float* in = image + (y + r) * pw + x0;
#pragma GCC unroll 16
          for (int s = 0; s < kW; ++s) acc[r * kW + s] = _mm512_fmadd_ps(g, _mm512_maskz_loadu_ps(mask, in + s), acc[r * kW + s]);
        }
      }
    }
  }
#pragma GCC unroll 64
  for (int t = 0; t < kH * kW; ++t) dweight[f * kH * kW + t] = _mm512_reduce_add_ps(acc[t]);
  if (dbias != nullptr) dbias[f] = _mm512_reduce_add_ps(bias_acc);
}

using BackwardFilterFn = void (*)(const SingleChannelConv&, const float*, int64_t, const float*, int64_t, float*,
                                  float*);

/// The register-tiled weight gradient for the kernel's size, or null (then the portable loops).
BackwardFilterFn BackwardFilterFor(int64_t kernel_h, int64_t kernel_w) {
  if (kernel_h == 5 && kernel_w == 5) return BackwardFilterAvx512<5, 5>;
  if (kernel_h == 3 && kernel_w == 3) return BackwardFilterAvx512<3, 3>;
  return nullptr;
}
#pragma GCC diagnostic pop

#endif

}  // namespace

bool SingleChannelConv::Applies(const std::vector<int64_t>& data, const std::vector<int64_t>& weight,
                                const ConvWindow& window) {
  return data.size() == 4 && weight.size() == 4 && data[1] == 1 && weight[1] == 1 && window.groups == 1 &&
         window.stride[0] == 1 && window.stride[1] == 1 && window.dilation[0] == 1 && window.dilation[1] == 1 &&
         data[2] + window.pad[0] + window.pad[2] >= weight[2] && data[3] + window.pad[1] + window.pad[3] >= weight[3];
}

SingleChannelConv SingleChannelConv::Of(const std::vector<int64_t>& data, const std::vector<int64_t>& weight,
                                        const ConvWindow& window) {
  return {data[0], data[2], data[3], weight[0], weight[2], weight[3],
          {window.pad[0], window.pad[1], window.pad[2], window.pad[3]}};
}

void SingleChannelConv::Forward(const float* data, const float* weight, const float* bias, bool relu,
                                float* out) const {
  int64_t padded_size = (height + pad[0] + pad[2]) * (width + pad[1] + pad[3]);
  ParallelParts(images, [&](int64_t i) {
    auto* padded = static_cast<float*>(ScratchBuffer(kPaddedSlot, padded_size * sizeof(float)));
    auto* row = static_cast<float*>(ScratchBuffer(kRowSlot, out_w() * sizeof(float)));
    PadImage(*this, data + i * height * width, padded);
    float* image_out = out + i * filters * out_h() * out_w();
#ifdef RXT_HAVE_AVX512_PATH
    if (UseAvx512()) return ForwardImageAvx512(*this, padded, weight, bias, relu, image_out);
#endif
    ForwardImage(*this, padded, weight, bias, relu, image_out, row);
  });
}

void SingleChannelConv::BackwardWeights(const float* data, const float* dz, float* dweight, float* dbias) const {
  int64_t padded_size = (height + pad[0] + pad[2]) * (width + pad[1] + pad[3]);
  // Every image padded once, read by all filters.
  auto* padded = static_cast<float*>(ScratchBuffer(kPaddedSlot, images * padded_size * sizeof(float)));
  for (int64_t i = 0; i < images; ++i) PadImage(*this, data + i * height * width, padded + i * padded_size);
  int64_t taps = kernel_h * kernel_w, ow = out_w(), plane = out_h() * ow;
  ParallelParts(filters, [&](int64_t f) {
#ifdef RXT_HAVE_AVX512_PATH
    if (BackwardFilterFn tiled = UseAvx512() ? BackwardFilterFor(kernel_h, kernel_w) : nullptr) {
      return tiled(*this, padded, padded_size, dz, f, dweight, dbias);
    }
#endif
    auto* sums = static_cast<float*>(ScratchBuffer(kRowSlot, (taps + 1) * ow * sizeof(float)));
    std::fill(sums, sums + (taps + 1) * ow, 0.0f);
    float* bias_sums = sums + taps * ow;
    for (int64_t i = 0; i < images; ++i) {
      AccumulateFilter(*this, padded + i * padded_size, dz + (i * filters + f) * plane, sums, bias_sums);
    }
    for (int64_t t = 0; t < taps; ++t) {
      float total = 0.0f;
      for (int64_t x = 0; x < ow; ++x) total += sums[t * ow + x];
      dweight[f * taps + t] = total;
    }
    if (dbias != nullptr) {
      float total = 0.0f;
      for (int64_t x = 0; x < ow; ++x) total += bias_sums[x];
      dbias[f] = total;
    }
  });
}

}  // namespace rxt::lib_dnnl
