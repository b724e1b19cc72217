// float16 and bfloat16 conversions: exact round trips, rounding to nearest even, subnormals,
// overflow and NaN.
#include "half_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace rxt::backend_reference {
namespace {

TEST(HalfFloat, EveryFloat16RoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float f = HalfBitsToFloat(static_cast<uint16_t>(bits));
    bool nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
    EXPECT_EQ(std::isnan(f), nan) << bits;
    if (!nan) {
      EXPECT_EQ(FloatToHalfBits(f), bits) << bits;
    }
  }
}

TEST(HalfFloat, Float16KnownValues) {
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(HalfBitsToFloat(0x0001), std::ldexp(1.0f, -24));  // the smallest subnormal
  EXPECT_EQ(HalfBitsToFloat(0x0400), std::ldexp(1.0f, -14));  // the smallest normal
}

TEST(HalfFloat, Float16RoundsToNearestEven) {
  const float ulp_at_one = std::ldexp(1.0f, -10);
  EXPECT_EQ(HalfBitsToFloat(FloatToHalfBits(1.0f + ulp_at_one / 2)), 1.0f);                       // tie: even
  EXPECT_EQ(HalfBitsToFloat(FloatToHalfBits(1.0f + 3 * ulp_at_one / 2)), 1.0f + 2 * ulp_at_one);  // tie: even
  EXPECT_EQ(HalfBitsToFloat(FloatToHalfBits(1.0f + ulp_at_one * 0.51f)), 1.0f + ulp_at_one);
  EXPECT_EQ(FloatToHalfBits(65519.0f), 0x7bff);  // just below the midpoint to 65536
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7c00);  // the midpoint rounds up, to infinity
  EXPECT_EQ(FloatToHalfBits(1e10f), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(-1e10f), 0xfc00);
  // Subnormals: 2^-25 is a tie between 0 and 2^-24 (goes to 0, even); 1.5 * 2^-25 rounds up.
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(3.0f, -25)), 0x0002);   // 1.5 * 2^-24: tie, to even 2
  EXPECT_EQ(FloatToHalfBits(-std::ldexp(1.0f, -30)), 0x8000);  // keeps the sign of zero
  // The largest subnormal rounding up becomes the smallest normal.
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)), 0x0400);
}

TEST(HalfFloat, Float16SpecialValues) {
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(HalfBitsToFloat(FloatToHalfBits(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(HalfBitsToFloat(0xfc00)));
}

TEST(HalfFloat, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(FloatToBFloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(BFloat16BitsToFloat(0x3f80), 1.0f);
  const float ulp_at_one = std::ldexp(1.0f, -7);
  EXPECT_EQ(BFloat16BitsToFloat(FloatToBFloat16Bits(1.0f + ulp_at_one / 2)), 1.0f);
  EXPECT_EQ(BFloat16BitsToFloat(FloatToBFloat16Bits(1.0f + 3 * ulp_at_one / 2)), 1.0f + 2 * ulp_at_one);
  EXPECT_EQ(BFloat16BitsToFloat(FloatToBFloat16Bits(1.0f + ulp_at_one * 0.6f)), 1.0f + ulp_at_one);
  EXPECT_TRUE(std::isinf(BFloat16BitsToFloat(FloatToBFloat16Bits(std::numeric_limits<float>::max()))));
  EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(FloatToBFloat16Bits(std::numeric_limits<float>::quiet_NaN()))));
  // A NaN whose payload sits in the low half must not round into infinity.
  float low_payload_nan;
  uint32_t bits = 0x7f800001;
  std::memcpy(&low_payload_nan, &bits, sizeof bits);
  EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(FloatToBFloat16Bits(low_payload_nan))));
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    float f = BFloat16BitsToFloat(static_cast<uint16_t>(b));
    if (!std::isnan(f)) {
      EXPECT_EQ(FloatToBFloat16Bits(f), b) << b;
    }
  }
}

}  // namespace
}  // namespace rxt::backend_reference
