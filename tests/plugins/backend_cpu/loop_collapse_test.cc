// Which loops the backend merges (loop_collapse.cc): adjacent loops of a perfect nest whose
// variables appear only as adjacent indices of compact buffers, the inner one's dim equal to
// its extent. Every rewritten kernel stays valid, and computes what the reference interpreter
// computes on the kernel as written.
#include "loop_collapse.h"

#include "cpu_test_util.h"
#include "rxt/plugin_support/kernel_validator.h"

namespace rxt::backend_cpu::testing {
namespace {

namespace kf = plugin_support::kernel_format;

// The merged groups of kernel |name| by loop variable names ("i j, k l"), with " parallel" after
// a group whose merged loop runs in parallel. Checks that the rewritten kernel is valid.
std::string Groups(const std::string& text, const std::string& name) {
  kf::Kernel k = DecodeKernelText(text, name);
  kf::Kernel collapsed = CollapseLoops(k);
  EXPECT_EQ(kf::ValidateKernel(collapsed), "");
  std::string out;
  for (const CollapsedLoops& group : PlanLoopCollapse(k)) {
    std::string names;
    for (int32_t loop : group.loops) names += (names.empty() ? "" : " ") + k.vars[k.stmts[loop].var].name;
    if (collapsed.stmts[group.loops.back()].loop_kind == kf::LoopKind::kParallel) names += " parallel";
    out += (out.empty() ? "" : ", ") + names;
  }
  return out;
}

// The fused momentum update of a (512, 512, 3, 3) weight, smaller.
const char* kMomentum = R"(
kernel @momentum(lr: Buffer((), float32), c: Buffer((), float32), param: Buffer((4, 5, 3, 3), float32),
                 grad: Buffer((4, 5, 3, 3), float32), buf: Buffer((4, 5, 3, 3), float32),
                 add: Buffer((4, 5, 3, 3), float32), subtract: Buffer((4, 5, 3, 3), float32)) {
  for i0 in range(4) {
    for i1 in range(5) {
      for i2 in range(3) {
        for i3 in range(3) {
          block add(v0 = i0, v1 = i1, v2 = i2, v3 = i3) {
            add[v0, v1, v2, v3] = c[] * buf[v0, v1, v2, v3] + grad[v0, v1, v2, v3]
          }
          block subtract(v0 = i0, v1 = i1, v2 = i2, v3 = i3) {
            subtract[v0, v1, v2, v3] = param[v0, v1, v2, v3] - lr[] * add[v0, v1, v2, v3]
          }
        }
      }
    }
  }
}
)";

std::vector<ArgSpec> MomentumArgs() {
  std::vector<ArgSpec> args = {ArgSpec::Tensor({}, kF32), ArgSpec::Tensor({}, kF32)};
  for (int i = 0; i < 5; ++i) args.push_back(ArgSpec::Tensor({4, 5, 3, 3}, kF32));
  return args;
}

TEST(LoopCollapse, AnElementwiseNestBecomesOneLoop) {
  EXPECT_EQ(Groups(kMomentum, "momentum"), "i0 i1 i2 i3");
  kf::Kernel collapsed = CollapseLoops(DecodeKernelText(kMomentum, "momentum"));
  const kf::Stmt& body = collapsed.stmts[collapsed.body()];
  ASSERT_EQ(body.kind, kf::StmtKind::kFor);
  EXPECT_EQ(collapsed.exprs[body.extent].int_value, 1);
  int32_t innermost = collapsed.stmts[collapsed.stmts[body.body].body].body;
  EXPECT_EQ(collapsed.exprs[collapsed.stmts[innermost].extent].int_value, 4 * 5 * 3 * 3);
  ExpectAgree(kMomentum, "momentum", MomentumArgs());
}

TEST(LoopCollapse, OnlyTheDimsThatStayContiguous) {
  // scale[v1] reads by i1 alone: (i0, i1) and (i1, i2) stay apart, (i2, i3) merge.
  std::string scaled = kMomentum;
  scaled.replace(scaled.find("c[] * buf"), 9, "scale[v1] * buf");
  scaled.replace(scaled.find("c: Buffer((), float32)"), 22, "scale: Buffer((5,), float32)");
  EXPECT_EQ(Groups(scaled, "momentum"), "i2 i3");
  std::vector<ArgSpec> args = MomentumArgs();
  args[1] = ArgSpec::Tensor({5}, kF32);
  ExpectAgree(scaled, "momentum", args);
  // A trailing broadcast operand of shape (3, 3): (i2, i3) merge, and (i0, i1) apart from them.
  std::string trailing = kMomentum;
  trailing.replace(trailing.find("c[] * buf"), 9, "w[v2, v3] * buf");
  trailing.replace(trailing.find("c: Buffer((), float32)"), 22, "w: Buffer((3, 3), float32)");
  EXPECT_EQ(Groups(trailing, "momentum"), "i0 i1, i2 i3");
  args[1] = ArgSpec::Tensor({3, 3}, kF32);
  ExpectAgree(trailing, "momentum", args);
  // Broadcasting along a dim of extent 1 (index 0 there): that pair stays.
  std::string broadcast = kMomentum;
  broadcast.replace(broadcast.find("c[] * buf"), 9, "w[v0, 0, v2, v3] * buf");
  broadcast.replace(broadcast.find("c: Buffer((), float32)"), 22, "w: Buffer((4, 1, 3, 3), float32)");
  EXPECT_EQ(Groups(broadcast, "momentum"), "i2 i3");
  args[1] = ArgSpec::Tensor({4, 1, 3, 3}, kF32);
  ExpectAgree(broadcast, "momentum", args);
}

const char* kCopy = R"(
kernel @copy(X: Buffer((4, 6), float32), Y: Buffer((4, 6), float32)) {
  for i in range(4) {
    for j in range(6) {
      block Y(vi = i, vj = j) {
        Y[vi, vj] = X[vi, vj]
      }
    }
  }
}
)";

std::string Edit(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(LoopCollapse, WhatMustNotMerge) {
  EXPECT_EQ(Groups(kCopy, "copy"), "i j");
  // A transposed read: [vj, vi].
  std::string transposed = Edit(Edit(kCopy, "X[vi, vj]", "X[vj, vi]"), "X: Buffer((4, 6)", "X: Buffer((6, 4)");
  EXPECT_EQ(Groups(transposed, "copy"), "");
  ExpectAgree(transposed, "copy", {ArgSpec::Tensor({6, 4}, kF32), ArgSpec::Tensor({4, 6}, kF32)});
  // A dim larger than the extent (a slice): the rows are not contiguous.
  std::string slice = Edit(kCopy, "X: Buffer((4, 6)", "X: Buffer((4, 7)");
  EXPECT_EQ(Groups(slice, "copy"), "");
  ExpectAgree(slice, "copy", {ArgSpec::Tensor({4, 7}, kF32), ArgSpec::Tensor({4, 6}, kF32)});
  // The outer dim may differ: only the inner one's stride matters.
  std::string rows = Edit(kCopy, "X: Buffer((4, 6)", "X: Buffer((5, 6)");
  EXPECT_EQ(Groups(rows, "copy"), "i j");
  ExpectAgree(rows, "copy", {ArgSpec::Tensor({5, 6}, kF32), ArgSpec::Tensor({4, 6}, kF32)});
  // Declared strides.
  EXPECT_EQ(Groups(Edit(kCopy, "X: Buffer((4, 6), float32)", "X: Buffer((4, 6), float32, strides=(8, 1))"), "copy"), "");
  // Not adjacent, twice in one access, in another order.
  EXPECT_EQ(Groups(Edit(Edit(kCopy, "X[vi, vj]", "X[vi, 0, vj]"), "X: Buffer((4, 6)", "X: Buffer((4, 1, 6)"), "copy"),
            "");
  EXPECT_EQ(Groups(Edit(Edit(kCopy, "X[vi, vj]", "X[vi, vj, vj]"), "X: Buffer((4, 6)", "X: Buffer((4, 6, 6)"), "copy"),
            "");
  // A variable read other than as an index, or in an index expression.
  EXPECT_EQ(Groups(Edit(kCopy, "Y[vi, vj] = X[vi, vj]", "Y[vi, vj] = select(vj > 0, X[vi, vj], 0f32)"), "copy"), "");
  EXPECT_EQ(Groups(Edit(kCopy, "X[vi, vj]", "X[vi, 5 - vj]"), "copy"), "");
  EXPECT_EQ(Groups(Edit(kCopy, "block Y(vi = i, vj = j)", "block Y(vi = i, vj = 5 - j)"), "copy"), "");
  // Other loop kinds; a parallel loop inside a serial one.
  EXPECT_EQ(Groups(Edit(kCopy, "for j in range(6) {", "for j in range(6) unrolled {"), "copy"), "");
  EXPECT_EQ(Groups(Edit(kCopy, "for j in range(6) {", "for j in range(6) parallel {"), "copy"), "");
}

TEST(LoopCollapse, SymbolicExtents) {
  // A symbolic batch: n × 6 iterations, also when n is 0.
  std::string batch = Edit(Edit(Edit(kCopy, "X: Buffer((4, 6)", "X: Buffer((n, 6)"), "Y: Buffer((4, 6)", "Y: Buffer((n, 6)"),
                           "range(4)", "range(n)");
  EXPECT_EQ(Groups(batch, "copy"), "i j");
  for (int64_t n : {0, 1, 3}) ExpectAgree(batch, "copy", {ArgSpec::Tensor({n, 6}, kF32), ArgSpec::Tensor({n, 6}, kF32)});
  // Both symbolic.
  std::string both = Edit(Edit(Edit(batch, "X: Buffer((n, 6)", "X: Buffer((n, m)"), "Y: Buffer((n, 6)", "Y: Buffer((n, m)"),
                          "range(6)", "range(m)");
  EXPECT_EQ(Groups(both, "copy"), "i j");
  for (int64_t m : {0, 5}) ExpectAgree(both, "copy", {ArgSpec::Tensor({3, m}, kF32), ArgSpec::Tensor({3, m}, kF32)});
  // An inner extent that is a scalar, not a dim: it might be negative (n × m > 0 for two
  // negative extents), so the loops stay.
  const char* scalar = R"(
kernel @copy(X: Buffer((n,), float32), m: int64, Y: Buffer((n,), float32)) {
  for i in range(n) {
    for j in range(m) {
      block Y(vi = i, vj = j) {
        Y[vi] = X[vi]
      }
    }
  }
}
)";
  EXPECT_EQ(Groups(scalar, "copy"), "");
}

TEST(LoopCollapse, ReductionsStayAsTheyAre) {
  const char* sum = R"(
kernel @sum(X: Buffer((3, 4, 5), float32), Y: Buffer((3,), float32)) {
  for i in range(3) {
    for j in range(4) {
      for k in range(5) {
        block Y(vi = i, reduce vj = j, reduce vk = k) {
          init {
            Y[vi] = 0f32
          }
          Y[vi] = Y[vi] + X[vi, vj, vk]
        }
      }
    }
  }
}
)";
  EXPECT_EQ(Groups(sum, "sum"), "");
  ExpectAgree(sum, "sum", {ArgSpec::Tensor({3, 4, 5}, kF32), ArgSpec::Tensor({3}, kF32)});
  // The spatial loops around a reduction merge (the merged loop is then interchanged with it)...
  const char* rows = R"(
kernel @rows(X: Buffer((3, 4, 5), float32), Y: Buffer((3, 4), float32)) {
  for i in range(3) {
    for j in range(4) {
      for k in range(5) {
        block Y(vi = i, vj = j, reduce vk = k) {
          init {
            Y[vi, vj] = 0f32
          }
          Y[vi, vj] = Y[vi, vj] + X[vi, vj, vk]
        }
      }
    }
  }
}
)";
  EXPECT_EQ(Groups(rows, "rows"), "i j");
  ExpectAgree(rows, "rows", {ArgSpec::Tensor({3, 4, 5}, kF32), ArgSpec::Tensor({3, 4}, kF32)});
  // ...but not into a parallel loop, which the interchange would not take.
  std::string parallel = Edit(rows, "for i in range(3) {", "for i in range(3) parallel {");
  EXPECT_EQ(Groups(parallel, "rows"), "");
}

TEST(LoopCollapse, AParallelLoopStaysParallel) {
  std::string parallel = Edit(kMomentum, "for i0 in range(4) {", "for i0 in range(4) parallel {");
  EXPECT_EQ(Groups(parallel, "momentum"), "i0 i1 i2 i3 parallel");
  AgreeOptions two_threads;
  two_threads.threads = 2;
  ExpectAgree(parallel, "momentum", MomentumArgs(), two_threads);
  // A written buffer that some access does not index by the parallel loop's variable there:
  // not parallel-safe to merge (ParallelizeLoops would not have marked it).
  const char* shifted = R"(
kernel @shifted(X: Buffer((4, 6), float32), Y: Buffer((4, 6), float32), Z: Buffer((4, 6), float32)) {
  for i in range(4) parallel {
    for j in range(6) {
      block Y(vi = i, vj = j) {
        Y[vi, vj] = X[vi, vj]
        Z[vi, vj] = Y[0, 0]
      }
    }
  }
}
)";
  EXPECT_EQ(Groups(shifted, "shifted"), "");
  // Serial, the same nest merges: Y[0, 0] uses neither variable, every address stays.
  std::string serial = Edit(shifted, " parallel {", " {");
  EXPECT_EQ(Groups(serial, "shifted"), "i j");
  ExpectAgree(serial, "shifted", {ArgSpec::Tensor({4, 6}, kF32), ArgSpec::Tensor({4, 6}, kF32), ArgSpec::Tensor({4, 6}, kF32)});
}

TEST(LoopCollapse, NestsInsideOtherStatements) {
  // A nest under a sequence and an allocation; a second nest beside it.
  const char* two = R"(
kernel @two(X: Buffer((2, 3, 4), float32), Y: Buffer((2, 3, 4), float32)) {
  for i in range(2) {
    for j in range(3) {
      for k in range(4) {
        block T(vi = i, vj = j, vk = k) {
          Y[vi, vj, vk] = X[vi, vj, vk] * 2f32
        }
      }
    }
  }
  for a in range(2) {
    for b in range(3) {
      for c in range(4) {
        block U(va = a, vb = b, vc = c) {
          Y[va, vb, vc] = Y[va, vb, vc] + X[va, 0, vc]
        }
      }
    }
  }
}
)";
  EXPECT_EQ(Groups(two, "two"), "i j k");
  ExpectAgree(two, "two", {ArgSpec::Tensor({2, 3, 4}, kF32), ArgSpec::Tensor({2, 3, 4}, kF32)});
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
