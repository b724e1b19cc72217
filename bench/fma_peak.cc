// One core's single-precision FMA throughput right now: the ceiling every GEMM figure in
// docs/benchmarks.md is compared with. Twelve independent FMA chains (enough to cover the FMA
// latency) of AVX-512, or of AVX2 where the CPU has no AVX-512, timed for about a second, best
// of three.
//
//   build/bench/bench/rxt_fma_peak        prints e.g. "FMA peak, 1 core: 103.5 GFLOP/s"
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace {

constexpr int kChains = 12;

__attribute__((target("avx512f"))) float Chains(long iterations) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(0.001f * static_cast<float>(i));
  const __m512 scale = _mm512_set1_ps(0.999f), shift = _mm512_set1_ps(0.0001f);
  for (long k = 0; k < iterations; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], scale, shift);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);  // used, so the loop is not removed
}

// The same with AVX2 and FMA3 (8 lanes), for CPUs without AVX-512.
__attribute__((target("avx2,fma"))) float Chains256(long iterations) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(0.001f * static_cast<float>(i));
  const __m256 scale = _mm256_set1_ps(0.999f), shift = _mm256_set1_ps(0.0001f);
  for (long k = 0; k < iterations; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], scale, shift);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  return lanes[0] + lanes[7];  // used, so the loop is not removed
}

}  // namespace

int main() {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (!avx512 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
    std::printf("this CPU has neither AVX-512 nor AVX2 with FMA\n");
    return 1;
  }
  const double lanes = avx512 ? 16.0 : 8.0;
  constexpr long kIterations = 20'000'000;
  double best = 0;
  float sink = 0;
  for (int round = 0; round < 3; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    sink += avx512 ? Chains(kIterations) : Chains256(kIterations);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, kIterations * kChains * lanes * 2.0 / seconds / 1e9);
  }
  std::printf("FMA peak, 1 core: %.1f GFLOP/s (%s; checksum %g)\n", best, avx512 ? "AVX-512" : "AVX2",
              static_cast<double>(sink));
  return 0;
}
