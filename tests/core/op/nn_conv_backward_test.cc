// nn.conv2d_backward_data and nn.conv2d_backward_weight: their results have the shapes of the
// convolution's data and weight, and calls that cannot be a convolution's gradient are refused.
#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(Conv2dBackwardDataOpTest, IsShapedLikeTheData) {
  // conv2d((1, 3, 8, 8), (4, 3, 3, 3)) is (1, 4, 6, 6).
  EXPECT_EQ(Infer("nn.conv2d_backward_data", {T("g", {1, 4, 6, 6}), T("w", {4, 3, 3, 3})},
                  A({{"data_size", Ints({8})}})),
            "Tensor((1, 3, 8, 8), float32)");
  // Stride 2 leaves the last row and column of a 9 x 10 input unread: data_size says so.
  EXPECT_EQ(Infer("nn.conv2d_backward_data", {T("g", {2, 4, 4, 4}), T("w", {4, 3, 3, 3})},
                  A({{"data_size", Ints({9, 10})}, {"strides", Ints({2})}})),
            "Tensor((2, 3, 9, 10), float32)");
  EXPECT_EQ(Infer("nn.conv2d_backward_data", {T("g", {1, 6, 6, 6}), T("w", {6, 2, 3, 3})},
                  A({{"data_size", Ints({8})}, {"groups", 2}})),
            "Tensor((1, 4, 8, 8), float32)");
  Attrs nhwc = A({{"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}, {"data_size", Ints({5, 5})}});
  EXPECT_EQ(Infer("nn.conv2d_backward_data", {T("g", {1, 3, 3, 8}), T("w", {3, 3, 2, 8})}, nhwc),
            "Tensor((1, 5, 5, 2), float32)");
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("nn.conv2d_backward_data", {S("g", {n, I(4), I(6), I(6)}), T("w", {4, 3, 3, 3})},
                  A({{"data_size", Ints({8})}})),
            "Tensor((n, 3, 8, 8), float32)");
  EXPECT_EQ(Infer("nn.conv2d_backward_data", {N("g", 4), T("w", {4, 3, 3, 3})}, A({{"data_size", Ints({8})}})),
            "Tensor(ndim=4, float32)");
}

TEST(Conv2dBackwardDataOpTest, RejectsBadCalls) {
  Expr g = T("g", {1, 4, 6, 6});
  EXPECT_EQ(InferError("nn.conv2d_backward_data", {g, T("w", {5, 3, 3, 3})}, A({{"data_size", Ints({8})}})),
            "nn.conv2d_backward_data: output channels differ: output_grad %g: Tensor((1, 4, 6, 6), float32) has 4, "
            "weight %w: Tensor((5, 3, 3, 3), float32) has 5");
  EXPECT_EQ(InferError("nn.conv2d_backward_data", {g, T("w", {4, 3, 3, 3})}, A({{"data_size", Ints({9})}})),
            "nn.conv2d_backward_data: output_grad %g: Tensor((1, 4, 6, 6), float32) has height 6, but conv2d of "
            "height 9 with a kernel of 3 gives 7");
  EXPECT_EQ(InferError("nn.conv2d_backward_data", {g, T("w", {4, 3, 3, 3})},
                       A({{"data_size", Ints({8})}, {"groups", 3}})),
            "nn.conv2d_backward_data: output channels of output_grad %g: Tensor((1, 4, 6, 6), float32) (4) do not "
            "divide into groups 3");
  EXPECT_NE(InferError("nn.conv2d_backward_data", {g, T("w", {4, 3, 3, 3})}).find("data_size"), std::string::npos);
  EXPECT_NE(InferError("nn.conv2d_backward_data", {g, T("w", {4, 3, 3, 3})},
                       A({{"data_size", Ints({8})}, {"kernel_layout", "IOHW"}}))
                .find("kernel_layout"),
            std::string::npos);
}

TEST(Conv2dBackwardWeightOpTest, IsShapedLikeTheWeight) {
  EXPECT_EQ(Infer("nn.conv2d_backward_weight", {T("g", {2, 4, 6, 6}), T("x", {2, 3, 8, 8})},
                  A({{"kernel_size", Ints({3})}})),
            "Tensor((4, 3, 3, 3), float32)");
  EXPECT_EQ(Infer("nn.conv2d_backward_weight", {T("g", {2, 4, 4, 4}), T("x", {2, 3, 9, 10})},
                  A({{"kernel_size", Ints({3, 3})}, {"strides", Ints({2})}})),
            "Tensor((4, 3, 3, 3), float32)");
  EXPECT_EQ(Infer("nn.conv2d_backward_weight", {T("g", {1, 6, 6, 6}), T("x", {1, 4, 8, 8})},
                  A({{"kernel_size", Ints({3})}, {"groups", 2}})),
            "Tensor((6, 2, 3, 3), float32)");
  Attrs nhwc = A({{"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}, {"kernel_size", Ints({3, 2})}});
  EXPECT_EQ(Infer("nn.conv2d_backward_weight", {T("g", {1, 3, 4, 8}), T("x", {1, 5, 5, 2})}, nhwc),
            "Tensor((3, 2, 2, 8), float32)");
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("nn.conv2d_backward_weight", {S("g", {n, I(4), I(6), I(6)}), S("x", {n, I(3), I(8), I(8)})},
                  A({{"kernel_size", Ints({3})}})),
            "Tensor((4, 3, 3, 3), float32)");
}

TEST(Conv2dBackwardWeightOpTest, RejectsBadCalls) {
  Expr g = T("g", {2, 4, 6, 6});
  EXPECT_EQ(InferError("nn.conv2d_backward_weight", {g, T("x", {3, 3, 8, 8})}, A({{"kernel_size", Ints({3})}})),
            "nn.conv2d_backward_weight: batch sizes differ: output_grad %g: Tensor((2, 4, 6, 6), float32) has 2, "
            "data %x: Tensor((3, 3, 8, 8), float32) has 3");
  EXPECT_EQ(InferError("nn.conv2d_backward_weight", {g, T("x", {2, 3, 8, 8})}, A({{"kernel_size", Ints({2})}})),
            "nn.conv2d_backward_weight: output_grad %g: Tensor((2, 4, 6, 6), float32) has height 6, but conv2d of "
            "height 8 with a kernel of 2 gives 7");
  EXPECT_EQ(InferError("nn.conv2d_backward_weight", {g, T("x", {2, 3, 8, 8})},
                       A({{"kernel_size", Ints({3})}, {"groups", 2}})),
            "nn.conv2d_backward_weight: input channels of data %x: Tensor((2, 3, 8, 8), float32) (3) do not divide "
            "into groups 2");
  EXPECT_NE(InferError("nn.conv2d_backward_weight", {g, T("x", {2, 3, 8, 8})}).find("kernel_size"), std::string::npos);
  EXPECT_NE(InferError("nn.conv2d_backward_weight", {g, T("x", {2, 3, 8, 8}, f16)}, A({{"kernel_size", Ints({3})}}))
                .find("dtype mismatch"),
            std::string::npos);
}

}  // namespace
}  // namespace rxt::op_test
