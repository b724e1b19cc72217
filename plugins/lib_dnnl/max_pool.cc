// dnnl.max_pool2d(x, kh, kw, out): a max pooling whose windows tile x (window = stride, no
// padding; NCHW), as nn.max_pool2d computes it: each output is the largest of its window.
// In a training step the pooling cannot join the convolution's call (the pooling gradient
// reads the convolution's output too), and as a generated kernel its stride-2 window reads
// are gathers. 2x2 windows with AVX-512: 16 windows per step, two rows at a time; others:
// plain loops. Planes are split over the host's pool. Where a window holds a NaN, the two
// paths may differ (neither propagates it as PyTorch does).
#include <algorithm>

#include "cpu_isa.h"
#include "externs.h"
#include "pool_planes.h"
#include "tensor_args.h"

namespace rxt::lib_dnnl {
namespace {

struct PoolShape {
  int64_t h, w, kh, kw;
  int64_t out_h() const { return h / kh; }
  int64_t out_w() const { return w / kw; }
};

void PlanePortable(const PoolShape& s, const float* x, float* out) {
  for (int64_t oy = 0; oy < s.out_h(); ++oy) {
    for (int64_t ox = 0; ox < s.out_w(); ++ox) {
      const float* window = x + oy * s.kh * s.w + ox * s.kw;
      float best = window[0];
      for (int64_t a = 0; a < s.kh; ++a) {
        for (int64_t b = 0; b < s.kw; ++b) best = window[a * s.w + b] > best ? window[a * s.w + b] : best;
      }
      out[oy * s.out_w() + ox] = best;
    }
  }
}

#ifdef RXT_HAVE_POOL_AVX512
// GCC 12 warns inside its own AVX-512 headers (the masked intrinsics' unused "src" operand).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// 2x2 windows: 32 columns of two rows, the larger of each column pair, then of the even and
// odd columns: 16 windows.
__attribute__((target("avx512f"))) void Plane2x2(const PoolShape& s, const float* x, float* out) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  int64_t oh = s.out_h(), ow = s.out_w();
  for (int64_t oy = 0; oy < oh; ++oy) {
    const float* r0 = x + 2 * oy * s.w;
    const float* r1 = r0 + s.w;
    float* o = out + oy * ow;
    for (int64_t ox = 0; ox < ow; ox += 16) {
      int64_t windows = std::min<int64_t>(16, ow - ox);
      __mmask16 first = Lanes(2 * windows), second = Lanes(2 * windows - 16);
      __m512 lo = _mm512_max_ps(_mm512_maskz_loadu_ps(first, r0 + 2 * ox), _mm512_maskz_loadu_ps(first, r1 + 2 * ox));
      __m512 hi = _mm512_max_ps(_mm512_maskz_loadu_ps(second, r0 + 2 * ox + 16),
                                _mm512_maskz_loadu_ps(second, r1 + 2 * ox + 16));
      __m512 m = _mm512_max_ps(_mm512_permutex2var_ps(lo, even, hi), _mm512_permutex2var_ps(lo, odd, hi));
      _mm512_mask_storeu_ps(o + ox, Lanes(windows), m);
    }
  }
}
#pragma GCC diagnostic pop
#endif

void Plane(const PoolShape& s, const float* x, float* out) {
#ifdef RXT_HAVE_POOL_AVX512
  if (s.kh == 2 && s.kw == 2 && UseAvx512()) return Plane2x2(s, x, out);
#endif
  PlanePortable(s, x, out);
}

}  // namespace

void MaxPool2d(void* const* args, int num_args) {
  CheckArity(num_args, 4, "dnnl.max_pool2d");
  FloatTensor x = FloatArg(args, 0, "argument 0 (data)", 4);
  int64_t kh = IntArg(args, 1, "argument 1 (window height)");
  int64_t kw = IntArg(args, 2, "argument 2 (window width)");
  FloatTensor out = FloatArg(args, 3, "the output", 4);
  if (kh < 1 || kw < 1) throw ArgumentError("the window is " + std::to_string(kh) + "x" + std::to_string(kw));
  PoolShape shape{x.shape[2], x.shape[3], kh, kw};
  std::vector<int64_t> pooled = {x.shape[0], x.shape[1], shape.out_h(), shape.out_w()};
  if (out.shape != pooled) {
    throw ArgumentError("the output has shape " + ShapeText(out.shape) + ", expected " + ShapeText(pooled) +
                        " (the data " + ShapeText(x.shape) + " in " + std::to_string(kh) + "x" + std::to_string(kw) +
                        " windows)");
  }
  int64_t planes = x.shape[0] * x.shape[1], plane = shape.h * shape.w, pooled_plane = pooled[2] * pooled[3];
  if (planes == 0 || pooled_plane == 0) return;
  ForEachPlane(planes, plane, [&](int64_t p) { Plane(shape, x.data + p * plane, out.data + p * pooled_plane); });
}

}  // namespace rxt::lib_dnnl
