// Creation: zeros, ones, full and their _like forms.
#include "core/transform/legalize/numeric/numeric_test_util.h"
#include "rxt/support/error.h"

namespace rxt::numeric {
namespace {

Array Filled(const Shape& shape, DType dtype, double value) {
  return Map(shape, dtype, [&](const Idx&) { return value; });
}

TEST(CreateNumeric, ZerosAndOnes) {
  EXPECT_TRUE(Near(RunOp("", "zeros(shape(2, 3))", {})[0], Filled({2, 3}, DType::kFloat32, 0)));
  EXPECT_TRUE(Near(RunOp("", "ones(shape(4), dtype=int32)", {})[0], Filled({4}, DType::kInt32, 1)));
  Array x = Random({3, 2}, DType::kFloat32, 1);
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 2), float32)", "zeros_like(%x)", {x})[0], Filled({3, 2}, DType::kFloat32, 0)));
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 2), float32)", "ones_like(%x, dtype=bool)", {x})[0],
                   Filled({3, 2}, DType::kBool, 1)));
  // A symbolic shape whose n is only known from another argument.
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 2), float32)", "zeros(shape(n * 2, 1), dtype=float64)", {x})[0],
                   Filled({6, 1}, DType::kFloat64, 0)));
}

TEST(CreateNumeric, FullFromConstantsTensorsAndRuntimeScalars) {
  EXPECT_TRUE(Near(RunOp("", "full(shape(2, 2), prim(2.5f32))", {})[0], Filled({2, 2}, DType::kFloat32, 2.5)));
  EXPECT_TRUE(Near(RunOp("", "full(shape(3), prim(7i64), dtype=float32)", {})[0], Filled({3}, DType::kFloat32, 7)));
  EXPECT_TRUE(Near(RunOp("%v: Tensor((), float32)", "full(shape(2), %v, dtype=int32)", {Array{DType::kFloat32, {}, {-3.75}}})[0],
                   Filled({2}, DType::kInt32, -3)));
  EXPECT_TRUE(Near(RunOp("%v: Prim(float32)", "full(shape(2, 1), %v)", {Array{DType::kFloat32, {}, {1.25}}})[0],
                   Filled({2, 1}, DType::kFloat32, 1.25)));
  Array x = Random({2, 3}, DType::kInt64, 2);
  EXPECT_TRUE(Near(RunOp("%x: Tensor((2, n), int64), %v: Tensor((), int64)", "full_like(%x, %v)",
                         {x, Array{DType::kInt64, {}, {9}}})[0],
                   Filled({2, 3}, DType::kInt64, 9)));
  EXPECT_TRUE(Near(RunOp("%x: Tensor((2, n), int64)", "full_like(%x, prim(0.5f32), dtype=float32)", {x})[0],
                   Filled({2, 3}, DType::kFloat32, 0.5)));
}

}  // namespace
}  // namespace rxt::numeric
