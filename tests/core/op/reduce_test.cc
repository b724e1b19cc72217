#include "op_test_util.h"

namespace rxt::op_test {
namespace {

const char* const kReductions[] = {"sum", "mean", "max", "min", "prod", "variance"};

TEST(ReduceOpTest, AxesAndKeepdims) {
  for (const char* op : kReductions) {
    EXPECT_EQ(Infer(op, {T("x", {2, 3, 4})}), "Tensor((), float32)") << op;
    EXPECT_EQ(Infer(op, {T("x", {2, 3, 4})}, A({{"axis", Ints({1})}})), "Tensor((2, 4), float32)") << op;
    EXPECT_EQ(Infer(op, {T("x", {2, 3, 4})}, A({{"axis", Ints({-1, 0})}, {"keepdims", true}})),
              "Tensor((1, 3, 1), float32)")
        << op;
    EXPECT_EQ(Infer(op, {T("x", {2, 3, 4})}, A({{"keepdims", true}})), "Tensor((1, 1, 1), float32)") << op;
    EXPECT_EQ(Infer(op, {T("x", {2, 3, 4})}, A({{"axis", Ints({})}})), "Tensor((2, 3, 4), float32)") << op;
  }
}

TEST(ReduceOpTest, SymbolicAndUnknown) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("sum", {S("x", {n, I(4)})}, A({{"axis", Ints({1})}})), "Tensor((n,), float32)");
  EXPECT_EQ(Infer("mean", {S("x", {n, I(4)}, f16)}, A({{"axis", Ints({0})}, {"keepdims", true}})),
            "Tensor((1, 4), float16)");
  EXPECT_EQ(Infer("max", {N("x", -1)}), "Tensor((), float32)");
  EXPECT_EQ(Infer("max", {N("x", -1)}, A({{"axis", Ints({0})}})), "Tensor(float32)");
  EXPECT_EQ(Infer("min", {N("x", 3)}, A({{"axis", Ints({0})}})), "Tensor(ndim=2, float32)");
  EXPECT_EQ(Infer("sum", {T("x", {2, 3}, i32)}, A({{"axis", Ints({0})}})), "Tensor((3,), int32)");
}

TEST(ReduceOpTest, RejectsBadAxes) {
  for (const char* op : kReductions) {
    EXPECT_EQ(InferError(op, {T("x", {2, 3})}, A({{"axis", Ints({2})}})),
              StrCat(op, ": axis 2 is out of range [-2, 2) for x %x: Tensor((2, 3), float32)"));
    EXPECT_EQ(InferError(op, {T("x", {2, 3})}, A({{"axis", Ints({0, -2})}})),
              StrCat(op, ": axis -2 repeats in axes [0, -2] for x %x: Tensor((2, 3), float32)"));
  }
  EXPECT_NE(InferError("sum", {T("x", {2})}, A({{"axis", "0"}})).find("sum: attribute 'axis' must be int list or none"),
            std::string::npos);
}

TEST(ArgmaxOpTest, GivesInt64) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("argmax", {T("x", {2, 3})}), "Tensor((), int64)");
  EXPECT_EQ(Infer("argmax", {T("x", {2, 3})}, A({{"axis", 1}})), "Tensor((2,), int64)");
  EXPECT_EQ(Infer("argmax", {S("x", {n, I(3)})}, A({{"axis", -1}, {"keepdims", true}})), "Tensor((n, 1), int64)");
  EXPECT_EQ(InferError("argmax", {T("x", {2, 3})}, A({{"axis", 2}})),
            "argmax: axis 2 is out of range [-2, 2) for x %x: Tensor((2, 3), float32)");
}

TEST(CumsumOpTest, KeepsShapeAndDtype) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("cumsum", {S("x", {n, I(3)})}), "Tensor((n, 3), float32)");
  EXPECT_EQ(Infer("cumsum", {T("x", {2, 3}, i32)}, A({{"axis", -1}, {"exclusive", true}, {"reverse", true}})),
            "Tensor((2, 3), int32)");
  EXPECT_EQ(Infer("cumsum", {N("x", -1)}), "Tensor(float32)");
  EXPECT_EQ(InferError("cumsum", {T("x", {2, 3})}, A({{"axis", 2}})),
            "cumsum: axis 2 is out of range [-2, 2) for x %x: Tensor((2, 3), float32)");
  EXPECT_EQ(InferError("cumsum", {T("x", {})}), "cumsum: x %x: Tensor((), float32) must have at least one dim");
  EXPECT_EQ(InferError("cumsum", {T("x", {2}, boolean)}),
            "cumsum: x %x: Tensor((2,), bool) must have a numeric dtype, got bool");
}

TEST(SoftmaxOpTest, KeepsShape) {
  PrimVar n = MakePrimVar("n");
  for (const char* op : {"softmax", "log_softmax"}) {
    EXPECT_EQ(Infer(op, {S("x", {n, I(10)})}), "Tensor((n, 10), float32)") << op;
    EXPECT_EQ(Infer(op, {T("x", {2, 10})}, A({{"axis", 0}})), "Tensor((2, 10), float32)") << op;
    EXPECT_EQ(Infer(op, {N("x", -1)}), "Tensor(float32)") << op;
    EXPECT_EQ(InferError(op, {T("x", {2, 10}, i32)}),
              StrCat(op, ": x %x: Tensor((2, 10), int32) must have a floating-point dtype, got int32"));
    EXPECT_EQ(InferError(op, {T("x", {2, 10})}, A({{"axis", 2}})),
              StrCat(op, ": axis 2 is out of range [-2, 2) for x %x: Tensor((2, 10), float32)"));
    EXPECT_EQ(InferError(op, {T("x", {})}), StrCat(op, ": x %x: Tensor((), float32) must have at least one dim"));
  }
}

}  // namespace
}  // namespace rxt::op_test
