// Which loop nests the backend interchanges (reduction_interchange.cc): the spatial loop moves
// inside the reduction loops only when each of its iterations writes elements of its own.
// (The legalized-op and codegen tests check the results of interchanged kernels bit for bit.)
#include "reduction_interchange.h"

#include <chrono>

#include "cpu_test_util.h"

namespace rxt::backend_cpu::testing {
namespace {

kernel_format::Kernel Decode(const std::string& text, const std::string& name) {
  IRModule module = ParseModule(text, name + ".rxt");
  std::vector<uint8_t> bytes = EncodeKernel(module.GetKernel(name), name);
  return kernel_format::DecodeKernel(bytes.data(), bytes.size()).kernel;
}

// The plans for every For statement of |name|, by loop variable name ("j" -> 1 reduction loop).
std::map<std::string, size_t> Plans(const std::string& text, const std::string& name) {
  kernel_format::Kernel k = Decode(text, name);
  std::map<std::string, size_t> plans;
  for (size_t s = 0; s < k.stmts.size(); ++s) {
    if (k.stmts[s].kind != kernel_format::StmtKind::kFor) continue;
    if (auto plan = PlanReductionInterchange(k, static_cast<int32_t>(s))) plans[k.vars[k.stmts[s].var].name] = plan->reduction_loops.size();
  }
  return plans;
}

const char* kMatmul = R"(
kernel @mm(X: Buffer((b, k), float32), W: Buffer((k, n), float32), Z: Buffer((b, n), float32)) {
  for i in range(b) {
    for j in range(n) {
      for r in range(k) {
        block Z(vi = i, vj = j, reduce vr = r) {
          init {
            Z[vi, vj] = 0f32
          }
          Z[vi, vj] = Z[vi, vj] + X[vi, vr] * W[vr, vj]
        }
      }
    }
  }
}
)";

TEST(ReductionInterchange, MovesTheSpatialLoopAroundAReductionInside) {
  EXPECT_EQ(Plans(kMatmul, "mm"), (std::map<std::string, size_t>{{"j", 1}}));
  // Pooling: two reduction loops under the innermost spatial loop.
  const char* pool = R"(
kernel @pool(D: Buffer((4, 8), float32), P: Buffer((2, 4), float32)) {
  for i in range(2) {
    for j in range(4) {
      for a in range(2) {
        for c in range(2) {
          block P(vi = i, vj = j, reduce va = a, reduce vc = c) {
            init {
              P[vi, vj] = -inf_f32
            }
            P[vi, vj] = max(P[vi, vj], D[vi * 2 + va, vj * 2 + vc])
          }
        }
      }
    }
  }
}
)";
  EXPECT_EQ(Plans(pool, "pool"), (std::map<std::string, size_t>{{"j", 2}}));
}

TEST(ReductionInterchange, KeepsTheOrderWhenIterationsCouldShareElements) {
  auto plans = [](const std::string& from, const std::string& to) {
    std::string text = kMatmul;
    text.replace(text.find(from), from.size(), to);
    return Plans(text, "mm");
  };
  // Two iterations of j write one element (vj = j / 2): interchanging would interleave them.
  EXPECT_TRUE(plans("vj = j,", "vj = floordiv(j, 2),").empty());
  // The spatial iterator is not the last index of the store.
  EXPECT_TRUE(plans("Z[vi, vj] = Z[vi, vj] + X", "Z[vj, vi] = Z[vj, vi] + X").empty());
  // A neighbour's element is read.
  EXPECT_TRUE(plans("Z[vi, vj] + X", "Z[vi, max(vj - 1, 0)] + X").empty());
  // A parallel spatial loop stays outside.
  EXPECT_TRUE(plans("for j in range(n) {", "for j in range(n) parallel {").empty());
  // The reduction's extent depends on the spatial loop.
  EXPECT_TRUE(plans("for r in range(k) {", "for r in range(min(k, j + 1)) {").empty());
}

TEST(ReductionInterchange, TheInterchangedMatmulIsFastAndExact) {
  // 1 x 784 x 128, the seed MLP's first layer at batch 1; the results equal the reference bit
  // for bit (the summation order of each element is unchanged).
  std::vector<ArgSpec> args = {ArgSpec::Tensor({1, 784}, kF32), ArgSpec::Tensor({784, 128}, kF32),
                               ArgSpec::Tensor({1, 128}, kF32)};
  ExpectAgree(kMatmul, "mm", args);
  std::unique_ptr<CpuKernel> mm = CompileCpu(kMatmul, "mm");
  HostTensor x({1, 784}, kF32), w({784, 128}, kF32), z({1, 128}, kF32);
  for (int i = 0; i < 10; ++i) CallCpu(*mm, {x.dl(), w.dl(), z.dl()});
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) CallCpu(*mm, {x.dl(), w.dl(), z.dl()});
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / 100;
  RecordProperty("matmul_1x784x128_us", std::to_string(us));
  // In order, the 784 dependent additions per element take ~130 us; vectorized over the
  // outputs, a few tens. The bound leaves room for a busy machine.
  EXPECT_LT(us, 100);
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
