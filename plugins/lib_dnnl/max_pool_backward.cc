// dnnl.max_pool2d_backward(dz, x, kh, kw, relu, dx): the gradient of a max pooling whose
// windows tile x (window = stride, no padding; NCHW), as nn.max_pool2d_backward defines it:
// each window's dz goes to the window's first maximum (row-major order, PyTorch's rule), every
// other element gets 0; with relu = 1 also 0 where x <= 0 (the ReLU gradient before the
// pooling, folded in). Not oneDNN: its pooling gradient needs the forward's workspace, which
// the IR does not carry. 2x2 windows with AVX-512: 16 windows per step, no branch; others:
// plain loops. Planes are split over the host's pool.
#include <algorithm>
#include <cstring>

#include "cpu_isa.h"
#include "externs.h"
#include "pool_planes.h"
#include "tensor_args.h"

namespace rxt::lib_dnnl {
namespace {

struct PlaneShape {
  int64_t h, w, kh, kw;
  bool relu;
};

// Any window: zero the plane, then each window's first maximum gets its gradient.
void PlanePortable(const PlaneShape& s, const float* dz, const float* x, float* dx) {
  std::memset(dx, 0, sizeof(float) * static_cast<size_t>(s.h * s.w));
  int64_t oh = s.h / s.kh, ow = s.w / s.kw;
  for (int64_t oy = 0; oy < oh; ++oy) {
    for (int64_t ox = 0; ox < ow; ++ox) {
      const float* window = x + oy * s.kh * s.w + ox * s.kw;
      int64_t best = 0;
      float best_value = window[0];
      for (int64_t a = 0; a < s.kh; ++a) {
        for (int64_t b = 0; b < s.kw; ++b) {
          float v = window[a * s.w + b];
          if (v > best_value) {  // strictly greater: the first maximum stays
            best_value = v;
            best = a * s.w + b;
          }
        }
      }
      if (s.relu && !(best_value > 0.0f)) continue;
      dx[oy * s.kh * s.w + ox * s.kw + best] = dz[oy * ow + ox];
    }
  }
}

#ifdef RXT_HAVE_POOL_AVX512
// GCC 12 warns inside its own AVX-512 headers (the masked intrinsics' unused "src" operand).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// 2x2 windows: each step reads 32 columns of two rows, splits them into the windows' four
// corners (even/odd columns), and writes all four corners back, so no zero fill is needed.
__attribute__((target("avx512f"))) void Plane2x2(const PlaneShape& s, const float* dz, const float* x, float* dx) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  const __m512i low = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i high = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  const __m512 zero = _mm512_setzero_ps();
  int64_t oh = s.h / 2, ow = s.w / 2;
  for (int64_t oy = 0; oy < oh; ++oy) {
    const float* r0 = x + 2 * oy * s.w;
    const float* r1 = r0 + s.w;
    float* o0 = dx + 2 * oy * s.w;
    float* o1 = o0 + s.w;
    const float* g = dz + oy * ow;
    for (int64_t ox = 0; ox < ow; ox += 16) {
      int64_t windows = std::min<int64_t>(16, ow - ox);
      __mmask16 first = Lanes(2 * windows), second = Lanes(2 * windows - 16), lanes = Lanes(windows);
      __m512 t0 = _mm512_maskz_loadu_ps(first, r0 + 2 * ox), t1 = _mm512_maskz_loadu_ps(second, r0 + 2 * ox + 16);
      __m512 b0 = _mm512_maskz_loadu_ps(first, r1 + 2 * ox), b1 = _mm512_maskz_loadu_ps(second, r1 + 2 * ox + 16);
      __m512 a = _mm512_permutex2var_ps(t0, even, t1), b = _mm512_permutex2var_ps(t0, odd, t1);
      __m512 c = _mm512_permutex2var_ps(b0, even, b1), d = _mm512_permutex2var_ps(b0, odd, b1);
      __m512 m = _mm512_max_ps(_mm512_max_ps(a, b), _mm512_max_ps(c, d));
      __mmask16 at_a = _mm512_cmp_ps_mask(a, m, _CMP_EQ_OQ);
      __mmask16 at_b = _mm512_cmp_ps_mask(b, m, _CMP_EQ_OQ) & ~at_a;
      __mmask16 at_c = _mm512_cmp_ps_mask(c, m, _CMP_EQ_OQ) & ~at_a & ~at_b;
      __mmask16 at_d = ~(at_a | at_b | at_c);
      __mmask16 keep = s.relu ? _mm512_cmp_ps_mask(m, zero, _CMP_GT_OQ) : __mmask16(0xFFFF);
      __m512 v = _mm512_maskz_loadu_ps(lanes & keep, g + ox);
      __m512 va = _mm512_maskz_mov_ps(at_a, v), vb = _mm512_maskz_mov_ps(at_b, v);
      __m512 vc = _mm512_maskz_mov_ps(at_c, v), vd = _mm512_maskz_mov_ps(at_d, v);
      _mm512_mask_storeu_ps(o0 + 2 * ox, first, _mm512_permutex2var_ps(va, low, vb));
      _mm512_mask_storeu_ps(o0 + 2 * ox + 16, second, _mm512_permutex2var_ps(va, high, vb));
      _mm512_mask_storeu_ps(o1 + 2 * ox, first, _mm512_permutex2var_ps(vc, low, vd));
      _mm512_mask_storeu_ps(o1 + 2 * ox + 16, second, _mm512_permutex2var_ps(vc, high, vd));
    }
    if (s.w % 2 != 0) o0[s.w - 1] = o1[s.w - 1] = 0.0f;  // the column no window covers
  }
  if (s.h % 2 != 0) std::memset(dx + (s.h - 1) * s.w, 0, sizeof(float) * static_cast<size_t>(s.w));
}
#pragma GCC diagnostic pop
#endif

void Plane(const PlaneShape& s, const float* dz, const float* x, float* dx) {
#ifdef RXT_HAVE_POOL_AVX512
  if (s.kh == 2 && s.kw == 2 && UseAvx512()) return Plane2x2(s, dz, x, dx);
#endif
  PlanePortable(s, dz, x, dx);
}

}  // namespace

void MaxPool2dBackward(void* const* args, int num_args) {
  CheckArity(num_args, 6, "dnnl.max_pool2d_backward");
  FloatTensor dz = FloatArg(args, 0, "argument 0 (output gradient)", 4);
  FloatTensor x = FloatArg(args, 1, "argument 1 (data)", 4);
  int64_t kh = IntArg(args, 2, "argument 2 (window height)");
  int64_t kw = IntArg(args, 3, "argument 3 (window width)");
  int64_t relu = IntArg(args, 4, "argument 4 (relu)");
  FloatTensor dx = FloatArg(args, 5, "the output (data gradient)", 4);
  if (kh < 1 || kw < 1) throw ArgumentError("the window is " + std::to_string(kh) + "x" + std::to_string(kw));
  if (relu != 0 && relu != 1) throw ArgumentError("relu is " + std::to_string(relu) + ", expected 0 or 1");
  if (dx.shape != x.shape) {
    throw ArgumentError("the output has shape " + ShapeText(dx.shape) + ", expected the data's " + ShapeText(x.shape));
  }
  std::vector<int64_t> pooled = {x.shape[0], x.shape[1], x.shape[2] / kh, x.shape[3] / kw};
  if (dz.shape != pooled) {
    throw ArgumentError("argument 0 (output gradient) has shape " + ShapeText(dz.shape) + ", expected " +
                        ShapeText(pooled) + " (the data " + ShapeText(x.shape) + " in " + std::to_string(kh) + "x" +
                        std::to_string(kw) + " windows)");
  }
  PlaneShape shape{x.shape[2], x.shape[3], kh, kw, relu == 1};
  int64_t planes = x.shape[0] * x.shape[1], plane = shape.h * shape.w, pooled_plane = pooled[2] * pooled[3];
  if (planes == 0 || plane == 0) return;
  ForEachPlane(planes, plane,
               [&](int64_t p) { Plane(shape, dz.data + p * pooled_plane, x.data + p * plane, dx.data + p * plane); });
}

}  // namespace rxt::lib_dnnl
