#include "op_test_util.h"

namespace rxt::op_test {
namespace {

std::vector<Expr> BatchNormArgs(Expr data, const std::vector<int64_t>& params, DType dtype = f32) {
  return {std::move(data), T("g", params, dtype), T("b", params, dtype), T("m", params, dtype), T("v", params, dtype)};
}

TEST(BatchNormOpTest, ReturnsOutputAndStatistics) {
  EXPECT_EQ(Infer("nn.batch_norm", BatchNormArgs(T("x", {2, 3, 4, 4}), {3})),
            "Tuple(Tensor((2, 3, 4, 4), float32), Tensor((3,), float32), Tensor((3,), float32))");
  EXPECT_EQ(Infer("nn.batch_norm", BatchNormArgs(T("x", {2, 4, 4, 3}), {3}), A({{"axis", -1}, {"training", false}})),
            "Tuple(Tensor((2, 4, 4, 3), float32), Tensor((3,), float32), Tensor((3,), float32))");
  PrimVar n = MakePrimVar("n"), c = MakePrimVar("c");
  std::vector<Expr> args = {S("x", {n, c, I(8)}), S("g", {c}), S("b", {c}), S("m", {c}), S("v", {c})};
  EXPECT_EQ(Infer("nn.batch_norm", args),
            "Tuple(Tensor((n, c, 8), float32), Tensor((c,), float32), Tensor((c,), float32))");
  EXPECT_EQ(Infer("nn.batch_norm", BatchNormArgs(N("x", 4), {3})),
            "Tuple(Tensor(ndim=4, float32), Tensor((3,), float32), Tensor((3,), float32))");
}

TEST(BatchNormOpTest, RejectsBadCalls) {
  EXPECT_EQ(InferError("nn.batch_norm", BatchNormArgs(T("x", {2, 3, 4, 4}), {4})),
            "nn.batch_norm: gamma %g: Tensor((4,), float32) has 4 at dim 0 but data %x: Tensor((2, 3, 4, 4), float32) "
            "has 3 (one value per channel)");
  EXPECT_EQ(InferError("nn.batch_norm", BatchNormArgs(T("x", {2, 3}), {1, 3})),
            "nn.batch_norm: gamma %g: Tensor((1, 3), float32) must have ndim 1 (one value per channel)");
  EXPECT_NE(InferError("nn.batch_norm", BatchNormArgs(T("x", {2, 3}), {3}, f16)).find("nn.batch_norm: dtype mismatch"),
            std::string::npos);
  EXPECT_EQ(InferError("nn.batch_norm", BatchNormArgs(T("x", {2, 3}), {3}), A({{"momentum", 2.0}})),
            "nn.batch_norm: attribute momentum must be in [0, 1], got 2");
  EXPECT_NE(
      InferError("nn.batch_norm", BatchNormArgs(T("x", {2, 3}), {3}), A({{"axis", 2}})).find("axis 2 is out of range"),
      std::string::npos);
  EXPECT_NE(InferError("nn.batch_norm", {T("x", {2, 3}), T("g", {3})}).find("expects 5 argument(s)"),
            std::string::npos);
}

TEST(LayerNormOpTest, Normalizes) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("nn.layer_norm", {S("x", {n, I(5), I(8)}), T("g", {8}), T("b", {8})}, A({{"axes", Ints({-1})}})),
            "Tensor((n, 5, 8), float32)");
  EXPECT_EQ(Infer("nn.layer_norm", {T("x", {2, 5, 8}), T("g", {5, 8}), T("b", {5, 8})},
                  A({{"axes", Ints({1, 2})}, {"epsilon", 1e-6}})),
            "Tensor((2, 5, 8), float32)");
  EXPECT_EQ(Infer("nn.layer_norm", {N("x", -1), T("g", {8}), T("b", {8})}, A({{"axes", Ints({-1})}})),
            "Tensor(float32)");
}

TEST(LayerNormOpTest, RejectsBadCalls) {
  EXPECT_EQ(InferError("nn.layer_norm", {T("x", {2, 8}), T("g", {7}), T("b", {8})}, A({{"axes", Ints({-1})}})),
            "nn.layer_norm: gamma %g: Tensor((7,), float32) has 7 at dim 0 but data %x: Tensor((2, 8), float32) has 8 "
            "(the normalized dims)");
  EXPECT_EQ(InferError("nn.layer_norm", {T("x", {2, 8}), T("g", {2, 8}), T("b", {8})}, A({{"axes", Ints({-1})}})),
            "nn.layer_norm: gamma %g: Tensor((2, 8), float32) must have ndim 1 (the normalized dims)");
  EXPECT_NE(InferError("nn.layer_norm", {T("x", {2, 8}), T("g", {8}), T("b", {8})}, A({{"axes", Ints({2})}}))
                .find("axis 2 is out of range [-2, 2)"),
            std::string::npos);
  EXPECT_NE(
      InferError("nn.layer_norm", {T("x", {2, 8}), T("g", {8}), T("b", {8})}).find("missing required attribute 'axes'"),
      std::string::npos);
  EXPECT_EQ(InferError("nn.layer_norm", {T("x", {2, 8}), T("g", {8}), T("b", {8})},
                       A({{"axes", Ints({-1})}, {"epsilon", -1.0}})),
            "nn.layer_norm: attribute epsilon must not be negative, got -1");
}

}  // namespace
}  // namespace rxt::op_test
