// What the max pooling and its gradient share: their planes (one image channel each) shared
// out over the host's pool, and the lane masks of their AVX-512 loops.
#pragma once

#include <algorithm>
#include <cstdint>

#include "host_threads.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RXT_HAVE_POOL_AVX512 1
#endif

namespace rxt::lib_dnnl {

/// Runs body(p) for every plane p in [0, planes) of |plane| elements each, in pool items of
/// about 16k elements (one item holds at least one plane).
template <typename Body>
void ForEachPlane(int64_t planes, int64_t plane, const Body& body) {
  int64_t per_item = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, plane));
  int64_t items = (planes + per_item - 1) / per_item;
  ParallelParts(items, [&](int64_t item) {
    for (int64_t p = item * per_item; p < std::min(planes, (item + 1) * per_item); ++p) body(p);
  });
}

#ifdef RXT_HAVE_POOL_AVX512
/// The first |n| of 16 lanes (none for n <= 0).
__attribute__((target("avx512f"))) inline __mmask16 Lanes(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}
#endif

}  // namespace rxt::lib_dnnl
