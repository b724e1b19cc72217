// float16 and bfloat16 <-> float conversions, rounding to nearest even. The reference
// interpreter computes in float and rounds to these types after every operation.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace rxt::backend_reference {

inline uint32_t FloatBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}

inline float FloatFromBits(uint32_t x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

/// IEEE binary16 bits of |f|: overflow gives infinity, NaN stays a (quiet) NaN.
inline uint16_t FloatToHalfBits(float f) {
  uint32_t x = FloatBits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exponent = (x >> 23) & 0xffu;
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0));
  int32_t e = static_cast<int32_t>(exponent) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {  // a subnormal half (or zero): the value is m * 2^-24
    if (e < -10) return static_cast<uint16_t>(sign);
    uint32_t full = mantissa | 0x800000u;
    int shift = 14 - e;
    uint32_t m = full >> shift;
    uint32_t rest = full & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (m & 1))) ++m;
    return static_cast<uint16_t>(sign | m);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;
  return static_cast<uint16_t>(half);
}

inline float HalfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    float f = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -f : f;
  }
  if (exponent == 0x1f) return FloatFromBits(sign | 0x7f800000u | (mantissa << 13));
  return FloatFromBits(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

/// bfloat16 bits of |f| (the upper half of the float, rounded to nearest even).
inline uint16_t FloatToBFloat16Bits(float f) {
  uint32_t x = FloatBits(f);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

inline float BFloat16BitsToFloat(uint16_t b) { return FloatFromBits(static_cast<uint32_t>(b) << 16); }

}  // namespace rxt::backend_reference
