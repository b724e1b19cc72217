// Which parallel loops declare their iterations independent to LLVM (disjoint_iterations.h),
// that such a loop vectorizes without run-time overlap checks even where an output may be its
// input's memory, and that it computes the right values when it is.
#include "disjoint_iterations.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <random>

#include "cpu_test_util.h"
#include "kernel_codegen.h"
#include "optimizer.h"
#include "rxt/ir/kernel_encoding.h"
#include "rxt/ir/parser.h"
#include "target.h"

namespace rxt::backend_cpu::testing {
namespace {

namespace kf = plugin_support::kernel_format;

// Whether the first parallel loop of kernel |name| has iterations touching disjoint memory.
bool Disjoint(const std::string& text, const std::string& name = "k") {
  kf::Kernel k = DecodeKernelText(text, name);
  for (size_t s = 0; s < k.stmts.size(); ++s) {
    if (k.stmts[s].kind == kf::StmtKind::kFor && k.stmts[s].loop_kind == kf::LoopKind::kParallel) {
      return IterationsTouchDisjointMemory(k, static_cast<int32_t>(s));
    }
  }
  ADD_FAILURE() << "no parallel loop";
  return false;
}

// A momentum update written over its parameter and velocity (the VM donates both): each element
// of W and V is read before it is written.
const char* kMomentum = R"(
kernel @k(W: Buffer((n, 64), float32), G: Buffer((n, 64), float32), V: Buffer((n, 64), float32),
          lr: Buffer((), float32), W2: Buffer((n, 64), float32), V2: Buffer((n, 64), float32))
    attributes {in_place = [0, 4, 2, 5]} {
  for i in range(n) parallel {
    for j in range(64) {
      block b(vi = i, vj = j) {
        W2[vi, vj] = W[vi, vj] - lr[] * (V[vi, vj] * 0.9f32 + G[vi, vj])
        V2[vi, vj] = V[vi, vj] * 0.9f32 + G[vi, vj]
      }
    }
  }
}
)";

TEST(DisjointIterations, ElementwiseUpdatesOverTheirInputsAreDisjoint) { EXPECT_TRUE(Disjoint(kMomentum)); }

TEST(DisjointIterations, ADependenceBetweenIterationsIsNot) {
  // Iteration i reads what iteration i - 1 wrote.
  EXPECT_FALSE(Disjoint(R"(
kernel @k(A: Buffer((2, n), int64)) {
  for i in range(n) parallel {
    A[1, i] = A[1, max(i - 1, 0)] + 1
  }
}
)"));
  // Every iteration writes the same element.
  EXPECT_FALSE(Disjoint(R"(
kernel @k(X: Buffer((n,), float32), S: Buffer((1,), float32)) {
  for i in range(n) parallel {
    S[0] = X[i]
  }
}
)"));
}

TEST(DisjointIterations, AnInputThatMayBeTheOutputCountsAsTheOutput) {
  // Y may be X's memory: iteration i writes Y[i] where iteration i + 1 reads X[i].
  const char* shifted = R"(
kernel @k(X: Buffer((m,), float32), Y: Buffer((m,), float32)) attributes {in_place = [0, 1]} {
  for i in range(m - 1) parallel {
    Y[i] = X[i + 1]
  }
}
)";
  EXPECT_FALSE(Disjoint(shifted));
  // Without the in_place pair the two are distinct memory (the codegen says so to LLVM anyway).
  std::string distinct = shifted;
  distinct.replace(distinct.find(" attributes {in_place = [0, 1]}"), 31, "");
  EXPECT_TRUE(Disjoint(distinct));
  // Same indices but other shapes: not the same elements when they share memory.
  EXPECT_FALSE(Disjoint(R"(
kernel @k(X: Buffer((4, 8), float32), Y: Buffer((8, 4), float32)) attributes {in_place = [0, 1]} {
  for i in range(4) parallel {
    for j in range(4) {
      Y[i, j] = X[i, j]
    }
  }
}
)"));
}

TEST(DisjointIterations, ABufferAllocatedInTheBodyIsNot) {
  EXPECT_FALSE(Disjoint(R"(
kernel @k(X: Buffer((n, 4), float32), Y: Buffer((n, 4), float32)) {
  for i in range(n) parallel {
    alloc T: Buffer((4,), float32)
    for j in range(4) {
      T[j] = X[i, j] * 2f32
    }
    for j in range(4) {
      Y[i, j] = T[j] + 1f32
    }
  }
}
)"));
}

// The names of the optimized functions of kernel |name|'s code whose body has a block named
// |block| (LLVM's loop vectorizer names its blocks vector.body, vector.memcheck, ...).
std::vector<std::string> FunctionsWithBlock(const std::string& text, const std::string& name, const std::string& block) {
  kf::Kernel k = DecodeKernelText(text, name);
  llvm::LLVMContext context;
  std::string errors;
  QuietDiagnostics(context, &errors);
  llvm::Module module(name, context);
  CodegenOptions options;
  options.target_cpu = Host().cpu;
  options.target_features = Host().features;
  EmitKernel(k, "k", module, options);
  InitializeLlvm();
  std::unique_ptr<llvm::TargetMachine> machine = CreateTargetMachine(Host());
  Optimize(module, *machine);
  std::vector<std::string> found;
  for (const llvm::Function& f : module) {
    for (const llvm::BasicBlock& b : f) {
      if (b.getName().starts_with(block)) {
        found.push_back(f.getName().str());
        break;
      }
    }
  }
  return found;
}

TEST(DisjointIterations, TheUpdateVectorizesWithoutOverlapChecks) {
  EXPECT_EQ(FunctionsWithBlock(kMomentum, "k", "vector.body"), std::vector<std::string>{"k.parallel0"});
  EXPECT_EQ(FunctionsWithBlock(kMomentum, "k", "vector.memcheck"), std::vector<std::string>{});
}

// Written over its inputs (the same tensors passed as W and W2, V and V2) on 1 and 2 threads,
// the update gives what it gives into fresh outputs, bit for bit.
TEST(DisjointIterations, TheUpdateOverItsInputsEqualsTheUpdateIntoFreshOutputs) {
  std::unique_ptr<CpuKernel> kernel = CompileCpu(kMomentum, "k");
  const int64_t n = 1000;  // 64000 elements: above the threshold for waking threads
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> w(n * 64), g(n * 64), v(n * 64);
  for (auto* values : {&w, &g, &v}) {
    for (float& x : *values) x = dist(rng);
  }
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    HostTensor W({n, 64}, kF32), G({n, 64}, kF32), V({n, 64}, kF32), lr({}, kF32), W2({n, 64}, kF32), V2({n, 64}, kF32);
    W.Fill(w);
    G.Fill(g);
    V.Fill(v);
    lr.Fill(std::vector<float>{0.1f});
    ASSERT_EQ(CallCpu(*kernel, {W.dl(), G.dl(), V.dl(), lr.dl(), W2.dl(), V2.dl()}, PoolRuntime(threads)), "");
    ASSERT_EQ(CallCpu(*kernel, {W.dl(), G.dl(), V.dl(), lr.dl(), W.dl(), V.dl()}, PoolRuntime(threads)), "");
    for (int64_t i = 0; i < n * 64; i += 37) {
      float velocity = v[i] * 0.9f + g[i];
      ASSERT_EQ(V2.flat<float>(i), velocity) << i;
      ASSERT_EQ(W2.flat<float>(i), w[i] - 0.1f * velocity) << i;
      ASSERT_EQ(V.flat<float>(i), V2.flat<float>(i)) << i;
      ASSERT_EQ(W.flat<float>(i), W2.flat<float>(i)) << i;
    }
  }
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
