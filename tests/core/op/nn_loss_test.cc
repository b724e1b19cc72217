#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(NllLossOpTest, Reductions) {
  EXPECT_EQ(Infer("nn.nll_loss", {T("p", {4, 10}), T("t", {4}, i64)}), "Tensor((), float32)");
  EXPECT_EQ(Infer("nn.nll_loss", {T("p", {4, 10}), T("t", {4}, i64)}, A({{"reduction", "sum"}})),
            "Tensor((), float32)");
  EXPECT_EQ(Infer("nn.nll_loss", {T("p", {4, 10}), T("t", {4}, i64)}, A({{"reduction", "none"}})),
            "Tensor((4,), float32)");
  EXPECT_EQ(Infer("nn.nll_loss", {T("p", {10}), T("t", {}, i64)}, A({{"reduction", "none"}})), "Tensor((), float32)");
  EXPECT_EQ(Infer("nn.nll_loss", {T("p", {2, 10, 5, 5}), T("t", {2, 5, 5}, i32)}, A({{"reduction", "none"}})),
            "Tensor((2, 5, 5), float32)");
  EXPECT_EQ(Infer("nn.nll_loss", {T("p", {4, 10}), T("t", {4}, i64), T("w", {10})}, A({{"ignore_index", 0}})),
            "Tensor((), float32)");
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("nn.nll_loss", {S("p", {n, I(10)}), S("t", {n}, i64)}, A({{"reduction", "none"}})),
            "Tensor((n,), float32)");
  EXPECT_EQ(Infer("nn.nll_loss", {N("p", -1), S("t", {n}, i64)}, A({{"reduction", "none"}})), "Tensor((n,), float32)");
}

TEST(NllLossOpTest, RejectsBadCalls) {
  EXPECT_EQ(InferError("nn.nll_loss", {T("p", {4, 10}), T("t", {4})}),
            "nn.nll_loss: targets %t: Tensor((4,), float32) must have an integer dtype, got float32");
  EXPECT_EQ(InferError("nn.nll_loss", {T("p", {4, 10}), T("t", {5}, i64)}),
            "nn.nll_loss: shapes differ: targets %t: Tensor((5,), int64) has 5 at dim 0, predictions %p: "
            "Tensor((4, 10), float32) implies 4");
  EXPECT_EQ(InferError("nn.nll_loss", {T("p", {4, 10}), T("t", {4, 1}, i64)}),
            "nn.nll_loss: targets %t: Tensor((4, 1), int64) must have ndim 1 to match predictions %p: "
            "Tensor((4, 10), float32)");
  EXPECT_EQ(InferError("nn.nll_loss", {T("p", {4, 10}), T("t", {4}, i64), T("w", {9})}),
            "nn.nll_loss: weights %w: Tensor((9,), float32) has 9 weights but predictions %p: Tensor((4, 10), float32) "
            "has 10 classes");
  EXPECT_EQ(InferError("nn.nll_loss", {T("p", {4, 10}), T("t", {4}, i64)}, A({{"reduction", "avg"}})),
            "nn.nll_loss: attribute reduction must be one of \"mean\", \"sum\", \"none\", got \"avg\"");
  EXPECT_EQ(InferError("nn.nll_loss", {T("p", {4, 10}), T("t", {4}, i64), T("w", {10}), T("x", {1})}),
            "nn.nll_loss: expects 2 to 3 argument(s) (predictions, targets, weights (optional)), got 4");
  EXPECT_EQ(InferError("nn.nll_loss", {T("p", {4, 10})}),
            "nn.nll_loss: expects 2 to 3 argument(s) (predictions, targets, weights (optional)), got 1");
}

TEST(CrossEntropyWithLogitsOpTest, GivesScalar) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("nn.cross_entropy_with_logits", {T("p", {4, 10}), T("l", {4, 10})}), "Tensor((), float32)");
  EXPECT_EQ(Infer("nn.cross_entropy_with_logits", {S("p", {n, I(10)}), S("l", {n, I(10)})}), "Tensor((), float32)");
  EXPECT_EQ(Infer("nn.cross_entropy_with_logits", {T("p", {10}, f16), N("l", -1, f16)}), "Tensor((), float16)");
  EXPECT_EQ(InferError("nn.cross_entropy_with_logits", {T("p", {4, 10}), T("l", {4, 9})}),
            "nn.cross_entropy_with_logits: shapes differ at dim 1: predictions %p: Tensor((4, 10), float32) has 10, "
            "labels %l: Tensor((4, 9), float32) has 9");
  EXPECT_NE(InferError("nn.cross_entropy_with_logits", {T("p", {4, 10}), T("l", {10})}).find("ndim mismatch"),
            std::string::npos);
  EXPECT_NE(InferError("nn.cross_entropy_with_logits", {T("p", {4, 10}), T("l", {4, 10}, i64)}).find("dtype mismatch"),
            std::string::npos);
}

}  // namespace
}  // namespace rxt::op_test
