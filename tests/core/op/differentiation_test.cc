#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(GradientOfOpTest, ResultIsShapedLikeWrt) {
  PrimVar n = MakePrimVar("n");
  Expr y = S("y", {n, I(2)});
  EXPECT_EQ(Infer("gradient_of", {y, Tup({T("w", {3, 2}), S("h", {n, I(2)})})}),
            "Tuple(Tensor((3, 2), float32), Tensor((n, 2), float32))");
  EXPECT_EQ(Infer("gradient_of", {T("loss", {}), Tup({T("w", {4}, f16)})}), "Tuple(Tensor((4,), float16))");
}

TEST(GradientOfOpTest, RejectsBadCalls) {
  EXPECT_EQ(InferError("gradient_of", {T("y", {2}, i64), Tup({T("w", {2})})}),
            "gradient_of: y %y: Tensor((2,), int64) must be a float tensor (the value differentiated)");
  EXPECT_EQ(InferError("gradient_of", {T("y", {2}), Tup({})}), "gradient_of: argument wrt must name at least one tensor");
  EXPECT_EQ(InferError("gradient_of", {T("y", {2}), Tup({T("w", {2}), T("k", {2}, i32)})}),
            "gradient_of: field 1 (Tensor((2,), int32)) of argument wrt must be a float tensor");
  EXPECT_EQ(InferError("gradient_of", {T("y", {2}), T("w", {2})}),
            "gradient_of: wrt %w: Tensor((2,), float32) must be a Tuple, got a Tensor");
}

}  // namespace
}  // namespace rxt::op_test
