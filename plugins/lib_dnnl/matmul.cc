// GEMM through dnnl_sgemm (oneDNN's BLAS-like call: no primitive to create, so no per-shape
// set-up cost; ~94% of FMA peak on the seed MLP's shapes here). The bias is written into the
// output first and accumulated onto (beta = 1); ReLU is one pass over the output while it is
// still in cache.
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>

#include <algorithm>

#include "externs.h"
#include "tensor_args.h"

namespace rxt::lib_dnnl {
namespace {

constexpr int64_t kTransA = 1, kTransB = 2, kRelu = 4;

// Below this many multiply-adds a GEMM runs on the calling thread alone: waking OpenMP's other
// threads costs more than they save (the seed MLP at batch 1: 6.9 us on 1 thread, 12.9 on 2).
constexpr int64_t kSerialMacs = int64_t{1} << 20;

/// Runs the calling thread's OpenMP team at one thread for its lifetime, if |serial|.
class SerialScope {
 public:
  explicit SerialScope(bool serial) : saved_(serial ? omp_get_max_threads() : 0) {
    if (saved_ > 1) omp_set_num_threads(1);
  }
  ~SerialScope() {
    if (saved_ > 1) omp_set_num_threads(saved_);
  }
  SerialScope(const SerialScope&) = delete;
  SerialScope& operator=(const SerialScope&) = delete;

 private:
  int saved_;
};

void MatmulImpl(void* const* args, int num_args, bool has_bias) {
  const char* name = has_bias ? "dnnl.matmul_bias" : "dnnl.matmul";
  CheckArity(num_args, has_bias ? 5 : 4, name);
  FloatTensor a = FloatArg(args, 0, "argument 0 (a)", -1, 2);
  FloatTensor b = FloatArg(args, 1, "argument 1 (b)", 2);
  int flags_index = has_bias ? 3 : 2;
  int64_t flags = IntArg(args, flags_index, "argument flags");
  if (flags & ~(kTransA | kTransB | kRelu)) throw ArgumentError("unknown bits in flags " + std::to_string(flags));
  bool trans_a = flags & kTransA, trans_b = flags & kTransB, relu = flags & kRelu;
  FloatTensor out = FloatArg(args, num_args - 1, "the output", static_cast<int>(a.shape.size()));

  size_t nd = a.shape.size();
  int64_t m = trans_a ? a.shape[nd - 1] : a.shape[nd - 2];
  int64_t k = trans_a ? a.shape[nd - 2] : a.shape[nd - 1];
  int64_t kb = trans_b ? b.shape[1] : b.shape[0];
  int64_t n = trans_b ? b.shape[0] : b.shape[1];
  if (k != kb) {
    throw ArgumentError("inner dims differ: a " + ShapeText(a.shape) + (trans_a ? " (transposed)" : "") + ", b " +
                        ShapeText(b.shape) + (trans_b ? " (transposed)" : ""));
  }
  std::vector<int64_t> expected(a.shape.begin(), a.shape.end() - 2);
  int64_t batch = 1;
  for (int64_t d : expected) batch *= d;
  expected.push_back(m);
  expected.push_back(n);
  if (out.shape != expected) {
    throw ArgumentError("the output has shape " + ShapeText(out.shape) + ", expected " + ShapeText(expected));
  }
  const float* bias = nullptr;
  if (has_bias) {
    FloatTensor bt = FloatArg(args, 2, "argument 2 (bias)", -1);
    if (bt.size() != n) throw ArgumentError("bias has " + std::to_string(bt.size()) + " elements, expected " + std::to_string(n));
    bias = bt.data;
  }
  if (batch == 0 || m == 0 || n == 0) return;
  if (bias != nullptr) {
    for (int64_t row = 0; row < batch * m; ++row) std::copy(bias, bias + n, out.data + row * n);
  }
  float beta = bias != nullptr ? 1.0f : 0.0f;
  SerialScope serial(batch * m * n * k < kSerialMacs);
  // Without a transposed a, the batch folds into the rows of one GEMM.
  int64_t gemms = trans_a ? batch : 1;
  int64_t rows = trans_a ? m : batch * m;
  for (int64_t g = 0; g < gemms; ++g) {
    if (k == 0) {
      if (bias == nullptr) std::fill(out.data + g * m * n, out.data + (g + 1) * m * n, 0.0f);
      continue;
    }
    dnnl_status_t status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', rows, n, k, 1.0f, a.data + g * m * k,
                                      trans_a ? m : k, b.data, trans_b ? k : n, beta, out.data + g * m * n, n);
    if (status != dnnl_success) throw std::runtime_error("dnnl_sgemm failed with status " + std::to_string(status));
  }
  if (relu) {
    float* c = out.data;
    int64_t total = batch * m * n;
    for (int64_t i = 0; i < total; ++i) c[i] = c[i] > 0.0f ? c[i] : 0.0f;
  }
}

}  // namespace

void Matmul(void* const* args, int num_args) { MatmulImpl(args, num_args, false); }
void MatmulBias(void* const* args, int num_args) { MatmulImpl(args, num_args, true); }

}  // namespace rxt::lib_dnnl
