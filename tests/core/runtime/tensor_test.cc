#include "rxt/runtime/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "rxt/support/error.h"
#include "rxt/support/half.h"

namespace rxt {
namespace {

TEST(TensorTest, EmptyIsZeroedAndAligned) {
  Tensor t = Tensor::Empty({3, 5}, DType::kFloat32);
  EXPECT_EQ(t.numel(), 15);
  EXPECT_EQ(t.nbytes(), 60u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(t.data_as<float>()[i], 0.0f);
}

TEST(TensorTest, FromBytesChecksSize) {
  std::vector<float> v = {1, 2, 3};
  EXPECT_THROW(Tensor::FromVector({2, 2}, DType::kFloat32, v), Error);
  Tensor t = Tensor::FromVector({3}, DType::kFloat32, v);
  EXPECT_EQ(t.GetAsDouble(2), 3.0);
}

TEST(TensorTest, RejectsBadShapesAndDtypes) {
  EXPECT_THROW(Tensor::Empty({-1}, DType::kFloat32), Error);
  EXPECT_THROW(Tensor::Empty({1}, DType::kUnknown), Error);
}

TEST(TensorTest, ElementAccessConvertsEveryDtype) {
  for (DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kInt16,
                  DType::kInt32, DType::kInt64, DType::kUInt8}) {
    Tensor x = Tensor::Empty({2}, t);
    x.SetFromDouble(1, 3.0);
    EXPECT_EQ(x.GetAsDouble(1), 3.0) << DTypeName(t);
    EXPECT_EQ(x.GetAsDouble(0), 0.0) << DTypeName(t);
  }
  Tensor b = Tensor::Empty({1}, DType::kBool);
  b.SetFromDouble(0, 5.0);
  EXPECT_EQ(b.GetAsDouble(0), 1.0);
}

TEST(TensorTest, CloneIsDeepAndBitwiseEqual) {
  Tensor a = Tensor::FromVector({2}, DType::kInt32, std::vector<int32_t>{7, 8});
  Tensor b = a.Clone();
  EXPECT_TRUE(a.BitwiseEqual(b));
  b.SetFromDouble(0, 1);
  EXPECT_FALSE(a.BitwiseEqual(b));
}

TEST(HalfTest, RoundTripsRepresentableValues) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f}) {
    EXPECT_EQ(HalfToFloat(FloatToHalf(f)), f) << f;
  }
  EXPECT_TRUE(std::isinf(HalfToFloat(FloatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
  EXPECT_EQ(HalfToFloat(FloatToHalf(1.0009765625f + 0.0001f)), 1.0009765625f);  // nearest
}

TEST(HalfTest, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(BFloat16ToFloat(FloatToBFloat16(1.0f)), 1.0f);
  EXPECT_EQ(BFloat16ToFloat(FloatToBFloat16(3.140625f)), 3.140625f);
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(NAN))));
}

}  // namespace
}  // namespace rxt
