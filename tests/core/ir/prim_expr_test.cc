#include "rxt/ir/prim_expr.h"

#include <gtest/gtest.h>

#include "rxt/ir/kernel.h"

namespace rxt {
namespace {

TEST(PrimExprTest, FoldsIntegerImmediates) {
  int64_t v = 0;
  ASSERT_TRUE(GetConstInt(IntImm(3) * IntImm(4) + IntImm(1), &v));
  EXPECT_EQ(v, 13);
  ASSERT_TRUE(GetConstInt(MakeBinary(BinaryOp::kFloorDiv, IntImm(-7), IntImm(2)), &v));
  EXPECT_EQ(v, -4);  // floor, not truncation
  ASSERT_TRUE(GetConstInt(MakeBinary(BinaryOp::kFloorMod, IntImm(-7), IntImm(2)), &v));
  EXPECT_EQ(v, 1);
}

TEST(PrimExprTest, DivisionByZeroIsNotFolded) {
  PrimExpr e = MakeBinary(BinaryOp::kFloorDiv, IntImm(1), IntImm(0));
  EXPECT_EQ(e->kind, PrimKind::kBinary);
}

TEST(PrimExprTest, IdentitiesKeepSymbolicShapesSimple) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(n * IntImm(1), n);
  EXPECT_EQ(IntImm(0) + n, n);
  int64_t v = -1;
  ASSERT_TRUE(GetConstInt(n * IntImm(0), &v));
  EXPECT_EQ(v, 0);
}

TEST(PrimExprTest, ProvablyEqualComparesStructure) {
  PrimVar n = MakePrimVar("n");
  PrimVar m = MakePrimVar("n");  // same name, different variable
  EXPECT_TRUE(ProvablyEqual(n * IntImm(2), n * IntImm(2)));
  EXPECT_FALSE(ProvablyEqual(n, m));
  EXPECT_FALSE(ProvablyEqual(n * IntImm(2), n * IntImm(3)));
}

TEST(PrimExprTest, RejectsMixedDtypes) {
  EXPECT_THROW(MakeBinary(BinaryOp::kAdd, IntImm(1), FloatImm(1.0)), Error);
  EXPECT_THROW(MakeBinary(BinaryOp::kAnd, IntImm(1), IntImm(1)), Error);
  EXPECT_THROW(MakeSelect(IntImm(1), IntImm(1), IntImm(2)), Error);
}

TEST(PrimExprTest, ComparisonsAreBool) {
  EXPECT_EQ(MakeBinary(BinaryOp::kLt, FloatImm(1.0), FloatImm(2.0))->dtype, DType::kBool);
}

TEST(PrimExprTest, IntrinsicsCheckArity) {
  EXPECT_EQ(MakeIntrinsic("exp", {FloatImm(1.0)})->dtype, DType::kFloat32);
  EXPECT_EQ(MakeIntrinsic("isnan", {FloatImm(1.0)})->dtype, DType::kBool);
  EXPECT_THROW(MakeIntrinsic("exp", {}), Error);
  EXPECT_THROW(MakeIntrinsic("no_such", {FloatImm(1.0)}), Error);
}

TEST(PrimExprTest, LoadsAndStoresCheckIndexCount) {
  Buffer b = MakeBuffer("A", DType::kFloat32, {IntImm(2), IntImm(3)});
  EXPECT_THROW(MakeLoad(b, {IntImm(0)}), Error);
  EXPECT_EQ(MakeLoad(b, {IntImm(0), IntImm(1)})->dtype, DType::kFloat32);
  EXPECT_THROW(MakeStore(b, {IntImm(0), IntImm(1)}, IntImm(1)), Error);  // int into a float buffer
}

}  // namespace
}  // namespace rxt

namespace rxt {
namespace {

TEST(PrimExprTest, OverflowingFoldsAreLeftSymbolic) {
  PrimExpr big = IntImm(int64_t{1} << 40);
  EXPECT_EQ((big * big)->kind, PrimKind::kBinary);
  EXPECT_EQ(MakeBinary(BinaryOp::kFloorDiv, IntImm(INT64_MIN), IntImm(-1))->kind, PrimKind::kBinary);
  int64_t v = 0;
  ASSERT_TRUE(GetConstInt(big * IntImm(2), &v));
  EXPECT_EQ(v, int64_t{1} << 41);
}

}  // namespace
}  // namespace rxt

namespace rxt {
namespace {

TEST(PrimExprTest, FoldsRespectTheDtypeWidth) {
  PrimExpr max32 = IntImm(2147483647, DType::kInt32);
  EXPECT_EQ((max32 + IntImm(1, DType::kInt32))->kind, PrimKind::kBinary);  // would not fit int32
  int64_t v = 0;
  ASSERT_TRUE(GetConstInt(max32 - IntImm(1, DType::kInt32), &v));
  EXPECT_EQ(v, 2147483646);
  EXPECT_EQ((IntImm(200, DType::kUInt8) + IntImm(100, DType::kUInt8))->kind, PrimKind::kBinary);
}

}  // namespace
}  // namespace rxt
