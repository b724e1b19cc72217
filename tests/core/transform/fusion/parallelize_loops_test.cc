// ParallelizeLoops: which loops of legalized (and hand-written) kernels become parallel. That
// parallel kernels give the same results on one and two threads is checked with the CPU
// backend in tests/plugins/backend_cpu/parallelized_ops_test.cc.
#include <gtest/gtest.h>

#include "rxt/ir/parser.h"
#include "rxt/ir/visitor.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

/// Every loop of a kernel, in pre-order, as "name:kind".
class LoopLister : public StmtVisitor {
 public:
  void VisitFor(const ForNode& node) override {
    loops.push_back(node.var->name + ":" + LoopKindName(node.loop_kind));
    StmtVisitor::VisitFor(node);
  }
  std::vector<std::string> loops;
};

/// The loops of every kernel of |text| after LegalizeOps (if it has op calls) and ParallelizeLoops.
std::map<std::string, std::vector<std::string>> LoopsAfter(const std::string& text) {
  IRModule module = RunPasses(ParseModule(text), {"LegalizeOps", "ParallelizeLoops"}, PassContext());
  std::map<std::string, std::vector<std::string>> loops;
  for (const IRModule::Entry& entry : module.entries()) {
    if (!entry.kernel) continue;
    LoopLister lister;
    lister.VisitKernel(*entry.kernel);
    loops[entry.name] = lister.loops;
  }
  return loops;
}

std::vector<std::string> OnlyKernelLoops(const std::string& text) {
  auto loops = LoopsAfter(text);
  EXPECT_EQ(loops.size(), 1u);
  return loops.empty() ? std::vector<std::string>{} : loops.begin()->second;
}

using Loops = std::vector<std::string>;

TEST(ParallelizeLoops, TheOuterLoopOfAnElementwiseKernel) {
  EXPECT_EQ(OnlyKernelLoops(R"(
def @main(%a: Tensor((n, 3), float32), %b: Tensor((3,), float32)) -> Tensor((n, 3), float32) {
  %r = add(%a, %b)
  return %r
})"),
            (Loops{"i0:parallel", "i1:serial"}));
}

TEST(ParallelizeLoops, AMatmulsRowsButNotItsReduction) {
  EXPECT_EQ(OnlyKernelLoops(R"(
def @main(%a: Tensor((64, 32), float32), %b: Tensor((32, 16), float32)) -> Tensor((64, 16), float32) {
  %r = matmul(%a, %b)
  return %r
})"),
            (Loops{"i0:parallel", "i1:serial", "k0:serial"}));
}

TEST(ParallelizeLoops, ALoopAReductionStartsUnderButNotTheReduction) {
  // The backend interchanges i0 with the reduction on each thread's share of it (vectorized,
  // bit-identical). The float64 accumulator's rounding into the result is a stage of its own.
  EXPECT_EQ(OnlyKernelLoops(R"(
def @main(%x: Tensor((8, 16), float32)) -> Tensor((8,), float32) {
  %r = sum(%x, axis=[1])
  return %r
})"),
            (Loops{"i0:parallel", "k0:serial", "i0:parallel"}));
  EXPECT_EQ(OnlyKernelLoops(R"(
def @main(%x: Tensor((8, 16), float32)) -> Tensor((), float32) {
  %r = sum(%x)
  return %r
})"),
            (Loops{"k0:serial", "k1:serial"}));
}

TEST(ParallelizeLoops, LooksThroughLoopsOfExtentOne) {
  EXPECT_EQ(OnlyKernelLoops(R"(
def @main(%x: Tensor((1, 8, 4), float32)) -> Tensor((1, 8, 4), float32) {
  %r = exp(%x)
  return %r
})"),
            (Loops{"i0:serial", "i1:parallel", "i2:serial"}));
}

TEST(ParallelizeLoops, OnlyLoopsWhoseIterationsTouchTheirOwnElements) {
  auto loops = LoopsAfter(R"(
kernel @own_row(A: Buffer((n, 4), float32), B: Buffer((n, 4), float32)) {
  for i in range(n) {
    for j in range(4) {
      B[i, j] = A[i, j] * 2f32
    }
  }
}
kernel @scatter(I: Buffer((n,), int64), A: Buffer((n,), float32), B: Buffer((n,), float32)) {
  for i in range(n) {
    B[I[i]] = A[i]
  }
}
kernel @prefix(A: Buffer((n,), int64)) {
  for i in range(n) {
    A[i] = select(i == 0, 0, A[max(i - 1, 0)] + 1)
  }
}
kernel @column(A: Buffer((n, 4), float32), B: Buffer((n, 4), float32)) {
  for j in range(4) {
    for i in range(n) {
      B[i, j] = A[i, j]
    }
  }
}
kernel @same_element(A: Buffer((n,), float32), B: Buffer((1,), float32)) {
  for i in range(n) {
    B[0] = B[0] + A[i]
  }
}
kernel @local_inside(A: Buffer((n, 4), float32), B: Buffer((n, 4), float32)) {
  for i in range(n) {
    alloc T: Buffer((4,), float32)
    for j in range(4) {
      T[j] = A[i, 3 - j]
    }
    for j in range(4) {
      B[i, j] = T[j]
    }
  }
}
)");
  EXPECT_EQ(loops["own_row"], (Loops{"i:parallel", "j:serial"}));
  EXPECT_EQ(loops["scatter"], (Loops{"i:serial"}));
  EXPECT_EQ(loops["prefix"], (Loops{"i:serial"}));
  // B[i, j] at dim 1 is the loop's own column: legal.
  EXPECT_EQ(loops["column"], (Loops{"j:parallel", "i:serial"}));
  EXPECT_EQ(loops["same_element"], (Loops{"i:serial"}));
  // T is the iteration's own: allocated inside the loop.
  EXPECT_EQ(loops["local_inside"], (Loops{"i:parallel", "j:serial", "j:serial"}));
}

TEST(ParallelizeLoops, LoopsAlreadyMarkedStayAsTheyAre) {
  auto loops = LoopsAfter(R"(
kernel @vectorized(A: Buffer((n,), float32), B: Buffer((n,), float32)) {
  for i in range(n) vectorized {
    B[i] = A[i]
  }
}
)");
  EXPECT_EQ(loops["vectorized"], (Loops{"i:vectorized"}));
}

}  // namespace
}  // namespace rxt
