#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(AllReduceOpTest, ResultIsLikeItsInput) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("ccl.allreduce", {S("g", {n, I(4)})}), "Tensor((n, 4), float32)");
  EXPECT_EQ(Infer("ccl.allreduce", {T("loss", {})}, A({{"op", std::string("mean")}})), "Tensor((), float32)");
  EXPECT_EQ(Infer("ccl.allreduce", {T("count", {3}, i64)}), "Tensor((3,), int64)");
  EXPECT_EQ(Infer("ccl.allreduce", {N("x", -1)}), "Tensor(float32)");
  // A bucket: a tuple of tensors of one dtype, one communication.
  EXPECT_EQ(Infer("ccl.allreduce", {Tup({T("g", {3, 2}), T("loss", {})})}),
            "Tuple(Tensor((3, 2), float32), Tensor((), float32))");
  // Every rank runs the same program: the op may be moved or removed like any pure one.
  EXPECT_TRUE(OpRegistry::Global().Get("ccl.allreduce").pure());
}

TEST(AllReduceOpTest, RejectsWhatNoCommunicatorReduces) {
  EXPECT_EQ(InferError("ccl.allreduce", {T("x", {2}, f16)}),
            "ccl.allreduce: x %x: Tensor((2,), float16) must be float32, float64, int32 or int64, got float16");
  EXPECT_EQ(InferError("ccl.allreduce", {T("x", {2}, boolean)}),
            "ccl.allreduce: x %x: Tensor((2,), bool) must be float32, float64, int32 or int64, got bool");
  EXPECT_EQ(InferError("ccl.allreduce", {T("x", {2})}, A({{"op", std::string("max")}})),
            "ccl.allreduce: attribute op must be one of \"sum\", \"mean\", got \"max\"");
  EXPECT_EQ(InferError("ccl.allreduce", {Tup({T("x", {2}), T("n", {1}, i64)})}),
            "ccl.allreduce: x Tuple(Tensor((2,), float32), Tensor((1,), int64)) mixes float32 and int64: one call "
            "combines tensors of one dtype");
  EXPECT_EQ(InferError("ccl.allreduce", {Tup({})}), "ccl.allreduce: x Tuple() is an empty tuple");
}

TEST(AllReduceOpTest, StartGivesARequestAndWaitTheResultOfItsOutSinfo) {
  EXPECT_EQ(Infer("ccl.allreduce_start", {Tup({T("g", {3, 2}), T("loss", {})})}, A({{"op", std::string("mean")}})),
            "Tensor((), int64)");
  EXPECT_EQ(Infer("ccl.allreduce_start", {T("count", {3}, i64)}), "Tensor((), int64)");
  StructInfo bucket = TupleSI({TensorSI({3, 2}, DType::kFloat32), TensorSI(std::vector<int64_t>{}, DType::kFloat32)});
  EXPECT_EQ(Infer("ccl.allreduce_wait", {T("request", {}, i64)}, {}, {bucket}),
            "Tuple(Tensor((3, 2), float32), Tensor((), float32))");
  EXPECT_TRUE(OpRegistry::Global().Get("ccl.allreduce_start").pure());
  EXPECT_TRUE(OpRegistry::Global().Get("ccl.allreduce_wait").pure());
}

TEST(AllReduceOpTest, StartAndWaitRejectWhatNoCommunicatorReduces) {
  EXPECT_EQ(InferError("ccl.allreduce_start", {T("x", {2}, f16)}),
            "ccl.allreduce_start: x %x: Tensor((2,), float16) must be float32, float64, int32 or int64, got float16");
  EXPECT_EQ(InferError("ccl.allreduce_start", {T("x", {2})}, A({{"op", std::string("max")}})),
            "ccl.allreduce_start: attribute op must be one of \"sum\", \"mean\", got \"max\"");
  EXPECT_EQ(InferError("ccl.allreduce_wait", {T("request", {}, i64)}),
            "ccl.allreduce_wait: needs the struct info of the combined values (out_sinfo: that of "
            "ccl.allreduce_start's x)");
  EXPECT_EQ(InferError("ccl.allreduce_wait", {T("request", {2}, i64)}, {}, {TensorSI(std::vector<int64_t>{2}, DType::kFloat32)}),
            "ccl.allreduce_wait: request %request: Tensor((2,), int64) must be the int64 scalar ccl.allreduce_start "
            "returns");
  EXPECT_EQ(InferError("ccl.allreduce_wait", {T("request", {}, i64)}, {}, {TensorSI(std::vector<int64_t>{2}, DType::kBool)}),
            "ccl.allreduce_wait: out_sinfo must be float32, float64, int32 or int64, got bool");
  EXPECT_EQ(InferError("ccl.allreduce_wait", {T("request", {}, i64)}, {},
                       {TupleSI({TensorSI(std::vector<int64_t>{2}, DType::kFloat32), TensorSI(std::vector<int64_t>{2}, DType::kInt64)})}),
            "ccl.allreduce_wait: out_sinfo mixes float32 and int64: one call combines tensors of one dtype");
}

}  // namespace
}  // namespace rxt::op_test
