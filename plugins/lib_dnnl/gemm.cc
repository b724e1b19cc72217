#include "gemm.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "host_threads.h"

namespace rxt::lib_dnnl {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

}  // namespace

void RunGemmBlock(const Gemm& g, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  int64_t rows = r1 - r0, cols = c1 - c0;
  if (rows <= 0 || cols <= 0) return;
  float* c = g.c + r0 * g.n + c0;
  if (g.bias != nullptr) {
    for (int64_t r = 0; r < rows; ++r) std::copy(g.bias + c0, g.bias + c1, c + r * g.n);
  }
  if (g.k == 0) {
    if (g.bias == nullptr) {
      for (int64_t r = 0; r < rows; ++r) std::fill(c + r * g.n, c + r * g.n + cols, 0.0f);
    }
  } else {
    const float* a = g.trans_a ? g.a + r0 : g.a + r0 * g.lda;
    const float* b = g.trans_b ? g.b + c0 * g.ldb : g.b + c0;
    dnnl_status_t status = dnnl_sgemm(g.trans_a ? 'T' : 'N', g.trans_b ? 'T' : 'N', rows, cols, g.k, 1.0f, a, g.lda,
                                      b, g.ldb, g.bias != nullptr ? 1.0f : 0.0f, c, g.n);
    if (status != dnnl_success) throw std::runtime_error("dnnl_sgemm failed with status " + std::to_string(status));
  }
  if (g.relu) {
    for (int64_t r = 0; r < rows; ++r) {
      float* row = c + r * g.n;
      for (int64_t j = 0; j < cols; ++j) row[j] = row[j] > 0.0f ? row[j] : 0.0f;
    }
  }
}

GemmSplit GemmSplit::Of(const Gemm& g) {
  // Blocks of rows, or of columns when there are more columns than rows.
  GemmSplit s;
  s.by_rows = g.rows >= g.n;
  int64_t parts = HostThreads();
  s.step = s.by_rows ? RoundUp(CeilDiv(g.rows, parts), 8) : RoundUp(CeilDiv(g.n, parts), 16);
  s.parts = CeilDiv(s.by_rows ? g.rows : g.n, s.step);
  return s;
}

void RunGemm(const Gemm& g) {
  bool small = g.rows * g.n * g.k < kSerialMacs;
  if (small || HostRuntime() == nullptr || HostThreads() < 2) {
    // On this thread alone, or (a host without a thread pool to share) on OpenMP's team.
    OmpSerialScope serial(small || HostRuntime() != nullptr);
    RunGemmBlock(g, 0, g.rows, 0, g.n);
    return;
  }
  GemmSplit split = GemmSplit::Of(g);
  ParallelParts(split.parts, [&](int64_t part) {
    int64_t lo = part * split.step;
    if (split.by_rows) {
      RunGemmBlock(g, lo, std::min(lo + split.step, g.rows), 0, g.n);
    } else {
      RunGemmBlock(g, 0, g.rows, lo, std::min(lo + split.step, g.n));
    }
  });
}

}  // namespace rxt::lib_dnnl
