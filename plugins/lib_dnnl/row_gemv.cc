#include "row_gemv.h"

#include <algorithm>
#include <stdexcept>

#include "cpu_isa.h"
#include "host_threads.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RXT_HAVE_ROW_GEMV 1
#endif

namespace rxt::lib_dnnl {
namespace {

// From this many multiply-adds the columns are shared out over the host's pool, each thread
// streaming its own columns' weights: the seed MLP's first layer (784x128) 4.1 -> 2.6-2.8 us on
// two threads (the hand-off ~0.3 us); its 128x128 layer (0.8 us) stays on the caller.
constexpr int64_t kSplitMacs = int64_t{1} << 16;

#ifdef RXT_HAVE_ROW_GEMV
// GCC 12 warns inside its own AVX-512 headers (the masked intrinsics' unused "src" operand).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// Columns [j0, j0 + 16 kVecs) (the last vector masked by |tail|); the count is a template
// argument so that the accumulators stay in registers.
template <int kVecs>
__attribute__((target("avx512f"))) void Columns(const float* x, const float* w, const float* bias, bool relu,
                                                int64_t k, int64_t n, int64_t j0, __mmask16 tail, float* out) {
  __m512 acc[kVecs];
#pragma GCC unroll 8
  for (int t = 0; t < kVecs; ++t) {
    __mmask16 mask = t == kVecs - 1 ? tail : __mmask16(0xFFFF);
    acc[t] = bias != nullptr ? _mm512_maskz_loadu_ps(mask, bias + j0 + 16 * t) : _mm512_setzero_ps();
  }
  for (int64_t i = 0; i < k; ++i) {
    __m512 xv = _mm512_set1_ps(x[i]);
    const float* row = w + i * n + j0;
#pragma GCC unroll 8
    for (int t = 0; t < kVecs; ++t) {
      __mmask16 mask = t == kVecs - 1 ? tail : __mmask16(0xFFFF);
      acc[t] = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(mask, row + 16 * t), acc[t]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < kVecs; ++t) {
    __mmask16 mask = t == kVecs - 1 ? tail : __mmask16(0xFFFF);
    __m512 v = relu ? _mm512_max_ps(acc[t], _mm512_setzero_ps()) : acc[t];
    _mm512_mask_storeu_ps(out + j0 + 16 * t, mask, v);
  }
}
#pragma GCC diagnostic pop

using ColumnsFn = void (*)(const float*, const float*, const float*, bool, int64_t, int64_t, int64_t, __mmask16,
                           float*);
constexpr ColumnsFn kColumns[] = {Columns<1>, Columns<2>, Columns<3>, Columns<4>,
                                  Columns<5>, Columns<6>, Columns<7>, Columns<8>};
#endif

}  // namespace

bool RowGemvAvailable() {
#ifdef RXT_HAVE_ROW_GEMV
  return UseAvx512();
#else
  return false;
#endif
}

namespace {

// Columns [j0, j1) of RowGemv's output, 128 at a time.
void RowGemvColumns(const float* x, const float* w, const float* bias, bool relu, int64_t k, int64_t n, int64_t j0,
                    int64_t j1, float* out) {
#ifdef RXT_HAVE_ROW_GEMV
  for (; j0 < j1; j0 += 128) {
    int64_t left = j1 - j0 < 128 ? j1 - j0 : 128;
    int vecs = static_cast<int>((left + 15) / 16);
    int64_t in_last = left - 16 * (vecs - 1);
    auto tail = static_cast<__mmask16>(in_last == 16 ? 0xFFFF : (1u << in_last) - 1);
    kColumns[vecs - 1](x, w, bias, relu, k, n, j0, tail, out);
  }
#else
  (void)x, (void)w, (void)bias, (void)relu, (void)k, (void)n, (void)j0, (void)j1, (void)out;
  throw std::logic_error("RowGemv without AVX-512");
#endif
}

}  // namespace

void RowGemv(const float* x, const float* w, const float* bias, bool relu, int64_t k, int64_t n, float* out) {
  int64_t vectors = (n + 15) / 16;
  int64_t parts = k * n >= kSplitMacs ? std::min<int64_t>(HostThreads(), vectors) : 1;
  if (parts < 2) {
    RowGemvColumns(x, w, bias, relu, k, n, 0, n, out);
    return;
  }
  // Each thread streams its own columns' weights (from its own L2, call after call).
  int64_t step = 16 * ((vectors + parts - 1) / parts);
  ParallelParts((n + step - 1) / step, [&](int64_t part) {
    int64_t j0 = part * step;
    RowGemvColumns(x, w, bias, relu, k, n, j0, std::min(n, j0 + step), out);
  });
}

}  // namespace rxt::lib_dnnl
