#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(MatmulOpTest, Matrices) {
  EXPECT_EQ(Infer("matmul", {T("x", {2, 3}), T("w", {3, 4})}), "Tensor((2, 4), float32)");
  EXPECT_EQ(Infer("matmul", {T("x", {64, 784}), T("w", {784, 128})}), "Tensor((64, 128), float32)");
}

TEST(MatmulOpTest, VectorsArePromotedAndSqueezed) {
  EXPECT_EQ(Infer("matmul", {T("x", {3}), T("w", {3, 4})}), "Tensor((4,), float32)");
  EXPECT_EQ(Infer("matmul", {T("x", {2, 3}), T("w", {3})}), "Tensor((2,), float32)");
  EXPECT_EQ(Infer("matmul", {T("x", {3}), T("w", {3})}), "Tensor((), float32)");
  EXPECT_EQ(Infer("matmul", {T("x", {3}), T("w", {5, 3, 4})}), "Tensor((5, 4), float32)");
  EXPECT_EQ(Infer("matmul", {T("x", {5, 2, 3}), T("w", {3})}), "Tensor((5, 2), float32)");
}

TEST(MatmulOpTest, BatchDimsBroadcast) {
  EXPECT_EQ(Infer("matmul", {T("x", {5, 1, 2, 3}), T("w", {4, 3, 6})}), "Tensor((5, 4, 2, 6), float32)");
  EXPECT_EQ(Infer("matmul", {T("x", {7, 2, 3}), T("w", {3, 6})}), "Tensor((7, 2, 6), float32)");
}

TEST(MatmulOpTest, SymbolicDims) {
  PrimVar n = MakePrimVar("n"), m = MakePrimVar("m"), k = MakePrimVar("k"), b = MakePrimVar("b");
  EXPECT_EQ(Infer("matmul", {S("x", {n, k}), S("w", {k, I(4)})}), "Tensor((n, 4), float32)");
  EXPECT_EQ(Infer("matmul", {S("x", {b, n, k}), S("w", {k, m})}), "Tensor((b, n, m), float32)");
  EXPECT_EQ(Infer("matmul", {S("x", {n, k * I(2)}), S("w", {k * I(2), m})}), "Tensor((n, m), float32)");
  // Contraction dims that cannot be related do not change the result's shape.
  EXPECT_EQ(Infer("matmul", {S("x", {I(2), k}), S("w", {m, I(4)})}), "Tensor((2, 4), float32)");
  // Batch dims that cannot be related: known ndim only.
  EXPECT_EQ(Infer("matmul", {S("x", {b, I(2), I(3)}), S("w", {m, I(3), I(4)})}), "Tensor(ndim=3, float32)");
}

TEST(MatmulOpTest, LessKnownInputs) {
  EXPECT_EQ(Infer("matmul", {N("x", -1), T("w", {3, 4})}), "Tensor(float32)");
  EXPECT_EQ(Infer("matmul", {N("x", 3), T("w", {3})}), "Tensor(ndim=2, float32)");
  EXPECT_EQ(Infer("matmul", {N("x", 2, DType::kUnknown), N("w", 2)}), "Tensor(ndim=2, float32)");
}

TEST(MatmulOpTest, OutDtype) {
  EXPECT_EQ(Infer("matmul", {T("x", {2, 3}, f16), T("w", {3, 4}, f16)}, A({{"out_dtype", f32}})),
            "Tensor((2, 4), float32)");
  EXPECT_EQ(Infer("matmul", {T("x", {2, 3}, i32), T("w", {3, 4}, i32)}), "Tensor((2, 4), int32)");
}

TEST(MatmulOpTest, RejectsBadCalls) {
  EXPECT_EQ(InferError("matmul", {T("x", {2, 3}), T("w", {4, 5})}),
            "matmul: contraction dims differ: x1 %x: Tensor((2, 3), float32) has 3, x2 %w: Tensor((4, 5), float32) "
            "has 4");
  EXPECT_EQ(InferError("matmul", {T("x", {}), T("w", {4, 5})}),
            "matmul: operands must not be scalars; got x1 %x: Tensor((), float32)");
  EXPECT_NE(InferError("matmul", {T("x", {2, 3}), T("w", {3, 5}, f16)}).find("matmul: dtype mismatch"),
            std::string::npos);
  EXPECT_NE(InferError("matmul", {T("x", {2, 2, 3}), T("w", {3, 3, 4})}).find("incompatible shapes"),
            std::string::npos);
  EXPECT_NE(InferError("matmul", {T("x", {3}), T("w", {4})}).find("contraction dims differ"), std::string::npos);
  EXPECT_NE(InferError("matmul", {Tup({}), T("w", {4})}).find("x1 Tuple() must be a Tensor"), std::string::npos);
}

TEST(LinearOpTest, PyTorchLayoutWithAndWithoutBias) {
  EXPECT_EQ(Infer("linear", {T("x", {8, 784}), T("w", {128, 784}), T("b", {128})}), "Tensor((8, 128), float32)");
  EXPECT_EQ(Infer("linear", {T("x", {8, 784}), T("w", {128, 784})}), "Tensor((8, 128), float32)");
  EXPECT_EQ(Infer("linear", {T("x", {4}), T("w", {3, 4})}), "Tensor((3,), float32)");
  EXPECT_EQ(Infer("linear", {T("x", {2, 5, 4}), T("w", {3, 4}), T("b", {3})}), "Tensor((2, 5, 3), float32)");
  PrimVar n = MakePrimVar("n"), o = MakePrimVar("o");
  EXPECT_EQ(Infer("linear", {S("x", {n, I(4)}), S("w", {o, I(4)}), S("b", {o})}), "Tensor((n, o), float32)");
  EXPECT_EQ(Infer("linear", {N("x", 3), T("w", {3, 4})}), "Tensor(ndim=3, float32)");
}

TEST(LinearOpTest, RejectsBadCalls) {
  EXPECT_EQ(InferError("linear", {T("x", {2, 3}), T("w", {4, 5})}),
            "linear: input features differ: x %x: Tensor((2, 3), float32) has 3, weight %w: Tensor((4, 5), float32) "
            "takes 5");
  EXPECT_NE(InferError("linear", {T("x", {2, 3}), T("w", {4, 3}), T("b", {5})}).find("has 5 elements but weight"),
            std::string::npos);
  EXPECT_NE(InferError("linear", {T("x", {2, 3}), T("w", {3})}).find("must be 2-D (out, in)"), std::string::npos);
  EXPECT_NE(InferError("linear", {T("x", {}), T("w", {4, 3})}).find("must have a feature dim"), std::string::npos);
  EXPECT_NE(InferError("linear", {T("x", {2, 3}), T("w", {4, 3}, f16)}).find("dtype mismatch"), std::string::npos);
  // The bias is the optional third argument; a fourth is refused naming the inputs.
  EXPECT_NE(InferError("linear", {T("x", {2, 3}), T("w", {4, 3}), T("b", {4}), T("c", {4})})
                .find("expects 2 to 3 argument(s) (x, weight, bias (optional)), got 4"),
            std::string::npos);
}

}  // namespace
}  // namespace rxt::op_test
