// dnnl.matmul's batched case (matmul.cc): every item of a batch of GEMMs whose a, b and c
// matrices all advance with the batch, through one oneDNN matmul primitive (batched_matmul.cc).
#pragma once

#include <cstdint>

namespace rxt::lib_dnnl {

/// c[i] = act(op(a[i]) op(b[i]) (+ bias)) for i < batch: a[i] (m, k) or transposed (k, m),
/// b[i] (k, n) or transposed (n, k), c[i] (m, n), all compact row-major; bias n values or null.
struct BatchedGemms {
  int64_t batch, m, k, n;
  bool trans_a, trans_b;
  const float* a;
  const float* b;
  const float* bias;
  bool relu;
  float* c;
};
void BatchedMatmul(const BatchedGemms& gemms);

}  // namespace rxt::lib_dnnl
