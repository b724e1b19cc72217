// BindSymbolicVars: a symbolic dim fixed to a number in the signature, the shapes and every
// binding; the errors.
#include <gtest/gtest.h>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

constexpr const char* kModule = R"(
def @main(%x: Tensor((n, 4), float32), %w: Tensor((4, k), float32)) -> Tensor((n * k,), float32) {
  %y: Tensor((n, k), float32) = matmul(%x, %w)
  %z: Tensor((n * k,), float32) = reshape(%y, shape(n * k))
  return %z
}
)";

TEST(BindSymbolicVars, FixesTheDimEverywhere) {
  IRModule out = BindSymbolicVars("main", {{"n", 8}})(ParseModule(kModule));
  IRModule expected = ParseModule(R"(
def @main(%x: Tensor((8, 4), float32), %w: Tensor((4, k), float32)) -> Tensor((8 * k,), float32) {
  %y: Tensor((8, k), float32) = matmul(%x, %w)
  %z: Tensor((8 * k,), float32) = reshape(%y, shape(8 * k))
  return %z
}
)");
  EXPECT_TRUE(StructuralEqual(out, expected)) << PrintModule(out);
  EXPECT_TRUE(CheckWellFormed(out).empty());
}

TEST(BindSymbolicVars, BindingEveryDimMakesShapesStatic) {
  IRModule out = BindSymbolicVars("main", {{"n", 2}, {"k", 3}})(ParseModule(kModule));
  EXPECT_NE(PrintModule(out).find("-> Tensor((6,), float32)"), std::string::npos) << PrintModule(out);
}

TEST(BindSymbolicVars, RefusesUnknownDimsAndNegativeValues) {
  IRModule m = ParseModule(kModule);
  try {
    BindSymbolicVars("main", {{"batch", 8}})(m);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_STREQ(e.what(), "BindSymbolicVars(@main): its parameters have no symbolic dim batch (they have: k, n)");
  }
  EXPECT_THROW(BindSymbolicVars("main", {{"n", -1}})(m), Error);
  EXPECT_THROW(BindSymbolicVars("nope", {{"n", 1}})(m), Error);
}

}  // namespace
}  // namespace rxt
