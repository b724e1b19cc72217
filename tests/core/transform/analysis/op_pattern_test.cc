// Op pattern kinds: derived from the loop nests of legalized kernels, recorded in their
// attributes, kept by the text format.
#include "rxt/transform/analysis/op_pattern.h"

#include <gtest/gtest.h>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

/// The kind recorded on the one kernel that legalizing `%r = <call>` gives.
std::string KindOf(const std::string& params, const std::string& call) {
  IRModule module = ParseModule("def @main(" + params + ") -> Object {\n  %r = " + call + "\n  return %r\n}\n");
  IRModule legal = RunPasses(module, {"LegalizeOps"});
  KernelFunction kernel;
  for (const IRModule::Entry& entry : legal.entries()) {
    if (entry.kernel) kernel = entry.kernel;
  }
  if (kernel == nullptr) return "(no kernel)";
  EXPECT_EQ(GetOpPattern(*kernel), AnalyzeOpPattern(*kernel)) << "the attribute matches the analysis";
  return OpPatternName(GetOpPattern(*kernel));
}

TEST(OpPattern, LegalizedKernelsRecordTheirKind) {
  const std::string x = "%x: Tensor((n, 4), float32)";
  EXPECT_EQ(KindOf(x, "nn.relu(%x)"), "elementwise");
  EXPECT_EQ(KindOf(x + ", %y: Tensor((n, 4), float32)", "add(%x, %y)"), "elementwise");
  EXPECT_EQ(KindOf(x + ", %b: Tensor((4,), float32)", "add(%x, %b)"), "broadcast");
  EXPECT_EQ(KindOf(x + ", %c: Tensor((n, 1), float32)", "multiply(%x, %c)"), "broadcast");  // reads c[i, 0]
  EXPECT_EQ(KindOf(x, "permute_dims(%x, axes=[1, 0])"), "injective");
  EXPECT_EQ(KindOf(x, "strided_slice(%x, axes=[1], begin=[1], end=[3])"), "injective");
  EXPECT_EQ(KindOf(x, "sum(%x, axis=[1])"), "comm_reduce");
  EXPECT_EQ(KindOf(x, "max(%x, axis=[0])"), "comm_reduce");
  EXPECT_EQ(KindOf(x + ", %w: Tensor((4, 8), float32)", "matmul(%x, %w)"), "out_ewise_fusable");
  EXPECT_EQ(KindOf("%d: Tensor((1, 2, 5, 5), float32), %k: Tensor((3, 2, 3, 3), float32)", "nn.conv2d(%d, %k)"),
            "out_ewise_fusable");
  // Padding is a spatial stage into a local buffer before the reduction: still fusable after.
  EXPECT_EQ(KindOf("%d: Tensor((1, 2, 5, 5), float32), %k: Tensor((3, 2, 3, 3), float32)",
                   "nn.conv2d(%d, %k, padding=[1, 1, 1, 1])"),
            "out_ewise_fusable");
  EXPECT_EQ(KindOf(x, "softmax(%x, axis=1)"), "opaque");  // two reductions, then more work
  EXPECT_EQ(KindOf(x, "variance(%x, axis=[1])"), "opaque");
  // One (wide) sum, then elementwise stages (round it, divide by the count): still a reduction.
  EXPECT_EQ(KindOf(x, "mean(%x, axis=[1])"), "comm_reduce");
}

TEST(OpPattern, HandWrittenKernelsAreAnalyzed) {
  IRModule m = ParseModule(R"(
kernel @store_outside_block(X: Buffer((3,), float32), Y: Buffer((3,), float32)) {
  for i in range(3) {
    Y[i] = X[i]
  }
}

kernel @reads_its_output(X: Buffer((3,), float32), Y: Buffer((3,), float32)) {
  for i in range(3) {
    block y(vi = i) {
      Y[vi] = X[vi] + Y[vi]
    }
  }
}

kernel @reversed(X: Buffer((3,), float32), Y: Buffer((3,), float32)) {
  for i in range(3) {
    block y(vi = i) {
      Y[vi] = X[2 - vi]
    }
  }
}

kernel @sum_of_squares(X: Buffer((3, 4), float32), Y: Buffer((3,), float32)) {
  for i in range(3) {
    for k in range(4) {
      block y(vi = i, reduce vk = k) {
        init {
          Y[vi] = 0f32
        }
        Y[vi] = Y[vi] + X[vi, vk] * X[vi, vk]
      }
    }
  }
}
)");
  EXPECT_EQ(AnalyzeOpPattern(*m.GetKernel("store_outside_block")), OpPatternKind::kOpaque);
  EXPECT_EQ(AnalyzeOpPattern(*m.GetKernel("reads_its_output")), OpPatternKind::kOpaque);
  EXPECT_EQ(AnalyzeOpPattern(*m.GetKernel("reversed")), OpPatternKind::kInjective);
  // A multiply-accumulate of two loads: matmul-like, even of one input.
  EXPECT_EQ(AnalyzeOpPattern(*m.GetKernel("sum_of_squares")), OpPatternKind::kOutEWiseFusable);
  // Without the attribute a kernel counts as opaque for fusion.
  EXPECT_EQ(GetOpPattern(*m.GetKernel("reversed")), OpPatternKind::kOpaque);
  EXPECT_EQ(GetOpPattern(*WithOpPattern(m.GetKernel("reversed"))), OpPatternKind::kInjective);
}

TEST(OpPattern, TheAttributeRoundTrips) {
  IRModule legal = RunPasses(ParseModule(R"(
def @main(%x: Tensor((2, 3), float32), %b: Tensor((3,), float32)) -> Tensor((2, 3), float32) {
  %r = add(%x, %b)
  return %r
})"),
                             {"LegalizeOps"});
  std::string text = PrintModule(legal);
  EXPECT_NE(text.find("attributes {op_pattern = \"broadcast\"}"), std::string::npos) << text;
  IRModule reparsed = ParseModule(text);
  EXPECT_TRUE(StructuralEqual(reparsed, legal));
  EXPECT_EQ(GetOpPattern(*reparsed.GetKernel("add")), OpPatternKind::kBroadcast);
}

TEST(OpPattern, NamesAndOrder) {
  for (OpPatternKind kind : {OpPatternKind::kElementwise, OpPatternKind::kBroadcast, OpPatternKind::kInjective,
                             OpPatternKind::kCommReduce, OpPatternKind::kOutEWiseFusable, OpPatternKind::kOpaque}) {
    EXPECT_EQ(OpPatternFromName(OpPatternName(kind)), kind);
  }
  EXPECT_EQ(OpPatternFromName("fancy"), OpPatternKind::kOpaque);
  EXPECT_LT(OpPatternKind::kBroadcast, OpPatternKind::kInjective);  // fusion compares kinds
}

}  // namespace
}  // namespace rxt
