#include <limits>

#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(ConcatOpTest, Joins) {
  PrimVar n = MakePrimVar("n"), m = MakePrimVar("m");
  EXPECT_EQ(Infer("concat", {Tup({T("a", {2, 3}), T("b", {4, 3})})}), "Tensor((6, 3), float32)");
  EXPECT_EQ(Infer("concat", {Tup({T("a", {2, 3}), T("b", {2, 5}), T("c", {2, 1})})}, A({{"axis", -1}})),
            "Tensor((2, 9), float32)");
  EXPECT_EQ(Infer("concat", {Tup({S("a", {n, I(3)}), S("b", {m, I(3)})})}), "Tensor((n + m, 3), float32)");
  EXPECT_EQ(Infer("concat", {Tup({S("a", {n, I(3)}), T("b", {2, 3})})}), "Tensor((n + 2, 3), float32)");
  EXPECT_EQ(Infer("concat", {Tup({S("a", {I(2), n}), S("b", {I(2), n})})}), "Tensor((4, n), float32)");
  EXPECT_EQ(Infer("concat", {Tup({S("a", {I(2), n}), S("b", {I(2), m})})}), "Tensor(ndim=2, float32)");
  EXPECT_EQ(Infer("concat", {Tup({N("a", 2), T("b", {2, 3})})}, A({{"axis", 1}})), "Tensor(ndim=2, float32)");
  Expr tuple_var = MakeVar("t", TupleSI({TensorSI(std::vector<int64_t>{1, 2}, i64), TensorSI(i64, -1)}));
  EXPECT_EQ(Infer("concat", {tuple_var}), "Tensor(ndim=2, int64)");
}

TEST(ConcatOpTest, RejectsBadCalls) {
  EXPECT_EQ(InferError("concat", {Tup({T("a", {2, 3}), T("b", {2, 3}, i32)})}),
            "concat: dtype mismatch: field 0 (Tensor((2, 3), float32)) of argument tensors and field 1 "
            "(Tensor((2, 3), int32)) of argument tensors");
  EXPECT_EQ(InferError("concat", {Tup({T("a", {2, 3}), T("b", {2, 4})})}),
            "concat: shapes differ at axis 1: field 0 (Tensor((2, 3), float32)) of argument tensors has 3, field 1 "
            "(Tensor((2, 4), float32)) of argument tensors has 4");
  EXPECT_NE(InferError("concat", {Tup({T("a", {2, 3}), T("b", {2})})}).find("concat: ndim mismatch"),
            std::string::npos);
  EXPECT_EQ(InferError("concat", {Tup({})}), "concat: tensors Tuple() must hold at least one tensor");
  EXPECT_EQ(InferError("concat", {Tup({T("a", {2}), StaticShape({2})})}),
            "concat: field 1 (Shape((2,))) of argument tensors must be a Tensor, got a Shape");
  EXPECT_EQ(InferError("concat", {T("a", {2})}),
            "concat: tensors %a: Tensor((2,), float32) must be a Tuple, got a Tensor");
  EXPECT_NE(InferError("concat", {Tup({T("a", {2})})}, A({{"axis", 1}})).find("axis 1 is out of range [-1, 1)"),
            std::string::npos);
}

TEST(SplitOpTest, Sections) {
  EXPECT_EQ(Infer("split", {T("x", {6, 4})}, A({{"sections", 3}})),
            "Tuple(Tensor((2, 4), float32), Tensor((2, 4), float32), Tensor((2, 4), float32))");
  EXPECT_EQ(Infer("split", {T("x", {6, 4})}, A({{"sections", 2}, {"axis", -1}})),
            "Tuple(Tensor((6, 2), float32), Tensor((6, 2), float32))");
  EXPECT_EQ(Infer("split", {T("x", {6, 4})}), "Tuple(Tensor((6, 4), float32))");
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("split", {S("x", {n, I(4)})}, A({{"sections", 2}})),
            "Tuple(Tensor((floordiv(n, 2), 4), float32), Tensor((floordiv(n, 2), 4), float32))");
  EXPECT_EQ(Infer("split", {N("x", 2)}, A({{"sections", 2}})),
            "Tuple(Tensor(ndim=2, float32), Tensor(ndim=2, float32))");
}

TEST(SplitOpTest, Indices) {
  EXPECT_EQ(Infer("split", {T("x", {6, 4})}, A({{"indices", Ints({2, 5})}})),
            "Tuple(Tensor((2, 4), float32), Tensor((3, 4), float32), Tensor((1, 4), float32))");
  EXPECT_EQ(Infer("split", {T("x", {6, 4})}, A({{"indices", Ints({2, 10})}})),
            "Tuple(Tensor((2, 4), float32), Tensor((4, 4), float32), Tensor((0, 4), float32))");
  EXPECT_EQ(Infer("split", {T("x", {6, 4})}, A({{"indices", Ints({1})}, {"axis", 1}})),
            "Tuple(Tensor((6, 1), float32), Tensor((6, 3), float32))");
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("split", {S("x", {n, I(4)})}, A({{"indices", Ints({2})}})),
            "Tuple(Tensor((2, 4), float32), Tensor((n - 2, 4), float32))");
}

TEST(SplitOpTest, RejectsBadCalls) {
  EXPECT_EQ(InferError("split", {T("x", {6})}, A({{"sections", 2}, {"indices", Ints({1})}})),
            "split: give either sections (2) or indices [1], not both");
  EXPECT_EQ(InferError("split", {T("x", {6})}, A({{"sections", 4}})),
            "split: axis 0 of x %x: Tensor((6,), float32) has 6, which does not divide into 4 equal sections");
  EXPECT_EQ(InferError("split", {T("x", {6})}, A({{"indices", Ints({3, 1})}})),
            "split: indices [3, 1] must be non-negative and non-decreasing");
  EXPECT_NE(InferError("split", {T("x", {6})}, A({{"sections", 2}, {"axis", 1}})).find("axis 1 is out of range"),
            std::string::npos);
}

TEST(StridedSliceOpTest, StaticDims) {
  auto slice = [](std::vector<int64_t> axes, std::vector<int64_t> begin, std::vector<int64_t> end,
                  std::vector<int64_t> strides) {
    return Infer("strided_slice", {T("x", {10, 8})},
                 A({{"axes", Ints(axes)}, {"begin", Ints(begin)}, {"end", Ints(end)}, {"strides", Ints(strides)}}));
  };
  EXPECT_EQ(slice({0}, {2}, {8}, {2}), "Tensor((3, 8), float32)");
  EXPECT_EQ(slice({1}, {-3}, {100}, {}), "Tensor((10, 3), float32)");
  EXPECT_EQ(slice({0}, {-1}, {-11}, {-1}), "Tensor((10, 8), float32)");  // x[::-1]
  EXPECT_EQ(slice({0}, {8}, {2}, {-3}), "Tensor((2, 8), float32)");      // 8, 5
  EXPECT_EQ(slice({0}, {5}, {2}, {1}), "Tensor((0, 8), float32)");
  EXPECT_EQ(slice({0, 1}, {1, 0}, {3, 8}, {1, 3}), "Tensor((2, 3), float32)");
  // Extreme values clamp like Python's and do not overflow.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(slice({0}, {kMin}, {kMax}, {kMax}), "Tensor((1, 8), float32)");
  EXPECT_EQ(slice({0}, {kMax}, {kMin}, {kMin}), "Tensor((1, 8), float32)");
}

TEST(StridedSliceOpTest, SymbolicDims) {
  PrimVar n = MakePrimVar("n");
  auto slice = [&](int64_t begin, int64_t end, int64_t stride) {
    return Infer("strided_slice", {S("x", {n, I(8)})},
                 A({{"axes", Ints({0})}, {"begin", Ints({begin})}, {"end", Ints({end})}, {"strides", Ints({stride})}}));
  };
  EXPECT_EQ(slice(1, 2147483647, 1), "Tensor((n - 1, 8), float32)");
  EXPECT_EQ(slice(1, 2147483647, 2), "Tensor((floordiv(n, 2), 8), float32)");
  EXPECT_EQ(slice(0, 4, 1), "Tensor(ndim=2, float32)");  // min(n, 4) is not expressed
  EXPECT_EQ(
      Infer("strided_slice", {S("x", {n, I(8)})}, A({{"axes", Ints({1})}, {"begin", Ints({0})}, {"end", Ints({4})}})),
      "Tensor((n, 4), float32)");
}

TEST(StridedSliceOpTest, RejectsBadCalls) {
  EXPECT_EQ(InferError("strided_slice", {T("x", {10})},
                       A({{"axes", Ints({0})}, {"begin", Ints({0, 1})}, {"end", Ints({4})}})),
            "strided_slice: axes, begin, end and strides must have the same length (strides may be empty); got 1, "
            "2, 1, 0");
  EXPECT_EQ(InferError("strided_slice", {T("x", {10})},
                       A({{"axes", Ints({0})}, {"begin", Ints({0})}, {"end", Ints({4})}, {"strides", Ints({0})}})),
            "strided_slice: strides [0] must not contain 0");
  EXPECT_NE(InferError("strided_slice", {T("x", {10, 3})},
                       A({{"axes", Ints({0, -2})}, {"begin", Ints({0, 0})}, {"end", Ints({4, 4})}}))
                .find("axis -2 repeats in axes [0, -2]"),
            std::string::npos);
  EXPECT_NE(InferError("strided_slice", {T("x", {10})}).find("missing required attribute 'axes'"), std::string::npos);
}

TEST(TakeOpTest, Gathers) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("take", {T("x", {5, 4}), T("i", {3}, i64)}, A({{"axis", 0}})), "Tensor((3, 4), float32)");
  EXPECT_EQ(Infer("take", {T("x", {5, 4}), T("i", {2, 2}, i32)}, A({{"axis", -1}})), "Tensor((5, 2, 2), float32)");
  EXPECT_EQ(Infer("take", {T("x", {5, 4}), S("i", {n}, i64)}), "Tensor((n,), float32)");
  EXPECT_EQ(Infer("take", {N("x", 3), T("i", {2}, i64)}, A({{"axis", 1}})), "Tensor(ndim=3, float32)");
  EXPECT_EQ(InferError("take", {T("x", {5, 4}), T("i", {3})}),
            "take: indices %i: Tensor((3,), float32) must have an integer dtype, got float32");
  EXPECT_NE(InferError("take", {T("x", {5, 4}), T("i", {3}, i64)}, A({{"axis", 2}})).find("axis 2 is out of range"),
            std::string::npos);
}

TEST(PadOpTest, Pads) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("pad", {T("x", {2, 3})}, A({{"pad_width", Ints({1, 1, 0, 2})}})), "Tensor((4, 5), float32)");
  EXPECT_EQ(Infer("pad", {S("x", {n, I(3)})}, A({{"pad_width", Ints({0, 1, 2, 2})}, {"pad_value", 1.5}})),
            "Tensor((n + 1, 7), float32)");
  EXPECT_EQ(Infer("pad", {N("x", -1)}, A({{"pad_width", Ints({0, 1})}})), "Tensor(ndim=1, float32)");
  EXPECT_EQ(InferError("pad", {T("x", {2, 3})}, A({{"pad_width", Ints({1, 1})}})),
            "pad: pad_width [1, 1] must have 2 entries (before, after) per dim of x %x: Tensor((2, 3), float32)");
  EXPECT_EQ(InferError("pad", {T("x", {2})}, A({{"pad_width", Ints({-1, 1})}})),
            "pad: pad_width [-1, 1] must be in [0, 2147483647]");
}

TEST(OneHotOpTest, Encodes) {
  PrimVar n = MakePrimVar("n");
  Expr on = MakePrimValue(FloatImm(1.0)), off = MakePrimValue(FloatImm(0.0));
  EXPECT_EQ(Infer("one_hot", {T("i", {2}, i64), on, off}, A({{"depth", 4}})), "Tensor((2, 4), float32)");
  EXPECT_EQ(Infer("one_hot", {T("i", {2}, i64), on, off}, A({{"depth", 4}, {"axis", 0}})), "Tensor((4, 2), float32)");
  EXPECT_EQ(Infer("one_hot", {S("i", {n}, i32), MakePrimValue(IntImm(1)), MakePrimValue(IntImm(0))}, A({{"depth", 3}})),
            "Tensor((n, 3), int64)");
  EXPECT_EQ(InferError("one_hot", {T("i", {2}), on, off}, A({{"depth", 4}})),
            "one_hot: indices %i: Tensor((2,), float32) must have an integer dtype, got float32");
  EXPECT_NE(InferError("one_hot", {T("i", {2}, i64), on, MakePrimValue(IntImm(0))}, A({{"depth", 4}}))
                .find("one_hot: dtype mismatch: on_value"),
            std::string::npos);
  EXPECT_EQ(InferError("one_hot", {T("i", {2}, i64), on, off}, A({{"depth", 0}})),
            "one_hot: attribute depth must be positive, got 0");
  EXPECT_EQ(InferError("one_hot", {T("i", {2}, i64), T("on", {}), off}, A({{"depth", 2}})),
            "one_hot: on_value %on: Tensor((), float32) must be a Prim value, got a Tensor");
  EXPECT_NE(
      InferError("one_hot", {T("i", {2}, i64), on, off}, A({{"depth", 2}, {"axis", 2}})).find("out of range [-2, 2)"),
      std::string::npos);
}

}  // namespace
}  // namespace rxt::op_test
