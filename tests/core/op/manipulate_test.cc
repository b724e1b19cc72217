#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(PermuteDimsOpTest, Permutes) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("permute_dims", {T("x", {2, 3, 4})}), "Tensor((4, 3, 2), float32)");
  EXPECT_EQ(Infer("permute_dims", {T("x", {2, 3, 4})}, A({{"axes", Ints({0, 2, 1})}})), "Tensor((2, 4, 3), float32)");
  EXPECT_EQ(Infer("permute_dims", {T("x", {2, 3, 4})}, A({{"axes", Ints({-1, 0, 1})}})), "Tensor((4, 2, 3), float32)");
  EXPECT_EQ(Infer("permute_dims", {S("x", {n, I(3)})}), "Tensor((3, n), float32)");
  EXPECT_EQ(Infer("permute_dims", {N("x", -1)}, A({{"axes", Ints({1, 0})}})), "Tensor(ndim=2, float32)");
  EXPECT_EQ(Infer("permute_dims", {N("x", -1)}), "Tensor(float32)");
}

TEST(PermuteDimsOpTest, RejectsBadAxes) {
  EXPECT_EQ(InferError("permute_dims", {T("x", {2, 3, 4})}, A({{"axes", Ints({0, 0, 1})}})),
            "permute_dims: axis 0 repeats in axes [0, 0, 1] for x %x: Tensor((2, 3, 4), float32)");
  EXPECT_EQ(InferError("permute_dims", {T("x", {2, 3})}, A({{"axes", Ints({0, 1, 2})}})),
            "permute_dims: axes [0, 1, 2] has 3 entries but x %x: Tensor((2, 3), float32) has ndim 2");
  EXPECT_EQ(InferError("permute_dims", {T("x", {2, 3})}, A({{"axes", Ints({0, 2})}})),
            "permute_dims: axis 2 is out of range [-2, 2) for x %x: Tensor((2, 3), float32)");
}

TEST(ReshapeOpTest, StaticShapes) {
  EXPECT_EQ(Infer("reshape", {T("x", {2, 3, 4}), StaticShape({6, 4})}), "Tensor((6, 4), float32)");
  EXPECT_EQ(Infer("reshape", {T("x", {2, 3, 4}), StaticShape({-1, 4})}), "Tensor((6, 4), float32)");
  EXPECT_EQ(Infer("reshape", {T("x", {2, 3, 4}), StaticShape({2, -1})}), "Tensor((2, 12), float32)");
  EXPECT_EQ(Infer("reshape", {T("x", {2, 3}), StaticShape({-1})}), "Tensor((6,), float32)");
}

TEST(ReshapeOpTest, SymbolicShapes) {
  PrimVar n = MakePrimVar("n"), m = MakePrimVar("m");
  EXPECT_EQ(Infer("reshape", {S("x", {n, I(4)}), StaticShape({-1, 2})}), "Tensor((n * 2, 2), float32)");
  EXPECT_EQ(Infer("reshape", {S("x", {n, I(4)}), Shape({n, I(2), I(2)})}), "Tensor((n, 2, 2), float32)");
  EXPECT_EQ(Infer("reshape", {S("x", {n, I(4)}), Shape({I(-1), n})}), "Tensor((4, n), float32)");
  EXPECT_EQ(Infer("reshape", {S("x", {n, m}), Shape({n * m})}), "Tensor((n * m,), float32)");
  // n * m / 4 cannot be written exactly: known ndim only.
  EXPECT_EQ(Infer("reshape", {S("x", {n, m}), StaticShape({-1, 4})}), "Tensor(ndim=2, float32)");
  EXPECT_EQ(Infer("reshape", {N("x", 2), StaticShape({-1, 4})}), "Tensor(ndim=2, float32)");
  EXPECT_EQ(Infer("reshape", {N("x", 2), StaticShape({3, 4})}), "Tensor((3, 4), float32)");
  EXPECT_EQ(Infer("reshape", {T("x", {2, 3}), MakeVar("s", ShapeSI(3))}), "Tensor(ndim=3, float32)");
  EXPECT_EQ(Infer("reshape", {T("x", {2, 3}), MakeVar("s", ShapeSI(-1))}), "Tensor(float32)");
  // Element counts past int64 are not compared.
  EXPECT_EQ(Infer("reshape", {T("x", {int64_t{1} << 40, int64_t{1} << 40}), StaticShape({-1, 2})}),
            "Tensor(ndim=2, float32)");
}

TEST(ReshapeOpTest, RejectsBadCalls) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(InferError("reshape", {T("x", {2, 3}), StaticShape({4, 5})}),
            "reshape: element counts differ: x %x: Tensor((2, 3), float32) and shape Shape((4, 5)) (6 vs 20)");
  EXPECT_NE(InferError("reshape", {S("x", {n, I(4)}), Shape({n, I(5)})}).find("reshape: element counts differ"),
            std::string::npos);
  EXPECT_EQ(InferError("reshape", {T("x", {2, 3}), StaticShape({-1, -1})}),
            "reshape: shape Shape((-1, -1)) has more than one -1");
  EXPECT_EQ(InferError("reshape", {T("x", {2, 3}), StaticShape({-2, 3})}),
            "reshape: dim 0 of shape Shape((-2, 3)) is -2; only -1 may be negative");
  EXPECT_EQ(InferError("reshape", {T("x", {2, 3}), StaticShape({-1, 4})}),
            "reshape: cannot infer the -1 of shape Shape((-1, 4)): 6 elements of x %x: Tensor((2, 3), float32) do "
            "not divide by 4");
  EXPECT_EQ(InferError("reshape", {T("x", {2, 3}), T("s", {2})}),
            "reshape: shape %s: Tensor((2,), float32) must be a Shape, got a Tensor");
}

TEST(BroadcastToOpTest, Broadcasts) {
  PrimVar n = MakePrimVar("n"), m = MakePrimVar("m");
  EXPECT_EQ(Infer("broadcast_to", {T("x", {3, 1}), StaticShape({2, 3, 4})}), "Tensor((2, 3, 4), float32)");
  EXPECT_EQ(Infer("broadcast_to", {S("x", {n, I(1)}), Shape({n, I(4)})}), "Tensor((n, 4), float32)");
  EXPECT_EQ(Infer("broadcast_to", {T("x", {1}, i64), Shape({n, m})}), "Tensor((n, m), int64)");
  EXPECT_EQ(Infer("broadcast_to", {T("x", {1}), MakeVar("s", ShapeSI(2))}), "Tensor(ndim=2, float32)");
  EXPECT_EQ(InferError("broadcast_to", {T("x", {3}), StaticShape({2, 4})}),
            "broadcast_to: cannot broadcast x %x: Tensor((3,), float32) to shape Shape((2, 4)): axis -1 has 3 but the "
            "target has 4");
  EXPECT_EQ(InferError("broadcast_to", {T("x", {2, 3}), StaticShape({3})}),
            "broadcast_to: x %x: Tensor((2, 3), float32) has more dims than the target shape Shape((3,))");
}

TEST(CollapseSumToOpTest, Collapses) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("collapse_sum_to", {T("x", {2, 3, 4}), StaticShape({3, 1})}), "Tensor((3, 1), float32)");
  EXPECT_EQ(Infer("collapse_sum_to", {T("x", {2, 3, 4}), StaticShape({4})}), "Tensor((4,), float32)");
  EXPECT_EQ(Infer("collapse_sum_to", {S("x", {n, I(4)}), StaticShape({1, 4})}), "Tensor((1, 4), float32)");
  EXPECT_EQ(InferError("collapse_sum_to", {T("x", {2, 3, 4}), StaticShape({5, 4})}),
            "collapse_sum_to: cannot collapse x %x: Tensor((2, 3, 4), float32) to shape Shape((5, 4)): axis -2 has 3 "
            "but the target has 5");
  EXPECT_NE(InferError("collapse_sum_to", {T("x", {4}), StaticShape({1, 4})}).find("has more dims than"),
            std::string::npos);
}

TEST(ExpandDimsOpTest, Inserts) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("expand_dims", {T("x", {2, 3})}, A({{"axis", Ints({0})}})), "Tensor((1, 2, 3), float32)");
  EXPECT_EQ(Infer("expand_dims", {T("x", {2, 3})}, A({{"axis", Ints({-1})}})), "Tensor((2, 3, 1), float32)");
  EXPECT_EQ(Infer("expand_dims", {T("x", {2, 3})}, A({{"axis", Ints({1, 3})}})), "Tensor((2, 1, 3, 1), float32)");
  EXPECT_EQ(Infer("expand_dims", {S("x", {n})}, A({{"axis", Ints({0, -1})}})), "Tensor((1, n, 1), float32)");
  EXPECT_EQ(Infer("expand_dims", {N("x", 2)}, A({{"axis", Ints({0})}})), "Tensor(ndim=3, float32)");
  EXPECT_EQ(InferError("expand_dims", {T("x", {2, 3})}, A({{"axis", Ints({3})}})),
            "expand_dims: axis 3 is out of range [-3, 3) for x %x: Tensor((2, 3), float32)");
  EXPECT_NE(InferError("expand_dims", {T("x", {2, 3})}, A({{"axis", Ints({0, -4})}})).find("axis -4 repeats"),
            std::string::npos);
}

TEST(SqueezeOpTest, Removes) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("squeeze", {T("x", {1, 3, 1})}), "Tensor((3,), float32)");
  EXPECT_EQ(Infer("squeeze", {T("x", {1, 3, 1})}, A({{"axis", Ints({0})}})), "Tensor((3, 1), float32)");
  EXPECT_EQ(Infer("squeeze", {T("x", {1, 3, 1})}, A({{"axis", Ints({-1})}})), "Tensor((1, 3), float32)");
  EXPECT_EQ(Infer("squeeze", {S("x", {n, I(1)})}, A({{"axis", Ints({1})}})), "Tensor((n,), float32)");
  // Whether n is 1 is unknown: squeezing it is allowed; squeezing "every 1" gives unknown ndim.
  EXPECT_EQ(Infer("squeeze", {S("x", {n, I(1)})}, A({{"axis", Ints({0})}})), "Tensor((1,), float32)");
  EXPECT_EQ(Infer("squeeze", {S("x", {n, I(1)})}), "Tensor(float32)");
  EXPECT_EQ(Infer("squeeze", {N("x", 3)}, A({{"axis", Ints({0})}})), "Tensor(ndim=2, float32)");
  EXPECT_EQ(InferError("squeeze", {T("x", {1, 3, 1})}, A({{"axis", Ints({1})}})),
            "squeeze: cannot squeeze axis 1 of x %x: Tensor((1, 3, 1), float32): its size is 3, not 1");
}

TEST(FlattenOpTest, Flattens) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("flatten", {T("x", {2, 3, 4})}), "Tensor((24,), float32)");
  EXPECT_EQ(Infer("flatten", {T("x", {})}), "Tensor((1,), float32)");
  EXPECT_EQ(Infer("flatten", {S("x", {n, I(4)})}), "Tensor((n * 4,), float32)");
  EXPECT_EQ(Infer("flatten", {N("x", -1)}), "Tensor(ndim=1, float32)");
  EXPECT_EQ(InferError("flatten", {Tup({T("a", {2})})}),
            "flatten: x Tuple(Tensor((2,), float32)) must be a Tensor, got a Tuple");
}

// torch.flatten's start_dim and end_dim (both included, negative from the end).
TEST(FlattenOpTest, FlattensTheDimsFromStartToEnd) {
  PrimVar n = MakePrimVar("n");
  auto dims = [](int64_t start, int64_t end) { return A({{"start_dim", start}, {"end_dim", end}}); };
  EXPECT_EQ(Infer("flatten", {T("x", {2, 3, 4, 5})}, dims(1, -1)), "Tensor((2, 60), float32)");
  EXPECT_EQ(Infer("flatten", {T("x", {2, 3, 4, 5})}, dims(1, 2)), "Tensor((2, 12, 5), float32)");
  EXPECT_EQ(Infer("flatten", {T("x", {2, 3, 4, 5})}, dims(-2, -1)), "Tensor((2, 3, 20), float32)");
  EXPECT_EQ(Infer("flatten", {T("x", {2, 3})}, dims(1, 1)), "Tensor((2, 3), float32)");
  EXPECT_EQ(Infer("flatten", {S("x", {n, I(16), I(5), I(5)})}, dims(1, -1)), "Tensor((n, 400), float32)");
  EXPECT_EQ(Infer("flatten", {N("x", 4)}, dims(1, -1)), "Tensor(ndim=2, float32)");
  EXPECT_EQ(Infer("flatten", {N("x", -1)}, dims(1, -1)), "Tensor(float32)");
  EXPECT_EQ(Infer("flatten", {T("x", {})}, dims(-1, 0)), "Tensor((1,), float32)");
  EXPECT_NE(InferError("flatten", {T("x", {2, 3, 4})}, dims(2, 1)).find("start_dim 2 comes after end_dim 1"),
            std::string::npos);
  EXPECT_NE(InferError("flatten", {T("x", {2, 3})}, dims(3, -1)).find("3"), std::string::npos);
}

}  // namespace
}  // namespace rxt::op_test
