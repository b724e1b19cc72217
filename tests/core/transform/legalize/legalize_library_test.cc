// LegalizeLibraryCalls' engine with libraries written in C++ (a LibraryProvider of the test's
// own, no plugin): which libraries a build names, and rewrites that break their contract. The
// cases with plugins are in tests/data/passes/LegalizeLibraryCalls/ (engine_*: a fixture
// library in C; the others: the dnnl library).
#include <gtest/gtest.h>

#include "rxt/ir/equality.h"
#include "rxt/ir/op.h"
#include "rxt/ir/parser.h"
#include "rxt/transform/legalize/library_patterns.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

class TestLibraries : public LibraryProvider {
 public:
  std::vector<KernelLibrary> Libraries() const override { return libraries; }
  std::vector<KernelLibrary> libraries;
};

/// A library "lib" with one pattern at matmul whose rewrite is |rewrite|.
TestLibraries OnePattern(std::function<LibraryRewrite(const LibraryMatch&, BlockBuilder&)> rewrite) {
  TestLibraries provider;
  provider.libraries.push_back({"lib", "library 'lib'", {{"lib.mm", "matmul", {"nn.relu"}, {}, {}, rewrite}}});
  return provider;
}

const char* kMatmulRelu = R"(
def @main(%x: Tensor((4, 8), float32), %w: Tensor((8, 3), float32)) -> Tensor((4, 3), float32) {
  dataflow {
    %y: Tensor((4, 3), float32) = matmul(%x, %w)
    %r: Tensor((4, 3), float32) = nn.relu(%y)
    output %r
  }
  return %r
}
)";

IRModule Lower(const LibraryProvider& provider, const std::string& libraries, const char* text = kMatmulRelu) {
  PassContext context;
  context.verify_well_formed_after_each = true;
  if (!libraries.empty()) context.options["LegalizeLibraryCalls.libraries"] = AttrValue(libraries);
  return LegalizeLibraryCalls(&provider)(ParseModule(text), context);
}

std::string ErrorOf(const LibraryProvider& provider, const std::string& libraries) {
  try {
    Lower(provider, libraries);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

/// call_extern("lib.mm", args) like |like|, bound in the builder's block.
Var Emit(BlockBuilder& builder, std::vector<Expr> args, const StructInfo& like) {
  return builder.Emit(MakeOpCall("call_extern", {MakeStringImm("lib.mm"), MakeTuple(std::move(args))}, {}, {like}));
}

TEST(LegalizeLibraryCalls, ARewriteReplacesTheCallsItComputes) {
  TestLibraries provider = OnePattern([](const LibraryMatch& m, BlockBuilder& builder) {
    const auto* matmul = m.calls[0].call->As<CallNode>();
    return LibraryRewrite{m.calls.size(), -1, Emit(builder, matmul->args, m.calls.back().result->struct_info)};
  });
  IRModule expected = ParseModule(R"(
def @main(%x: Tensor((4, 8), float32), %w: Tensor((8, 3), float32)) -> Tensor((4, 3), float32) {
  dataflow {
    %r: Tensor((4, 3), float32) = call_extern("lib.mm", (%x, %w), out_sinfo=Tensor((4, 3), float32))
    output %r
  }
  return %r
}
)");
  EXPECT_TRUE(StructuralEqual(Lower(provider, "lib"), expected));
  // Without the option, or for a library not named, nothing changes.
  EXPECT_TRUE(StructuralEqual(Lower(provider, ""), ParseModule(kMatmulRelu)));
}

TEST(LegalizeLibraryCalls, AnUnknownLibraryIsAnErrorNamingTheKnownOnes) {
  TestLibraries provider = OnePattern([](const LibraryMatch&, BlockBuilder&) { return LibraryRewrite{}; });
  EXPECT_EQ(ErrorOf(provider, "mkl"), "LegalizeLibraryCalls: unknown library 'mkl' (known: lib)");
  EXPECT_EQ(ErrorOf(TestLibraries(), "lib"),
            "LegalizeLibraryCalls: unknown library 'lib' (known: none; a plugin provides them)");
}

TEST(LegalizeLibraryCalls, ARewriteThatBreaksItsContractIsAnError) {
  // A replacement of another type than the result it replaces.
  TestLibraries misfit = OnePattern([](const LibraryMatch& m, BlockBuilder& builder) {
    const auto* matmul = m.calls[0].call->As<CallNode>();
    return LibraryRewrite{1, -1, Emit(builder, matmul->args, TensorSI(std::vector<int64_t>{2, 3}, DType::kFloat32))};
  });
  EXPECT_EQ(ErrorOf(misfit, "lib"),
            "library 'lib': pattern 'lib.mm': the replacement is Tensor((2, 3), float32) but replaces Tensor((4, 3), "
            "float32)");
  // More calls, or a sibling, than the match has.
  TestLibraries too_many = OnePattern([](const LibraryMatch& m, BlockBuilder& builder) {
    const auto* matmul = m.calls[0].call->As<CallNode>();
    return LibraryRewrite{3, -1, Emit(builder, matmul->args, m.calls[0].result->struct_info)};
  });
  EXPECT_EQ(ErrorOf(too_many, "lib"),
            "library 'lib': pattern 'lib.mm': the rewrite computes 3 calls of 2 and sibling -1 of 0");
}

}  // namespace
}  // namespace rxt
