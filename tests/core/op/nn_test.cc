#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(NNActivationOpTest, KeepStructInfo) {
  PrimVar n = MakePrimVar("n");
  for (const char* op : {"nn.relu", "nn.gelu", "nn.silu"}) {
    EXPECT_EQ(Infer(op, {S("x", {n, I(128)})}), "Tensor((n, 128), float32)") << op;
    EXPECT_EQ(Infer(op, {N("x", -1, f16)}), "Tensor(float16)") << op;
  }
  EXPECT_EQ(Infer("nn.relu", {T("x", {4}, i32)}), "Tensor((4,), int32)");
  EXPECT_EQ(InferError("nn.gelu", {T("x", {4}, i32)}),
            "nn.gelu: x %x: Tensor((4,), int32) must have a floating-point dtype, got int32");
  EXPECT_EQ(InferError("nn.silu", {T("x", {4}, i64)}),
            "nn.silu: x %x: Tensor((4,), int64) must have a floating-point dtype, got int64");
  EXPECT_EQ(InferError("nn.relu", {Tup({})}), "nn.relu: x Tuple() must be a Tensor, got a Tuple");
}

TEST(NNDropoutOpTest, ReturnsOutputAndMask) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("nn.dropout", {S("x", {n, I(8)})}), "Tuple(Tensor((n, 8), float32), Tensor((n, 8), float32))");
  EXPECT_EQ(Infer("nn.dropout", {T("x", {2})}, A({{"rate", 0.0}})),
            "Tuple(Tensor((2,), float32), Tensor((2,), float32))");
  EXPECT_EQ(InferError("nn.dropout", {T("x", {2})}, A({{"rate", 1.0}})),
            "nn.dropout: attribute rate must be in [0, 1), got 1");
  EXPECT_NE(InferError("nn.dropout", {T("x", {2}, i32)}).find("must have a floating-point dtype"), std::string::npos);
}

TEST(NNDropoutOpTest, TakesAnOptionalIntegerScalarSeed) {
  EXPECT_EQ(Infer("nn.dropout", {T("x", {2}), T("seed", {}, i64)}),
            "Tuple(Tensor((2,), float32), Tensor((2,), float32))");
  EXPECT_NE(InferError("nn.dropout", {T("x", {2}), T("seed", {}, f32)}).find("integer"), std::string::npos);
  EXPECT_NE(InferError("nn.dropout", {T("x", {2}), T("seed", {2}, i64)}).find("must be a 0-d tensor"),
            std::string::npos);
}

}  // namespace
}  // namespace rxt::op_test
