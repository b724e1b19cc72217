#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(CreateOpTest, ZerosAndOnes) {
  PrimVar n = MakePrimVar("n");
  for (const char* op : {"zeros", "ones"}) {
    EXPECT_EQ(Infer(op, {Shape({n, I(2)})}), "Tensor((n, 2), float32)") << op;
    EXPECT_EQ(Infer(op, {StaticShape({3})}, A({{"dtype", i64}})), "Tensor((3,), int64)") << op;
    EXPECT_EQ(Infer(op, {StaticShape({})}), "Tensor((), float32)") << op;
    EXPECT_EQ(Infer(op, {MakeVar("s", ShapeSI(2))}), "Tensor(ndim=2, float32)") << op;
    EXPECT_EQ(InferError(op, {StaticShape({3})}, A({{"dtype", DType::kUnknown}})),
              StrCat(op, ": attribute dtype must be a concrete dtype, got unknown"));
    EXPECT_EQ(InferError(op, {StaticShape({2, -1})}), StrCat(op, ": shape Shape((2, -1)) has a negative dim -1"));
    EXPECT_EQ(InferError(op, {T("x", {2})}),
              StrCat(op, ": shape %x: Tensor((2,), float32) must be a Shape, got a Tensor"));
  }
}

TEST(CreateOpTest, Full) {
  EXPECT_EQ(Infer("full", {StaticShape({2, 3}), T("v", {}, i32)}), "Tensor((2, 3), int32)");
  EXPECT_EQ(Infer("full", {StaticShape({2}), MakePrimValue(FloatImm(0.5))}, A({{"dtype", f16}})),
            "Tensor((2,), float16)");
  EXPECT_EQ(InferError("full", {StaticShape({2}), T("v", {2})}),
            "full: fill_value %v: Tensor((2,), float32) must be a scalar: a 0-d Tensor or a Prim value");
}

TEST(CreateOpTest, Like) {
  PrimVar n = MakePrimVar("n");
  for (const char* op : {"zeros_like", "ones_like"}) {
    EXPECT_EQ(Infer(op, {S("x", {n, I(3)})}), "Tensor((n, 3), float32)") << op;
    EXPECT_EQ(Infer(op, {S("x", {n, I(3)})}, A({{"dtype", i64}})), "Tensor((n, 3), int64)") << op;
    EXPECT_EQ(Infer(op, {N("x", 2, i32)}), "Tensor(ndim=2, int32)") << op;
    EXPECT_EQ(InferError(op, {StaticShape({2})}), StrCat(op, ": x Shape((2,)) must be a Tensor, got a Shape"));
  }
  EXPECT_EQ(Infer("full_like", {T("x", {4}), MakePrimValue(FloatImm(2.0))}), "Tensor((4,), float32)");
  EXPECT_EQ(Infer("full_like", {T("x", {4}), T("v", {}, i64)}, A({{"dtype", boolean}})), "Tensor((4,), bool)");
  EXPECT_EQ(InferError("full_like", {T("x", {4}), Tup({})}),
            "full_like: fill_value Tuple() must be a scalar: a 0-d Tensor or a Prim value");
}

}  // namespace
}  // namespace rxt::op_test
