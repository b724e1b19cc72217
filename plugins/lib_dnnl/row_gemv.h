// A GEMM of one row (batch-1 inference: out (1, N) = x (1, K) . w (K, N) + bias, ReLU) as an
// AVX-512 loop: 128 outputs in eight registers while the weights stream through once. Its
// time is the weights' trip from L2 (the seed MLP's first layer: 4.2 us vs dnnl_sgemm's 5.1),
// so large ones share their columns out over the host's pool (each thread its own weights).
#pragma once

#include <cstdint>

namespace rxt::lib_dnnl {

/// True if RowGemv runs here (UseAvx512(), cpu_isa.h).
bool RowGemvAvailable();

/// out[j] = act(bias[j] + sum_k x[k] w[k * n + j]) for j < n; bias may be null.
void RowGemv(const float* x, const float* w, const float* bias, bool relu, int64_t k, int64_t n, float* out);

}  // namespace rxt::lib_dnnl
