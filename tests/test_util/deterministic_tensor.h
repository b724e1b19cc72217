// Tensors that tests/golden/make_training_golden.py recreates bit for bit without storing them:
// element i = lo + (hi - lo) u_i, u_i = ((i * 2654435761 + seed * 40503) mod 2^32) / 2^32,
// computed in double and rounded to float32 (numpy's astype, round to nearest).
#pragma once

#include <cstdint>
#include <vector>

#include "rxt/runtime/tensor.h"

namespace rxt::test {

inline Tensor DeterministicTensor(std::vector<int64_t> shape, uint64_t seed, double lo, double hi) {
  Tensor t = Tensor::Empty(std::move(shape), DType::kFloat32);
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint64_t bits = (static_cast<uint64_t>(i) * 2654435761ull + seed * 40503ull) % (uint64_t{1} << 32);
    double u = static_cast<double>(bits) / 4294967296.0;
    t.data_as<float>()[i] = static_cast<float>(lo + (hi - lo) * u);
  }
  return t;
}

}  // namespace rxt::test
