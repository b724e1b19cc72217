// One single-precision GEMM on the caller's row-major buffers through dnnl_sgemm (oneDNN's
// BLAS-like call: no primitive to create, so no per-shape set-up cost), cut into blocks of rows
// or columns over the host's pool when it is large enough to gain from it. Used by dnnl.matmul
// (matmul.cc) and by the small-map convolutions (small_map_conv.h).
#pragma once

#include <cstdint>

namespace rxt::lib_dnnl {

/// c (rows x n, row stride n) = op(a) op(b) (+ bias per column), then ReLU if asked.
struct Gemm {
  bool trans_a, trans_b;
  int64_t rows, n, k;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float* c;
  const float* bias;
  bool relu;

  /// The |index|-th GEMM of a batch whose a, b and c matrices are |a_size|, |b_size| (0: one
  /// b for all) and |c_size| apart.
  Gemm Batch(int64_t index, int64_t a_size, int64_t b_size, int64_t c_size) const {
    Gemm g = *this;
    g.a += index * a_size;
    g.b += index * b_size;
    g.c += index * c_size;
    return g;
  }
};

// Below this many multiply-adds a GEMM runs on the calling thread alone: handing half to another
// thread costs more than it saves. The seed MLP's 64x128x128 layer (2^20) takes 21 us on one
// thread and 13-16 us split in two on the pool; its 64x128x10 layer takes 3 us.
inline constexpr int64_t kSerialMacs = int64_t{1} << 20;

/// Rows [r0, r1) and columns [c0, c1) of |g|'s output: bias, GEMM and ReLU on that block
/// alone, so blocks run on different threads. Throws std::runtime_error if dnnl_sgemm fails.
void RunGemmBlock(const Gemm& g, int64_t r0, int64_t r1, int64_t c0, int64_t c1);

/// How |gemms| GEMMs of |g|'s shape are cut for the pool: |parts| blocks of |step| rows (or
/// columns) each.
struct GemmSplit {
  bool by_rows;
  int64_t step, parts;
  static GemmSplit Of(const Gemm& g);
};

/// All of |g|: on the calling thread when small or without a pool, else in blocks on the pool.
void RunGemm(const Gemm& g);

}  // namespace rxt::lib_dnnl
