#include "op_test_util.h"

namespace rxt::op_test {
namespace {

const char* const kFloatUnary[] = {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf"};
const char* const kArithmetic[] = {"add", "subtract", "multiply", "divide", "power", "maximum", "minimum"};
const char* const kComparisons[] = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"};

TEST(ElementwiseOpTest, UnaryKeepsStructInfo) {
  PrimVar n = MakePrimVar("n");
  for (const char* op : kFloatUnary) {
    EXPECT_EQ(Infer(op, {T("x", {2, 3})}), "Tensor((2, 3), float32)") << op;
    EXPECT_EQ(Infer(op, {S("x", {n, I(4)}, f16)}), "Tensor((n, 4), float16)") << op;
    EXPECT_EQ(Infer(op, {N("x", -1)}), "Tensor(float32)") << op;
  }
  EXPECT_EQ(Infer("negative", {T("x", {5}, i32)}), "Tensor((5,), int32)");
  EXPECT_EQ(Infer("abs", {S("x", {n}, i64)}), "Tensor((n,), int64)");
}

TEST(ElementwiseOpTest, FloatMathRejectsIntegers) {
  for (const char* op : kFloatUnary) {
    EXPECT_EQ(InferError(op, {T("x", {2, 3}, i32)}),
              StrCat(op, ": x %x: Tensor((2, 3), int32) must have a floating-point dtype, got int32"));
  }
}

TEST(ElementwiseOpTest, UnaryRejectsNonTensors) {
  EXPECT_EQ(InferError("negative", {Tup({T("a", {2})})}),
            "negative: x Tuple(Tensor((2,), float32)) must be a Tensor, got a Tuple");
  EXPECT_EQ(InferError("abs", {StaticShape({2})}), "abs: x Shape((2,)) must be a Tensor, got a Shape");
}

TEST(ElementwiseOpTest, ArithmeticBroadcasts) {
  for (const char* op : kArithmetic) {
    EXPECT_EQ(Infer(op, {T("x", {2, 1, 3}), T("y", {4, 3})}), "Tensor((2, 4, 3), float32)") << op;
    EXPECT_EQ(Infer(op, {T("x", {}), T("y", {4, 3})}), "Tensor((4, 3), float32)") << op;
  }
}

TEST(ElementwiseOpTest, ArithmeticWithSymbolicDims) {
  PrimVar n = MakePrimVar("n"), m = MakePrimVar("m");
  EXPECT_EQ(Infer("add", {S("x", {n, I(3)}), T("y", {1, 3})}), "Tensor((n, 3), float32)");
  EXPECT_EQ(Infer("add", {S("x", {n * I(2), I(1)}), S("y", {n * I(2), I(5)})}), "Tensor((n * 2, 5), float32)");
  EXPECT_EQ(Infer("multiply", {S("x", {n}), S("y", {m, I(1)})}), "Tensor((m, n), float32)");
  // n against m, or n against 4, cannot be related: known ndim, unknown shape.
  EXPECT_EQ(Infer("add", {S("x", {n, I(3)}), S("y", {m, I(3)})}), "Tensor(ndim=2, float32)");
  EXPECT_EQ(Infer("add", {S("x", {n, I(3)}), T("y", {4, 3})}), "Tensor(ndim=2, float32)");
  // Less known inputs give less known results.
  EXPECT_EQ(Infer("add", {N("x", 3), T("y", {4})}), "Tensor(ndim=3, float32)");
  EXPECT_EQ(Infer("add", {N("x", -1), T("y", {4})}), "Tensor(float32)");
  EXPECT_EQ(Infer("add", {N("x", 2, DType::kUnknown), T("y", {4})}), "Tensor(ndim=2, float32)");
}

TEST(ElementwiseOpTest, ArithmeticRejectsBadCalls) {
  EXPECT_EQ(InferError("add", {T("x", {2, 3}), T("y", {4})}),
            "add: incompatible shapes for broadcasting: x1 %x: Tensor((2, 3), float32) has 3 and "
            "x2 %y: Tensor((4,), float32) has 4 at axis -1");
  EXPECT_EQ(InferError("subtract", {T("x", {2, 3}), T("y", {2, 3}, i32)}),
            "subtract: dtype mismatch: x1 %x: Tensor((2, 3), float32) and x2 %y: Tensor((2, 3), int32) must have "
            "the same dtype");
  // A provable mismatch is found even when another axis cannot be related.
  PrimVar n = MakePrimVar("n"), m = MakePrimVar("m");
  EXPECT_NE(InferError("multiply", {S("x", {n, I(3)}), S("y", {m, I(4)})}).find("has 3 and"), std::string::npos);
  EXPECT_NE(InferError("add", {T("x", {2}), MakePrimValue(IntImm(1))}).find("must be a Tensor, got a Prim value"),
            std::string::npos);
  EXPECT_NE(InferError("add", {T("x", {2})}).find("add: expects 2 argument(s)"), std::string::npos);
}

TEST(ElementwiseOpTest, ComparisonsGiveBool) {
  PrimVar n = MakePrimVar("n");
  for (const char* op : kComparisons) {
    EXPECT_EQ(Infer(op, {S("x", {n, I(3)}), T("y", {3})}), "Tensor((n, 3), bool)") << op;
    EXPECT_EQ(Infer(op, {T("x", {2}, i64), T("y", {2, 1}, i64)}), "Tensor((2, 2), bool)") << op;
    EXPECT_NE(InferError(op, {T("x", {2}, i64), T("y", {2})}).find(StrCat(op, ": dtype mismatch")), std::string::npos);
  }
}

TEST(ElementwiseOpTest, Where) {
  EXPECT_EQ(Infer("where", {T("c", {2, 1}, boolean), T("x", {1, 3}), T("y", {3})}), "Tensor((2, 3), float32)");
  EXPECT_EQ(InferError("where", {T("c", {2}, i32), T("x", {2}), T("y", {2})}),
            "where: condition %c: Tensor((2,), int32) must have dtype bool, got int32");
  EXPECT_NE(InferError("where", {T("c", {2}, boolean), T("x", {2}), T("y", {2}, i64)}).find("where: dtype mismatch"),
            std::string::npos);
  EXPECT_NE(InferError("where", {T("c", {3}, boolean), T("x", {2}), T("y", {2})}).find("incompatible shapes"),
            std::string::npos);
}

TEST(ElementwiseOpTest, Astype) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("astype", {S("x", {n, I(2)})}, A({{"dtype", DType::kFloat16}})), "Tensor((n, 2), float16)");
  EXPECT_EQ(Infer("astype", {N("x", 3)}, A({{"dtype", i32}})), "Tensor(ndim=3, int32)");
  EXPECT_NE(InferError("astype", {T("x", {2})}).find("astype: missing required attribute 'dtype'"), std::string::npos);
  EXPECT_EQ(InferError("astype", {T("x", {2})}, A({{"dtype", DType::kUnknown}})),
            "astype: attribute dtype must be a concrete dtype, got unknown");
}

TEST(ElementwiseOpTest, Clip) {
  EXPECT_EQ(Infer("clip", {T("x", {2, 3})}, A({{"min", 0.0}, {"max", 6.0}})), "Tensor((2, 3), float32)");
  EXPECT_EQ(Infer("clip", {T("x", {2}, i32)}, A({{"min", -1}, {"max", 1}})), "Tensor((2,), int32)");
  EXPECT_EQ(InferError("clip", {T("x", {2})}, A({{"min", 1.0}, {"max", 0.0}})),
            "clip: attribute min (1) must not exceed max (0)");
}

}  // namespace
}  // namespace rxt::op_test
