// Plain C++ references for the seed's MyModule (linear0 / relu0 kernels): random float32
// tensors and one linear layer, accumulated in the kernels' order so results match exactly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "rxt/runtime/tensor.h"

namespace rxt::test {

/// Uniform values in [-1, 1).
inline Tensor RandomTensor(std::vector<int64_t> shape, std::mt19937& rng) {
  Tensor t = Tensor::Empty(std::move(shape), DType::kFloat32);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = dist(rng);
  return t;
}

/// y[j] = sum_k x[k] * w[j, k] + b[j]; relu if asked.
inline std::vector<float> Linear(const std::vector<float>& x, const Tensor& w, const Tensor& b, bool relu) {
  int64_t n = w.shape()[0], m = w.shape()[1];
  std::vector<float> y(n);
  for (int64_t j = 0; j < n; ++j) {
    float acc = 0;
    for (int64_t k = 0; k < m; ++k) acc = acc + x[k] * w.data_as<float>()[j * m + k];
    y[j] = acc + b.data_as<float>()[j];
    if (relu) y[j] = std::max(y[j], 0.0f);
  }
  return y;
}

}  // namespace rxt::test
