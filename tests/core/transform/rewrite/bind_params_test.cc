// BindParams through its C++ API (the data cases in tests/data/passes/BindParams go by name).
#include <gtest/gtest.h>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

constexpr const char* kModule = R"(
def @main(%x: Tensor((n, 2), float32), %w: Tensor((2, k), float32)) -> Tensor((n, k), float32) {
  %y: Tensor((n, k), float32) = matmul(%x, %w)
  return %y
}
)";

Tensor Weights() { return Tensor::FromVector<float>({2, 3}, DType::kFloat32, {1, 2, 3, 4, 5, 6}); }

TEST(BindParams, ReplacesTheParameterAndFixesItsDims) {
  IRModule m = ParseModule(kModule);
  IRModule out = BindParams("main", {{"w", Weights()}})(m);
  IRModule expected = ParseModule(R"(
def @main(%x: Tensor((n, 2), float32)) -> Tensor((n, 3), float32) {
  %y: Tensor((n, 3), float32) = matmul(%x, const([[1, 2, 3], [4, 5, 6]], float32))
  return %y
}
)");
  EXPECT_TRUE(StructuralEqual(out, expected)) << PrintModule(out);
  EXPECT_TRUE(CheckWellFormed(out).empty());
  EXPECT_EQ(m.GetFunction("main")->params.size(), 2u);  // the input module is untouched
}

TEST(BindParams, TheConstantHoldsTheTensorsBytes) {
  IRModule out = BindParams("main", {{"w", Weights()}})(ParseModule(kModule));
  const Expr& value = out.GetFunction("main")->body->blocks[0].bindings[0].value;
  const auto* constant = value->As<CallNode>()->args[1]->As<ConstantNode>();
  ASSERT_NE(constant, nullptr);
  EXPECT_TRUE(constant->data.BitwiseEqual(Weights()));
}

void ExpectError(const IRModule& m, const std::string& func, std::map<std::string, Tensor> params, ErrorCode code,
                 const std::string& needle) {
  try {
    BindParams(func, std::move(params))(m);
    FAIL() << "expected an error containing: " << needle;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(BindParams, RefusesWhatDoesNotFit) {
  IRModule m = ParseModule(kModule);
  ExpectError(m, "predict", {{"w", Weights()}}, ErrorCode::kNotFound, "predict");
  ExpectError(m, "main", {{"w", Tensor::FromVector<double>({2, 3}, DType::kFloat64, {1, 2, 3, 4, 5, 6})}},
              ErrorCode::kInvalidArgument,
              "parameter w is Tensor((2, k), float32) but the tensor is Tensor((2, 3), float64)");
  ExpectError(m, "main", {{"w", Tensor::FromVector<float>({3, 2}, DType::kFloat32, {1, 2, 3, 4, 5, 6})}},
              ErrorCode::kInvalidArgument, "but the tensor is Tensor((3, 2), float32)");
  ExpectError(m, "main", {{"w", Tensor()}}, ErrorCode::kInvalidArgument, "the tensor for w is undefined");
}

}  // namespace
}  // namespace rxt
