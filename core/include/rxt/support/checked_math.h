// Arithmetic on numbers read from files and user input: sizes, counts, offsets and epochs
// must never wrap. Each function returns false (leaving *out unspecified) on overflow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace rxt {

template <typename T>
[[nodiscard]] bool CheckedAdd(T a, T b, T* out) {
  static_assert(std::is_integral_v<T>);
  return !__builtin_add_overflow(a, b, out);
}

template <typename T>
[[nodiscard]] bool CheckedMul(T a, T b, T* out) {
  static_assert(std::is_integral_v<T>);
  return !__builtin_mul_overflow(a, b, out);
}

/// The product of |n| non-negative dims times |element_bytes|, if it stays within |limit|.
/// False for a negative dim, an overflow, or a product above |limit|.
[[nodiscard]] inline bool CheckedByteSize(const int64_t* dims, size_t n, int64_t element_bytes, int64_t limit,
                                          int64_t* out) {
  bool empty = false;
  for (size_t i = 0; i < n; ++i) {
    if (dims[i] < 0) return false;
    empty = empty || dims[i] == 0;
  }
  int64_t total = empty ? 0 : element_bytes;
  for (size_t i = 0; i < n && !empty; ++i) {
    if (!CheckedMul(total, dims[i], &total) || total > limit) return false;
  }
  if (total > limit) return false;
  *out = total;
  return true;
}

}  // namespace rxt
