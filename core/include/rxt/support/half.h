// IEEE half and bfloat16 <-> float conversions (round to nearest even).
#pragma once

#include <cstdint>

namespace rxt {

float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
float BFloat16ToFloat(uint16_t b);
uint16_t FloatToBFloat16(float f);

}  // namespace rxt
