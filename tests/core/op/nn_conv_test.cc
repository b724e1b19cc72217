#include "op_test_util.h"

namespace rxt::op_test {
namespace {

// Output size: (in + pad_before + pad_after - dilation * (kernel - 1) - 1) / stride + 1.
TEST(Conv2dOpTest, NCHWOutputSize) {
  Expr data = T("x", {1, 3, 32, 32}), weight = T("w", {16, 3, 3, 3});
  EXPECT_EQ(Infer("nn.conv2d", {data, weight}), "Tensor((1, 16, 30, 30), float32)");
  EXPECT_EQ(Infer("nn.conv2d", {data, weight}, A({{"padding", Ints({1})}})), "Tensor((1, 16, 32, 32), float32)");
  EXPECT_EQ(Infer("nn.conv2d", {data, weight}, A({{"strides", Ints({2})}, {"padding", Ints({1})}})),
            "Tensor((1, 16, 16, 16), float32)");
  EXPECT_EQ(Infer("nn.conv2d", {data, weight}, A({{"strides", Ints({2, 1})}})), "Tensor((1, 16, 15, 30), float32)");
  EXPECT_EQ(Infer("nn.conv2d", {data, weight}, A({{"dilation", Ints({2})}})), "Tensor((1, 16, 28, 28), float32)");
  // Padding: 2 ints are (top/bottom, left/right); 4 are (top, left, bottom, right).
  EXPECT_EQ(Infer("nn.conv2d", {data, weight}, A({{"padding", Ints({1, 0})}})), "Tensor((1, 16, 32, 30), float32)");
  EXPECT_EQ(Infer("nn.conv2d", {data, weight}, A({{"padding", Ints({1, 2, 0, 0})}})),
            "Tensor((1, 16, 31, 32), float32)");
  EXPECT_EQ(
      Infer("nn.conv2d", {data, weight}, A({{"strides", Ints({3})}, {"padding", Ints({2})}, {"dilation", Ints({2})}})),
      "Tensor((1, 16, 11, 11), float32)");  // (32 + 4 - 4 - 1) / 3 + 1
}

TEST(Conv2dOpTest, NHWCAndHWIO) {
  Expr data = T("x", {1, 32, 32, 3});
  Expr weight = T("w", {3, 3, 3, 16});
  Attrs layouts = A({{"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}});
  EXPECT_EQ(Infer("nn.conv2d", {data, weight}, layouts), "Tensor((1, 30, 30, 16), float32)");
  layouts.Set("strides", Ints({2}));
  layouts.Set("padding", Ints({1}));
  EXPECT_EQ(Infer("nn.conv2d", {data, weight}, layouts), "Tensor((1, 16, 16, 16), float32)");
  // NHWC data with an OIHW kernel.
  EXPECT_EQ(Infer("nn.conv2d", {data, T("w", {8, 3, 5, 5})}, A({{"data_layout", "NHWC"}})),
            "Tensor((1, 28, 28, 8), float32)");
}

TEST(Conv2dOpTest, Groups) {
  EXPECT_EQ(Infer("nn.conv2d", {T("x", {1, 4, 8, 8}), T("w", {6, 2, 3, 3})}, A({{"groups", 2}})),
            "Tensor((1, 6, 6, 6), float32)");
  EXPECT_EQ(
      Infer("nn.conv2d", {T("x", {1, 8, 8, 8}), T("w", {8, 1, 3, 3})}, A({{"groups", 8}, {"padding", Ints({1})}})),
      "Tensor((1, 8, 8, 8), float32)");
}

TEST(Conv2dOpTest, SymbolicDims) {
  PrimVar n = MakePrimVar("n"), h = MakePrimVar("h"), w = MakePrimVar("w"), k = MakePrimVar("k");
  Expr data = S("x", {n, I(3), h, w});
  EXPECT_EQ(Infer("nn.conv2d", {data, T("w", {16, 3, 3, 3})}, A({{"padding", Ints({1})}})),
            "Tensor((n, 16, h, w), float32)");
  EXPECT_EQ(Infer("nn.conv2d", {data, T("w", {16, 3, 3, 3})}), "Tensor((n, 16, h - 2, w - 2), float32)");
  EXPECT_EQ(Infer("nn.conv2d", {data, T("w", {16, 3, 3, 3})}, A({{"strides", Ints({2})}, {"padding", Ints({1})}})),
            "Tensor((n, 16, floordiv(h - 1, 2) + 1, floordiv(w - 1, 2) + 1), float32)");
  EXPECT_EQ(Infer("nn.conv2d", {T("x", {1, 3, 32, 32}), S("w", {I(16), I(3), k, k})}),
            "Tensor((1, 16, 33 - k, 33 - k), float32)");
  EXPECT_EQ(Infer("nn.conv2d", {T("x", {1, 3, 32, 32}), S("w", {I(16), I(3), k, k})},
                  A({{"strides", Ints({2})}, {"dilation", Ints({2})}})),
            "Tensor((1, 16, floordiv(33 - 2 * k, 2) + 1, floordiv(33 - 2 * k, 2) + 1), float32)");
  EXPECT_EQ(Infer("nn.conv2d", {N("x", 4), T("w", {16, 3, 3, 3})}), "Tensor(ndim=4, float32)");
}

TEST(Conv2dOpTest, OutDtype) {
  EXPECT_EQ(Infer("nn.conv2d", {T("x", {1, 3, 4, 4}, f16), T("w", {2, 3, 1, 1}, f16)}, A({{"out_dtype", f32}})),
            "Tensor((1, 2, 4, 4), float32)");
}

TEST(Conv2dOpTest, RejectsBadCalls) {
  Expr data = T("x", {1, 3, 32, 32});
  EXPECT_EQ(InferError("nn.conv2d", {data, T("w", {16, 4, 3, 3})}),
            "nn.conv2d: input channels differ: data %x: Tensor((1, 3, 32, 32), float32) has 3, weight %w: "
            "Tensor((16, 4, 3, 3), float32) expects 4 * groups 1 = 4");
  EXPECT_EQ(InferError("nn.conv2d", {T("x", {1, 4, 8, 8}), T("w", {5, 2, 3, 3})}, A({{"groups", 2}})),
            "nn.conv2d: output channels of weight %w: Tensor((5, 2, 3, 3), float32) (5) do not divide into groups 2");
  EXPECT_EQ(InferError("nn.conv2d", {T("x", {3, 32, 32}), T("w", {16, 3, 3, 3})}),
            "nn.conv2d: data %x: Tensor((3, 32, 32), float32) must be 4-D");
  EXPECT_EQ(InferError("nn.conv2d", {data, T("w", {16, 3, 3, 3})}, A({{"data_layout", "NCWH"}})),
            "nn.conv2d: attribute data_layout must be one of \"NCHW\", \"NHWC\", got \"NCWH\"");
  EXPECT_EQ(InferError("nn.conv2d", {data, T("w", {16, 3, 3, 3})}, A({{"padding", Ints({1, 1, 1})}})),
            "nn.conv2d: attribute padding must have 1, 2 or 4 ints, got [1, 1, 1]");
  EXPECT_EQ(InferError("nn.conv2d", {data, T("w", {16, 3, 3, 3})}, A({{"strides", Ints({0})}})),
            "nn.conv2d: attribute strides [0] must be in [1, 2147483647]");
  EXPECT_EQ(InferError("nn.conv2d", {T("x", {1, 3, 2, 2}), T("w", {16, 3, 3, 3})}),
            "nn.conv2d: the height of the result would be 0: the window (3 dilated by 1) does not fit the padded "
            "input (2 + 0 + 0)");
  EXPECT_NE(InferError("nn.conv2d", {data, T("w", {16, 3, 3, 3}, f16)}).find("nn.conv2d: dtype mismatch"),
            std::string::npos);
}

// (in - 1) * stride - pads + dilation * (kernel - 1) + output_padding + 1; C_out = O * groups.
TEST(Conv2dTransposeOpTest, OutputSizeIsConv2dInverted) {
  Expr data = T("x", {1, 4, 8, 8});
  EXPECT_EQ(Infer("nn.conv2d_transpose", {data, T("w", {4, 3, 3, 3})}), "Tensor((1, 3, 10, 10), float32)");
  EXPECT_EQ(Infer("nn.conv2d_transpose", {data, T("w", {4, 3, 3, 3})},
                  A({{"strides", Ints({2})}, {"padding", Ints({1})}, {"output_padding", Ints({1})}})),
            "Tensor((1, 3, 16, 16), float32)");
  EXPECT_EQ(Infer("nn.conv2d_transpose", {data, T("w", {4, 3, 3, 3})}, A({{"groups", 2}, {"dilation", Ints({2})}})),
            "Tensor((1, 6, 12, 12), float32)");
  Attrs nhwc = A({{"data_layout", "NHWC"}, {"kernel_layout", "HWOI"}});
  EXPECT_EQ(Infer("nn.conv2d_transpose", {T("x", {1, 5, 5, 4}), T("w", {2, 2, 3, 4})}, nhwc),
            "Tensor((1, 6, 6, 3), float32)");
  PrimVar n = MakePrimVar("n"), h = MakePrimVar("h");
  Expr symbolic = S("x", {n, I(4), h, I(8)});
  EXPECT_EQ(Infer("nn.conv2d_transpose", {symbolic, T("w", {4, 3, 3, 3})}, A({{"strides", Ints({2})}})),
            "Tensor((n, 3, 2 * (h - 1) + 3, 17), float32)");  // 2h + 1
}

TEST(Conv2dTransposeOpTest, RejectsBadCalls) {
  EXPECT_NE(
      InferError("nn.conv2d_transpose", {T("x", {1, 4, 8, 8}), T("w", {3, 3, 3, 3})}).find("input channels differ"),
      std::string::npos);
  EXPECT_NE(InferError("nn.conv2d_transpose", {T("x", {1, 4, 8, 8}), T("w", {4, 3, 3, 3})}, A({{"groups", 3}}))
                .find("do not divide into groups"),
            std::string::npos);
  EXPECT_NE(InferError("nn.conv2d_transpose", {T("x", {1, 4, 8, 8}), T("w", {4, 3, 3, 3})},
                       A({{"output_padding", Ints({1})}}))
                .find("must be smaller than the stride or the dilation"),
            std::string::npos);
  EXPECT_NE(InferError("nn.conv2d_transpose", {T("x", {1, 4, 8, 8}), T("w", {4, 3, 3, 3})},
                       A({{"kernel_layout", "OIHW"}}))
                .find("kernel_layout"),
            std::string::npos);
}

}  // namespace
}  // namespace rxt::op_test
