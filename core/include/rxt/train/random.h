// A small pseudo-random generator of our own (SplitMix64) for everything training draws at
// random: parameter initialization and the order of the data. std::mt19937 is portable but
// std::uniform_*_distribution is not (each standard library computes it its own way), so the
// same seed gives the same run only with a generator and distributions we write ourselves.
//
//   Random rng(42);
//   double u = rng.NextDouble();          // [0, 1)
//   Shuffle(order, rng);                  // Fisher-Yates
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rxt {

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}

  /// A generator for the |stream|-th independent sequence of |seed| (e.g. one per epoch).
  static Random Stream(uint64_t seed, uint64_t stream) { return Random(Mix(seed ^ Mix(stream + 0x5851F42D4C957F2Dull))); }

  uint64_t NextU64() {
    state_ += 0x9E3779B97F4A7C15ull;
    return Mix(state_);
  }

  /// Uniform in [0, 1), 53 random bits.
  double NextDouble() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

  /// Uniform in [0, n) for n >= 1, without modulo bias (rejection of the short last range).
  uint64_t NextBelow(uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x = NextU64();
    while (x >= limit) x = NextU64();
    return x % n;
  }

 private:
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  uint64_t state_;
};

/// Fisher-Yates shuffle of |values| with |rng|.
template <typename T>
void Shuffle(std::vector<T>& values, Random& rng) {
  for (std::size_t i = values.size(); i > 1; --i) {
    std::size_t j = static_cast<std::size_t>(rng.NextBelow(i));
    std::swap(values[i - 1], values[j]);
  }
}

}  // namespace rxt
