// GEMM through dnnl_sgemm (oneDNN's BLAS-like call: no primitive to create, so no per-shape
// set-up cost; ~94% of FMA peak on the seed MLP's shapes here). The bias is written into the
// output first and accumulated onto (beta = 1); ReLU is one pass over the output while it is
// still in cache. A large GEMM is cut into one block of rows or columns per thread of the
// host's pool (each a serial dnnl_sgemm): oneDNN's own OpenMP team barely sped these shapes up
// (its threads and the pool's wait on each other's cores). A single row goes to row_gemv.h.
// A batched b (..., K, N) with a's batch dims (attention's q kᵀ and p v) goes to oneDNN's matmul
// primitive (batched_matmul.h).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "batched_matmul.h"
#include "gemm.h"
#include "host_threads.h"
#include "externs.h"
#include "row_gemv.h"
#include "tensor_args.h"

namespace rxt::lib_dnnl {
namespace {

constexpr int64_t kTransA = 1, kTransB = 2, kRelu = 4;

void MatmulImpl(void* const* args, int num_args, bool has_bias) {
  const char* name = has_bias ? "dnnl.matmul_bias" : "dnnl.matmul";
  CheckArity(num_args, has_bias ? 5 : 4, name);
  // Read in place: at batch 1 the whole call takes a few microseconds.
  FloatView a = FloatArgView(args, 0, "argument 0 (a)", -1, 2);
  FloatView b = FloatArgView(args, 1, "argument 1 (b)", -1, 2);
  int flags_index = has_bias ? 3 : 2;
  int64_t flags = IntArg(args, flags_index, "argument flags");
  if (flags & ~(kTransA | kTransB | kRelu)) throw ArgumentError("unknown bits in flags " + std::to_string(flags));
  bool trans_a = flags & kTransA, trans_b = flags & kTransB, relu = flags & kRelu;
  FloatView out = FloatArgView(args, num_args - 1, "the output", a.ndim);

  int nd = a.ndim;
  bool batched_b = b.ndim > 2;
  if (batched_b && b.ndim != nd) {
    throw ArgumentError("b " + ShapeText(b.Shape()) + " must be 2-D or have a's batch dims: a " + ShapeText(a.Shape()));
  }
  int64_t m = trans_a ? a.shape[nd - 1] : a.shape[nd - 2];
  int64_t k = trans_a ? a.shape[nd - 2] : a.shape[nd - 1];
  int64_t kb = trans_b ? b.shape[b.ndim - 1] : b.shape[b.ndim - 2];
  int64_t n = trans_b ? b.shape[b.ndim - 2] : b.shape[b.ndim - 1];
  if (k != kb) {
    throw ArgumentError("inner dims differ: a " + ShapeText(a.Shape()) + (trans_a ? " (transposed)" : "") + ", b " +
                        ShapeText(b.Shape()) + (trans_b ? " (transposed)" : ""));
  }
  int64_t batch = 1;
  bool shape_ok = out.shape[nd - 2] == m && out.shape[nd - 1] == n;
  for (int i = 0; i < nd - 2; ++i) {
    batch *= a.shape[i];
    shape_ok = shape_ok && out.shape[i] == a.shape[i];
    if (batched_b && b.shape[i] != a.shape[i]) {
      throw ArgumentError("batch dims differ: a " + ShapeText(a.Shape()) + ", b " + ShapeText(b.Shape()));
    }
  }
  if (!shape_ok) {
    std::vector<int64_t> expected(a.shape, a.shape + nd - 2);
    expected.push_back(m);
    expected.push_back(n);
    throw ArgumentError("the output has shape " + ShapeText(out.Shape()) + ", expected " + ShapeText(expected));
  }
  const float* bias = nullptr;
  if (has_bias) {
    FloatView bt = FloatArgView(args, 2, "argument 2 (bias)", -1);
    if (bt.size() != n) throw ArgumentError("bias has " + std::to_string(bt.size()) + " elements, expected " + std::to_string(n));
    bias = bt.data;
  }
  if (batch == 0 || m == 0 || n == 0) return;
  if (batched_b && k > 0) return BatchedMatmul({batch, m, k, n, trans_a, trans_b, a.data, b.data, bias, relu, out.data});
  // Without a transposed a or a batched b, the batch folds into the rows of one GEMM.
  int64_t gemms = trans_a || batched_b ? batch : 1;
  int64_t b_size = batched_b ? k * n : 0;
  Gemm g{trans_a, trans_b, gemms > 1 ? m : batch * m, n, k, a.data, trans_a ? m : k, b.data, trans_b ? k : n,
         out.data, bias, relu};
  if (g.rows == 1 && !trans_b && RowGemvAvailable()) {  // batch-1 inference: one row per GEMM
    for (int64_t i = 0; i < gemms; ++i) {
      Gemm row = g.Batch(i, m * k, b_size, m * n);
      RowGemv(row.a, row.b, bias, relu, k, n, row.c);
    }
    return;
  }
  bool small = batch * m * n * k < kSerialMacs;
  if (small || HostRuntime() == nullptr || HostThreads() < 2) {
    // On this thread alone, or (a host without a thread pool to share) on OpenMP's team.
    OmpSerialScope serial(small || HostRuntime() != nullptr);
    for (int64_t i = 0; i < gemms; ++i) RunGemmBlock(g.Batch(i, m * k, b_size, m * n), 0, g.rows, 0, n);
    return;
  }
  GemmSplit split = GemmSplit::Of(g);
  ParallelParts(gemms * split.parts, [&](int64_t item) {
    Gemm one = g.Batch(item / split.parts, m * k, b_size, m * n);
    int64_t lo = item % split.parts * split.step;
    if (split.by_rows) {
      RunGemmBlock(one, lo, std::min(lo + split.step, one.rows), 0, n);
    } else {
      RunGemmBlock(one, 0, one.rows, lo, std::min(lo + split.step, n));
    }
  });
}

}  // namespace

void Matmul(void* const* args, int num_args) { MatmulImpl(args, num_args, false); }
void MatmulBias(void* const* args, int num_args) { MatmulImpl(args, num_args, true); }

}  // namespace rxt::lib_dnnl
