// Which loop nests the backend interchanges (reduction_interchange.cc): the spatial loop moves
// inside the reduction loops only when each of its iterations writes elements of its own.
// (The legalized-op and codegen tests check the results of interchanged kernels bit for bit.)
#include "reduction_interchange.h"

#include "cpu_test_util.h"
#include "rxt/exec/build.h"
#include "rxt/ir/printer.h"

namespace rxt::backend_cpu::testing {
namespace {

plugin_support::kernel_format::Kernel Decode(const std::string& text, const std::string& name) {
  IRModule module = ParseModule(text, name + ".rxt");
  std::vector<uint8_t> bytes = EncodeKernel(module.GetKernel(name), name);
  return plugin_support::kernel_format::DecodeKernel(bytes.data(), bytes.size()).kernel;
}

// The plans for every For statement of |name|, by loop variable name: "j" -> "1" (one part,
// one reduction loop inside), "1 tiled" (not contiguous), "1, 0" (a reduction, then a block).
std::map<std::string, std::string> Plans(const std::string& text, const std::string& name) {
  plugin_support::kernel_format::Kernel k = Decode(text, name);
  std::map<std::string, std::string> plans;
  for (size_t s = 0; s < k.stmts.size(); ++s) {
    if (k.stmts[s].kind != plugin_support::kernel_format::StmtKind::kFor) continue;
    if (auto plan = PlanReductionInterchange(k, static_cast<int32_t>(s))) {
      std::string text;
      for (const InterchangePart& part : plan->parts) {
        text += (text.empty() ? "" : ", ") + std::to_string(part.reduction_loops.size()) + (part.contiguous ? "" : " tiled");
      }
      plans[k.vars[k.stmts[s].var].name] = text;
    }
  }
  return plans;
}

using PlanMap = std::map<std::string, std::string>;

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
  EXPECT_EQ(Plans(kMatmul, "mm"), (PlanMap{{"j", "1"}}));
  // W read across its rows (x · Wᵀ, W[vj, vr]): the inner loop would read with a stride, so tiles.
  std::string transposed = kMatmul;
  transposed.replace(transposed.find("W[vr, vj]"), 9, "W[vj, vr]");
  EXPECT_EQ(Plans(transposed, "mm"), (PlanMap{{"j", "1 tiled"}}));
  // Pooling with a stride of 1: two reduction loops under the innermost spatial loop.
  const char* pool = R"(
kernel @pool(D: Buffer((4, 8), float32), P: Buffer((3, 7), float32)) {
  for i in range(3) {
    for j in range(7) {
      for a in range(2) {
        for c in range(2) {
          block P(vi = i, vj = j, reduce va = a, reduce vc = c) {
            init {
              P[vi, vj] = -inf_f32
            }
            P[vi, vj] = max(P[vi, vj], D[vi + va, vj + vc])
          }
        }
      }
    }
  }
}
)";
  EXPECT_EQ(Plans(pool, "pool"), (PlanMap{{"j", "2"}}));
  // With a stride of 2 the inner loop would read every other element: tiles only.
  std::string strided = pool;
  strided.replace(strided.find("D[vi + va, vj + vc]"), 19, "D[vi * 2 + va, vj * 2 + vc]");
  EXPECT_EQ(Plans(strided, "pool"), (PlanMap{{"j", "2 tiled"}}));
}

// A fused kernel: the matmul's reduction and its epilogue (bias, ReLU) in one j loop, as
// FuseKernels writes them. The j loop is split in two, the reduction part interchanged.
const char* kFusedLinear = R"(
kernel @fused(X: Buffer((b, k), float32), W: Buffer((k, n), float32), B: Buffer((n,), float32),
              Y: Buffer((b, n), float32)) {
  for i in range(b) {
    for j in range(n) {
      for r in range(k) {
        block mm(vi = i, vj = j, reduce vr = r) {
          init {
            Y[vi, vj] = 0f32
          }
          Y[vi, vj] = Y[vi, vj] + X[vi, vr] * W[vr, vj]
        }
      }
      block relu(ui = i, uj = j) {
        Y[ui, uj] = max(Y[ui, uj] + B[uj], 0f32)
      }
    }
  }
}
)";

TEST(ReductionInterchange, SplitsAFusedReductionFromItsEpilogue) {
  EXPECT_EQ(Plans(kFusedLinear, "fused"), (PlanMap{{"j", "1, 0"}}));
  for (int64_t b : {1, 3}) {
    ExpectAgree(kFusedLinear, "fused",
                {ArgSpec::Tensor({b, 40}, kF32), ArgSpec::Tensor({40, 33}, kF32), ArgSpec::Tensor({33}, kF32),
                 ArgSpec::Tensor({b, 33}, kF32)});
  }
  // The epilogue reading a neighbour's result: the loop stays whole.
  std::string neighbour = kFusedLinear;
  neighbour.replace(neighbour.find("max(Y[ui, uj] + B[uj]"), 21, "max(Y[ui, max(uj - 1, 0)] + B[uj]");
  EXPECT_TRUE(Plans(neighbour, "fused").empty());
}

// A dense layer at batch 1, legalized and fused as `rxt build` does: the epilogue reads the
// matmul's result at the row index (not a constant 0 for the dim of 1), so the fused kernel is
// still interchanged and vectorized (it ran ~20x slower as a scalar loop over k).
TEST(ReductionInterchange, TheFusedDenseLayerAtBatchOneIsInterchanged) {
  const char* text = R"(
def @main(%x: Tensor((1, 40), float32), %w: Tensor((40, 33), float32), %b: Tensor((33,), float32)) -> Tensor((1, 33), float32) {
  dataflow {
    %m: Tensor((1, 33), float32) = matmul(%x, %w)
    %a: Tensor((1, 33), float32) = add(%m, %b)
    %r: Tensor((1, 33), float32) = nn.relu(%a)
    output %r
  }
  return %r
}
)";
  IRModule lowered = LowerForBuild(ParseModule(text, "dense.rxt"), {.backend = "cpu"});
  std::string printed = PrintModule(lowered);
  ASSERT_NE(printed.find("kernel @fused_matmul_add_relu("), std::string::npos) << printed;
  PlanMap plans = Plans(printed, "fused_matmul_add_relu");
  ASSERT_EQ(plans.size(), 1u) << printed;
  EXPECT_EQ(plans.begin()->second, "1, 0") << printed;
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
  // A parallel reduction loop stays where it is.
  EXPECT_TRUE(plans("for r in range(k) {", "for r in range(k) parallel {").empty());
  // The reduction's extent depends on the spatial loop.
  EXPECT_TRUE(plans("for r in range(k) {", "for r in range(min(k, j + 1)) {").empty());
}

TEST(ReductionInterchange, TheInterchangedMatmulIsExact) {
  // 1 x 784 x 128, the seed MLP's first layer at batch 1 (about 10 us interchanged, 130 us in
  // order); the results equal the reference bit for bit (each element's order is unchanged).
  std::vector<ArgSpec> args = {ArgSpec::Tensor({1, 784}, kF32), ArgSpec::Tensor({784, 128}, kF32),
                               ArgSpec::Tensor({1, 128}, kF32)};
  ExpectAgree(kMatmul, "mm", args);
}

TEST(ReductionInterchange, TheTiledTransposedMatmulIsExact) {
  // x · Wᵀ with W (128, 784), as the seed's linear0: tiles of 8 outputs, 8 chains at a time.
  const char* text = R"(
kernel @mt(X: Buffer((1, m), float32), W: Buffer((n, m), float32), Z: Buffer((1, n), float32)) {
  for j in range(n) {
    for r in range(m) {
      block Z(vj = j, reduce vr = r) {
        init {
          Z[0, vj] = 0f32
        }
        Z[0, vj] = Z[0, vj] + X[0, vr] * W[vj, vr]
      }
    }
  }
}
)";
  for (int64_t n : {128, 13, 7, 0}) {
    ExpectAgree(text, "mt", {ArgSpec::Tensor({1, 784}, kF32), ArgSpec::Tensor({n, 784}, kF32), ArgSpec::Tensor({1, n}, kF32)});
  }
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
