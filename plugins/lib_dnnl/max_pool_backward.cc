// dnnl.max_pool2d_backward(dz, x, kh, kw, relu, dx): the gradient of a max pooling whose
// windows tile x (window = stride, no padding; NCHW), as nn.max_pool2d_backward defines it:
// each window's dz goes to the window's first maximum (row-major order, PyTorch's rule), every
// other element gets 0; with relu = 1 also 0 where x <= 0 (the ReLU gradient before the
// pooling, folded in). Not oneDNN: its pooling gradient needs the forward's workspace, which
// the IR does not carry. 2x2 windows with AVX-512: 16 windows per step, no branch; others:
// plain loops. Planes are split over the host's pool.
//
// dnnl.max_pool2d_backward_strided(dz, x, kh, kw, sh, sw, pt, pl, relu, dx): the same for any
// undilated windows (strides, padding top/left, windows that overlap or leave gaps, partial
// windows of ceil mode; the output's dims come from dz): each window, clipped to x, adds its
// dz to its first maximum (padding never wins), windows in row-major order. One pass over the
// windows, as PyTorch's backward from the forward's indices, but finding each maximum again.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

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

struct WindowShape {
  int64_t h, w;    // the plane
  int64_t oh, ow;  // the windows (dz's plane)
  int64_t kh, kw, sh, sw, pt, pl;
  bool relu;
};

// The first maximum of the |rows| x |cols| window at (y0, x0) of the plane |x| (row length
// |w|; KH x KW when those are not 0), as an offset into the plane, and its value in |value|.
// Strictly greater replaces (selects, not branches): ties keep the first.
template <int64_t KH, int64_t KW>
inline int64_t FirstMaximum(const float* x, int64_t w, int64_t y0, int64_t x0, int64_t rows, int64_t cols,
                            float& value) {
  if (KH > 0) rows = KH;
  if (KW > 0) cols = KW;
  int64_t best = y0 * w + x0;
  float best_value = x[best];
  for (int64_t a = 0; a < rows; ++a) {
    for (int64_t b = 0; b < cols; ++b) {
      int64_t at = (y0 + a) * w + x0 + b;
      float v = x[at];
      bool take = v > best_value;
      best = take ? at : best;
      best_value = take ? v : best_value;
    }
  }
  value = best_value;
  return best;
}

// Any undilated windows: zero the plane, then each window (clipped to the plane, never empty:
// the arguments' checks) adds its gradient to its first maximum. Windows wholly inside take a
// loop of constant extents when the window is KH x KW (0: any).
template <int64_t KH, int64_t KW>
void PlaneWindows(const WindowShape& s, const float* dz, const float* x, float* dx) {
  std::memset(dx, 0, sizeof(float) * static_cast<size_t>(s.h * s.w));
  const int64_t kh = KH > 0 ? KH : s.kh, kw = KW > 0 ? KW : s.kw;
  for (int64_t oy = 0; oy < s.oh; ++oy) {
    int64_t top = oy * s.sh - s.pt;
    int64_t y0 = std::max<int64_t>(top, 0), y1 = std::min(top + kh, s.h);
    bool rows_inside = top >= 0 && top + kh <= s.h;
    for (int64_t ox = 0; ox < s.ow; ++ox) {
      int64_t left = ox * s.sw - s.pl;
      int64_t x0 = std::max<int64_t>(left, 0), x1 = std::min(left + kw, s.w);
      float value;
      int64_t best = rows_inside && left >= 0 && left + kw <= s.w
                         ? FirstMaximum<KH, KW>(x, s.w, top, left, kh, kw, value)
                         : FirstMaximum<0, 0>(x, s.w, y0, x0, y1 - y0, x1 - x0, value);
      if (s.relu && !(value > 0.0f)) continue;
      dx[best] += dz[oy * s.ow + ox];
    }
  }
}

#ifdef RXT_HAVE_POOL_AVX512
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// Any undilated windows, 16 at a time in row-major order (|corners|: the windows' top rows, then
// their left columns, shared by every plane): each window position is a masked gather (positions
// outside the plane read nothing), and a lane takes it if it holds nothing yet or the value is
// strictly greater, as PlaneWindows. The gradients are then added lane by lane, in window order.
__attribute__((target("avx512f"))) void PlaneWindows16(const WindowShape& s, const int32_t* corners,
                                                       const float* dz, const float* x, float* dx) {
  std::memset(dx, 0, sizeof(float) * static_cast<size_t>(s.h * s.w));
  const int64_t windows = s.oh * s.ow;
  const __m512i zero = _mm512_setzero_si512(), height = _mm512_set1_epi32(static_cast<int32_t>(s.h));
  const __m512i width = _mm512_set1_epi32(static_cast<int32_t>(s.w));
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  alignas(64) int32_t best_at[16];
  alignas(64) float grad[16];
  for (int64_t k = 0; k < windows; k += 16) {
    __mmask16 lanes = Lanes(windows - k);
    __m512i rows = _mm512_maskz_loadu_epi32(lanes, corners + k);
    __m512i cols = _mm512_maskz_loadu_epi32(lanes, corners + windows + k);
    __m512 best = lowest;
    __m512i at = zero;
    __mmask16 empty = lanes;  // lanes that hold no position yet
    for (int64_t a = 0; a < s.kh; ++a) {
      __m512i y = _mm512_add_epi32(rows, _mm512_set1_epi32(static_cast<int32_t>(a)));
      __mmask16 row_in = _mm512_mask_cmpge_epi32_mask(lanes, y, zero) & _mm512_cmplt_epi32_mask(y, height);
      __m512i row_at = _mm512_mullo_epi32(y, width);
      for (int64_t b = 0; b < s.kw; ++b) {
        __m512i c = _mm512_add_epi32(cols, _mm512_set1_epi32(static_cast<int32_t>(b)));
        __mmask16 in = _mm512_mask_cmpge_epi32_mask(row_in, c, zero) & _mm512_cmplt_epi32_mask(c, width);
        __m512i offset = _mm512_add_epi32(row_at, c);
        __m512 v = _mm512_mask_i32gather_ps(lowest, in, offset, x, 4);
        __mmask16 take = in & (empty | _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ));
        best = _mm512_mask_mov_ps(best, take, v);
        at = _mm512_mask_mov_epi32(at, take, offset);
        empty &= ~take;
      }
    }
    __mmask16 keep = lanes & ~empty;
    if (s.relu) keep &= _mm512_cmp_ps_mask(best, _mm512_setzero_ps(), _CMP_GT_OQ);
    _mm512_store_epi32(best_at, at);
    _mm512_store_ps(grad, _mm512_maskz_loadu_ps(lanes, dz + k));
    for (unsigned bits = keep; bits != 0; bits &= bits - 1) {
      int lane = __builtin_ctz(bits);
      dx[best_at[lane]] += grad[lane];
    }
  }
}
#pragma GCC diagnostic pop
#endif

void PlaneStrided(const WindowShape& s, const int32_t* corners, const float* dz, const float* x, float* dx) {
#ifdef RXT_HAVE_POOL_AVX512
  if (corners != nullptr) return PlaneWindows16(s, corners, dz, x, dx);
#endif
  if (s.kh == 3 && s.kw == 3) return PlaneWindows<3, 3>(s, dz, x, dx);
  if (s.kh == 2 && s.kw == 2) return PlaneWindows<2, 2>(s, dz, x, dx);
  PlaneWindows<0, 0>(s, dz, x, dx);
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


void MaxPool2dBackwardStrided(void* const* args, int num_args) {
  const char* name = "dnnl.max_pool2d_backward_strided";
  CheckArity(num_args, 10, name);
  FloatTensor dz = FloatArg(args, 0, "argument 0 (output gradient)", 4);
  FloatTensor x = FloatArg(args, 1, "argument 1 (data)", 4);
  int64_t kh = IntArg(args, 2, "argument 2 (window height)");
  int64_t kw = IntArg(args, 3, "argument 3 (window width)");
  int64_t sh = IntArg(args, 4, "argument 4 (stride height)");
  int64_t sw = IntArg(args, 5, "argument 5 (stride width)");
  int64_t pt = IntArg(args, 6, "argument 6 (padding top)");
  int64_t pl = IntArg(args, 7, "argument 7 (padding left)");
  int64_t relu = IntArg(args, 8, "argument 8 (relu)");
  FloatTensor dx = FloatArg(args, 9, "the output (data gradient)", 4);
  if (kh < 1 || kw < 1) throw ArgumentError("the window is " + std::to_string(kh) + "x" + std::to_string(kw));
  if (sh < 1 || sw < 1) throw ArgumentError("the strides are " + std::to_string(sh) + "x" + std::to_string(sw));
  if (pt < 0 || pl < 0 || pt >= kh || pl >= kw) {
    throw ArgumentError("the padding (top " + std::to_string(pt) + ", left " + std::to_string(pl) +
                        ") must be at least 0 and less than the window");
  }
  if (relu != 0 && relu != 1) throw ArgumentError("relu is " + std::to_string(relu) + ", expected 0 or 1");
  if (dx.shape != x.shape) {
    throw ArgumentError("the output has shape " + ShapeText(dx.shape) + ", expected the data's " + ShapeText(x.shape));
  }
  WindowShape shape{x.shape[2], x.shape[3], dz.shape[2], dz.shape[3], kh, kw, sh, sw, pt, pl, relu == 1};
  // Every window holds an element of x: the first starts before the window's extent (padding
  // < window), the last before the end of x.
  if (dz.shape[0] != x.shape[0] || dz.shape[1] != x.shape[1] || (shape.oh > 0 && (shape.oh - 1) * sh - pt >= shape.h) ||
      (shape.ow > 0 && (shape.ow - 1) * sw - pl >= shape.w)) {
    throw ArgumentError("argument 0 (output gradient) has shape " + ShapeText(dz.shape) +
                        ": more windows than the data " + ShapeText(x.shape) + " holds");
  }
  int64_t planes = x.shape[0] * x.shape[1], plane = shape.h * shape.w, pooled_plane = shape.oh * shape.ow;
  if (planes == 0 || plane == 0) return;
  // With AVX-512 and planes int32 can index: the windows' tops and lefts, for all planes.
  std::vector<int32_t> corners;
#ifdef RXT_HAVE_POOL_AVX512
  if (UseAvx512() && plane + kh * shape.w + kw < (int64_t{1} << 31)) {
    corners.resize(static_cast<size_t>(2 * pooled_plane));
    for (int64_t k = 0; k < pooled_plane; ++k) {
      corners[k] = static_cast<int32_t>(k / shape.ow * sh - pt);
      corners[pooled_plane + k] = static_cast<int32_t>(k % shape.ow * sw - pl);
    }
  }
#endif
  const int32_t* windows = corners.empty() ? nullptr : corners.data();
  ForEachPlane(planes, plane, [&](int64_t p) {
    PlaneStrided(shape, windows, dz.data + p * pooled_plane, x.data + p * plane, dx.data + p * plane);
  });
}

}  // namespace rxt::lib_dnnl
