#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(Pool2dOpTest, OutputSize) {
  for (const char* op : {"nn.max_pool2d", "nn.avg_pool2d"}) {
    Expr data = T("x", {1, 3, 32, 32});
    EXPECT_EQ(Infer(op, {data}, A({{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}})),
              "Tensor((1, 3, 16, 16), float32)")
        << op;
    EXPECT_EQ(Infer(op, {data}, A({{"pool_size", Ints({3})}, {"strides", Ints({2})}, {"padding", Ints({1})}})),
              "Tensor((1, 3, 16, 16), float32)")
        << op;
    EXPECT_EQ(Infer(op, {data}, A({{"pool_size", Ints({3})}, {"dilation", Ints({2})}})),
              "Tensor((1, 3, 28, 28), float32)")
        << op;
    EXPECT_EQ(
        Infer(op, {T("x", {1, 32, 32, 3})}, A({{"pool_size", Ints({2})}, {"strides", Ints({2})}, {"layout", "NHWC"}})),
        "Tensor((1, 16, 16, 3), float32)")
        << op;
  }
}

TEST(Pool2dOpTest, CeilMode) {
  auto pool = [](int64_t size, int64_t padding, bool ceil_mode) {
    return Infer(
        "nn.max_pool2d", {T("x", {1, 1, size, size})},
        A({{"pool_size", Ints({2})}, {"strides", Ints({2})}, {"padding", Ints({padding})}, {"ceil_mode", ceil_mode}}));
  };
  EXPECT_EQ(pool(5, 0, false), "Tensor((1, 1, 2, 2), float32)");
  EXPECT_EQ(pool(5, 0, true), "Tensor((1, 1, 3, 3), float32)");
  EXPECT_EQ(pool(4, 0, true), "Tensor((1, 1, 2, 2), float32)");
  // As in PyTorch, the last window may not start in the trailing padding: 3, not 4.
  EXPECT_EQ(pool(5, 1, true), "Tensor((1, 1, 3, 3), float32)");
  EXPECT_EQ(Infer("nn.avg_pool2d", {T("x", {1, 1, 6, 6})},
                  A({{"pool_size", Ints({3})},
                     {"strides", Ints({2})},
                     {"padding", Ints({1})},
                     {"ceil_mode", true},
                     {"count_include_pad", true}})),
            "Tensor((1, 1, 4, 4), float32)");
}

TEST(Pool2dOpTest, SymbolicDims) {
  PrimVar n = MakePrimVar("n"), h = MakePrimVar("h"), w = MakePrimVar("w");
  Expr data = S("x", {n, I(3), h, w});
  EXPECT_EQ(Infer("nn.max_pool2d", {data}, A({{"pool_size", Ints({2})}, {"strides", Ints({2})}})),
            "Tensor((n, 3, floordiv(h - 2, 2) + 1, floordiv(w - 2, 2) + 1), float32)");
  EXPECT_EQ(Infer("nn.max_pool2d", {data}, A({{"pool_size", Ints({3})}, {"padding", Ints({1})}})),
            "Tensor((n, 3, h, w), float32)");
  // ceil_mode on a symbolic size is not expressed.
  EXPECT_EQ(Infer("nn.max_pool2d", {data}, A({{"pool_size", Ints({2})}, {"strides", Ints({2})}, {"ceil_mode", true}})),
            "Tensor(ndim=4, float32)");
  EXPECT_EQ(Infer("nn.avg_pool2d", {N("x", -1)}), "Tensor(ndim=4, float32)");
}

TEST(Pool2dOpTest, RejectsBadCalls) {
  EXPECT_EQ(InferError("nn.max_pool2d", {T("x", {1, 3, 2, 2})}, A({{"pool_size", Ints({3})}})),
            "nn.max_pool2d: the height of the result would be 0: the window (3 dilated by 1) does not fit the padded "
            "input (2 + 0 + 0)");
  EXPECT_EQ(InferError("nn.avg_pool2d", {T("x", {1, 3, 8, 8})}, A({{"layout", "HWNC"}})),
            "nn.avg_pool2d: attribute layout must be one of \"NCHW\", \"NHWC\", got \"HWNC\"");
  EXPECT_EQ(InferError("nn.max_pool2d", {T("x", {3, 8, 8})}),
            "nn.max_pool2d: data %x: Tensor((3, 8, 8), float32) must be 4-D");
  EXPECT_EQ(InferError("nn.max_pool2d", {T("x", {1, 3, 8, 8})}, A({{"pool_size", Ints({2, 2, 2})}})),
            "nn.max_pool2d: attribute pool_size must have 1 or 2 ints, got [2, 2, 2]");
  // count_include_pad belongs to avg_pool2d only.
  EXPECT_NE(InferError("nn.max_pool2d", {T("x", {1, 3, 8, 8})}, A({{"count_include_pad", true}}))
                .find("nn.max_pool2d: unknown attribute 'count_include_pad'"),
            std::string::npos);
}

TEST(AdaptiveAvgPool2dOpTest, OutputSize) {
  PrimVar n = MakePrimVar("n"), h = MakePrimVar("h");
  EXPECT_EQ(Infer("nn.adaptive_avg_pool2d", {T("x", {1, 3, 32, 32})}, A({{"output_size", Ints({1})}})),
            "Tensor((1, 3, 1, 1), float32)");
  EXPECT_EQ(Infer("nn.adaptive_avg_pool2d", {T("x", {1, 3, 32, 32})}, A({{"output_size", Ints({7, 5})}})),
            "Tensor((1, 3, 7, 5), float32)");
  EXPECT_EQ(Infer("nn.adaptive_avg_pool2d", {T("x", {1, 3, 32, 32})}), "Tensor((1, 3, 32, 32), float32)");
  EXPECT_EQ(
      Infer("nn.adaptive_avg_pool2d", {T("x", {1, 9, 9, 3})}, A({{"output_size", Ints({2})}, {"layout", "NHWC"}})),
      "Tensor((1, 2, 2, 3), float32)");
  EXPECT_EQ(Infer("nn.adaptive_avg_pool2d", {S("x", {n, I(3), h, h})}, A({{"output_size", Ints({1, 1})}})),
            "Tensor((n, 3, 1, 1), float32)");
  EXPECT_EQ(InferError("nn.adaptive_avg_pool2d", {T("x", {1, 3, 8, 8})}, A({{"output_size", Ints({0})}})),
            "nn.adaptive_avg_pool2d: attribute output_size [0] must be positive");
  EXPECT_EQ(InferError("nn.adaptive_avg_pool2d", {T("x", {1, 3, 8, 8})}, A({{"output_size", Ints({1, 2, 3})}})),
            "nn.adaptive_avg_pool2d: attribute output_size must have 1 or 2 ints, got [1, 2, 3]");
}

TEST(PoolBackwardOpTest, ResultIsShapedLikeTheData) {
  PrimVar n = MakePrimVar("n");
  Attrs window = A({{"pool_size", Ints({2})}, {"strides", Ints({2})}});
  EXPECT_EQ(Infer("nn.max_pool2d_backward", {S("g", {n, I(3), I(4), I(4)}), S("x", {n, I(3), I(8), I(9)})}, window),
            "Tensor((n, 3, 8, 9), float32)");
  EXPECT_EQ(Infer("nn.avg_pool2d_backward", {T("g", {1, 3, 4, 4}), T("x", {1, 3, 8, 8})}, window),
            "Tensor((1, 3, 8, 8), float32)");
  EXPECT_EQ(Infer("nn.adaptive_avg_pool2d_backward", {T("g", {1, 2, 2, 3}), T("x", {1, 2, 7, 7})}),
            "Tensor((1, 2, 7, 7), float32)");
  EXPECT_NE(InferError("nn.max_pool2d_backward", {T("g", {1, 3, 5, 4}), T("x", {1, 3, 8, 8})}, window)
                .find("has 5 at dim 2 but pooling"),
            std::string::npos);
  EXPECT_NE(InferError("nn.avg_pool2d_backward", {T("g", {1, 3, 4, 4}, f16), T("x", {1, 3, 8, 8})}, window)
                .find("dtype mismatch"),
            std::string::npos);
}

}  // namespace
}  // namespace rxt::op_test
