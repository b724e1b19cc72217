// The scalar semantics of the kernel format, one place for all of them: how each dtype stores
// values, wraps, rounds, divides and converts. docs/kernel_format.md states the same rules.
// What runs for every element (arithmetic, loads, stores) is inline here; the rest is in
// scalar_ops.cc.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "half_float.h"
#include "rxt/plugin_support/kernel_codec.h"

namespace rxt::backend_reference {

namespace kf = ::rxt::plugin_support::kernel_format;

// The per-element functions below run millions of times per kernel: inlined even in debug
// builds, so that a debug test run stays quick.
#define RXT_REFERENCE_INLINE inline __attribute__((always_inline))

/// A scalar while a kernel runs. Integers and bool live in |i|, already wrapped to their dtype
/// (bool is 0 or 1, uint8 0..255); floats live in |f|, already rounded to their dtype (so a
/// float16 holds a value float16 can represent). The dtype is known from the expression.
union Value {
  int64_t i;
  double f;
};

inline Value IntValue(int64_t v) {
  Value x;
  x.i = v;
  return x;
}
inline Value FloatValue(double v) {
  Value x;
  x.f = v;
  return x;
}
inline Value BoolValue(bool b) { return IntValue(b ? 1 : 0); }

/// The low bits of |bits| as an integer of dtype |t| (two's complement wrap-around); for bool,
/// whether |bits| is non-zero.
RXT_REFERENCE_INLINE int64_t WrapInt(kf::DType t, uint64_t bits) {
  switch (t) {
    case kf::DType::kInt8: return static_cast<int8_t>(bits);
    case kf::DType::kInt16: return static_cast<int16_t>(bits);
    case kf::DType::kInt32: return static_cast<int32_t>(bits);
    case kf::DType::kUInt8: return static_cast<uint8_t>(bits);
    case kf::DType::kBool: return bits != 0 ? 1 : 0;
    default: return static_cast<int64_t>(bits);
  }
}

/// |v| rounded to float dtype |t| (to nearest even; float16 and bfloat16 by way of float).
RXT_REFERENCE_INLINE double RoundFloat(kf::DType t, double v) {
  switch (t) {
    case kf::DType::kFloat32: return static_cast<float>(v);
    case kf::DType::kFloat16: return HalfBitsToFloat(FloatToHalfBits(static_cast<float>(v)));
    case kf::DType::kBFloat16: return BFloat16BitsToFloat(FloatToBFloat16Bits(static_cast<float>(v)));
    default: return v;
  }
}

/// An immediate or a scalar argument as a Value of dtype |t|.
Value MakeInt(kf::DType t, int64_t v);
Value MakeFloat(kf::DType t, double v);

/// Integer /, floordiv and floormod (throw KernelError when |b| is 0).
int64_t DivideInt(kf::BinaryOp op, kf::DType t, int64_t a, int64_t b);

/// a op b for operands of dtype |t|, except && and || (which the interpreter short-circuits).
/// Integers wrap; integer division by zero throws KernelError. Floats compute in double and
/// round to |t| after the operation (exact for + - * / of float32 and narrower); min and max
/// propagate NaN (like PyTorch's maximum and relu).
RXT_REFERENCE_INLINE Value ApplyBinary(kf::BinaryOp op, kf::DType t, Value a, Value b) {
  using kf::BinaryOp;
  if (kf::IsFloat(t)) {
    double x = a.f, y = b.f;
    switch (op) {
      case BinaryOp::kAdd: return FloatValue(RoundFloat(t, x + y));
      case BinaryOp::kSub: return FloatValue(RoundFloat(t, x - y));
      case BinaryOp::kMul: return FloatValue(RoundFloat(t, x * y));
      case BinaryOp::kDiv: return FloatValue(RoundFloat(t, x / y));
      // floor(a / b) and a - floor(a / b) * b, each step rounded to the dtype as if written out.
      case BinaryOp::kFloorDiv: return FloatValue(std::floor(RoundFloat(t, x / y)));
      case BinaryOp::kFloorMod:
        return FloatValue(RoundFloat(t, x - RoundFloat(t, std::floor(RoundFloat(t, x / y)) * y)));
      case BinaryOp::kMin:
        return FloatValue(std::isnan(x) || std::isnan(y) ? std::numeric_limits<double>::quiet_NaN() : (x < y ? x : y));
      case BinaryOp::kMax:
        return FloatValue(std::isnan(x) || std::isnan(y) ? std::numeric_limits<double>::quiet_NaN() : (x > y ? x : y));
      case BinaryOp::kEq: return BoolValue(x == y);
      case BinaryOp::kNe: return BoolValue(x != y);
      case BinaryOp::kLt: return BoolValue(x < y);
      case BinaryOp::kLe: return BoolValue(x <= y);
      case BinaryOp::kGt: return BoolValue(x > y);
      case BinaryOp::kGe: return BoolValue(x >= y);
      case BinaryOp::kAnd:
      case BinaryOp::kOr: break;  // bool operands only
    }
    return FloatValue(std::numeric_limits<double>::quiet_NaN());
  }
  int64_t x = a.i, y = b.i;
  uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  switch (op) {
    case BinaryOp::kAdd: return IntValue(WrapInt(t, ux + uy));
    case BinaryOp::kSub: return IntValue(WrapInt(t, ux - uy));
    case BinaryOp::kMul: return IntValue(WrapInt(t, ux * uy));
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: return IntValue(DivideInt(op, t, x, y));
    case BinaryOp::kMin: return IntValue(x < y ? x : y);
    case BinaryOp::kMax: return IntValue(x > y ? x : y);
    case BinaryOp::kEq: return BoolValue(x == y);
    case BinaryOp::kNe: return BoolValue(x != y);
    case BinaryOp::kLt: return BoolValue(x < y);
    case BinaryOp::kLe: return BoolValue(x <= y);
    case BinaryOp::kGt: return BoolValue(x > y);
    case BinaryOp::kGe: return BoolValue(x >= y);
    case BinaryOp::kAnd: return BoolValue(x != 0 && y != 0);
    case BinaryOp::kOr: return BoolValue(x != 0 || y != 0);
  }
  return IntValue(0);
}

/// Converts |x| from dtype |from| to dtype |to|. Float to int truncates toward zero and
/// saturates (NaN gives 0); to bool is "not zero".
Value ApplyCast(kf::DType to, kf::DType from, Value x);
/// An intrinsic on arguments of dtype |t| (arity 1 or 2: |args| holds them). Float16 and
/// bfloat16 compute in float.
Value ApplyIntrinsic(kf::Intrinsic f, kf::DType t, const Value* args);

/// Bytes of one element.
inline int ElementBytes(kf::DType t) { return kf::DTypeBits(t) / 8; }

/// Reads or writes one element of dtype |t| at |p| (no alignment needed).
RXT_REFERENCE_INLINE Value LoadScalar(kf::DType t, const uint8_t* p) {
  auto read = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (t) {
    case kf::DType::kFloat32: return FloatValue(read(float{}));
    case kf::DType::kFloat64: return FloatValue(read(double{}));
    case kf::DType::kFloat16: return FloatValue(HalfBitsToFloat(read(uint16_t{})));
    case kf::DType::kBFloat16: return FloatValue(BFloat16BitsToFloat(read(uint16_t{})));
    case kf::DType::kInt8: return IntValue(read(int8_t{}));
    case kf::DType::kInt16: return IntValue(read(int16_t{}));
    case kf::DType::kInt32: return IntValue(read(int32_t{}));
    case kf::DType::kInt64: return IntValue(read(int64_t{}));
    case kf::DType::kUInt8: return IntValue(read(uint8_t{}));
    case kf::DType::kBool: return BoolValue(read(uint8_t{}) != 0);
    case kf::DType::kUnknown: break;
  }
  return IntValue(0);
}

RXT_REFERENCE_INLINE void StoreScalar(kf::DType t, uint8_t* p, Value v) {
  auto write = [p](auto x) { std::memcpy(p, &x, sizeof x); };
  switch (t) {
    case kf::DType::kFloat32: return write(static_cast<float>(v.f));
    case kf::DType::kFloat64: return write(v.f);
    case kf::DType::kFloat16: return write(FloatToHalfBits(static_cast<float>(v.f)));
    case kf::DType::kBFloat16: return write(FloatToBFloat16Bits(static_cast<float>(v.f)));
    case kf::DType::kInt8: return write(static_cast<int8_t>(v.i));
    case kf::DType::kInt16: return write(static_cast<int16_t>(v.i));
    case kf::DType::kInt32: return write(static_cast<int32_t>(v.i));
    case kf::DType::kInt64: return write(v.i);
    case kf::DType::kUInt8: return write(static_cast<uint8_t>(v.i));
    case kf::DType::kBool: return write(static_cast<uint8_t>(v.i != 0 ? 1 : 0));
    case kf::DType::kUnknown: break;
  }
}

}  // namespace rxt::backend_reference
