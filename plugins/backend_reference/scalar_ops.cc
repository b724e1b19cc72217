#include "scalar_ops.h"

#include "kernel_error.h"

namespace rxt::backend_reference {
namespace {

using kf::BinaryOp;
using kf::DType;
using kf::Intrinsic;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t FloorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// Float to integer: truncate toward zero, saturate, NaN -> 0 (C++ leaves these undefined).
int64_t SaturatingTruncate(DType t, double v) {
  if (std::isnan(v)) return 0;
  double lo, hi;
  switch (t) {
    case DType::kInt8: lo = -128, hi = 127; break;
    case DType::kInt16: lo = -32768, hi = 32767; break;
    case DType::kInt32: lo = -2147483648.0, hi = 2147483647.0; break;
    case DType::kUInt8: lo = 0, hi = 255; break;
    default:  // int64: its bounds are not all doubles, so compare against 2^63
      if (v >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
      if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
      return static_cast<int64_t>(std::trunc(v));
  }
  double r = std::trunc(v);
  return static_cast<int64_t>(r < lo ? lo : r > hi ? hi : r);
}

double IntToFloat(DType t, int64_t v) {
  if (t == DType::kFloat64) return static_cast<double>(v);
  return RoundFloat(t, static_cast<float>(v));  // rounded once to float, then (16-bit) again
}

template <typename T>
T FloatIntrinsic(Intrinsic f, T x, T y) {
  switch (f) {
    case Intrinsic::kExp: return std::exp(x);
    case Intrinsic::kLog: return std::log(x);
    case Intrinsic::kSqrt: return std::sqrt(x);
    case Intrinsic::kRsqrt: return T(1) / std::sqrt(x);
    case Intrinsic::kTanh: return std::tanh(x);
    case Intrinsic::kSigmoid: return T(1) / (T(1) + std::exp(-x));
    case Intrinsic::kAbs: return std::fabs(x);
    case Intrinsic::kNeg: return -x;
    case Intrinsic::kErf: return std::erf(x);
    case Intrinsic::kFloor: return std::floor(x);
    case Intrinsic::kCeil: return std::ceil(x);
    case Intrinsic::kRound: return std::nearbyint(x);  // half to even
    case Intrinsic::kPow: return std::pow(x, y);
    case Intrinsic::kSin: return std::sin(x);
    case Intrinsic::kCos: return std::cos(x);
    case Intrinsic::kTan: return std::tan(x);
    case Intrinsic::kAsin: return std::asin(x);
    case Intrinsic::kAcos: return std::acos(x);
    case Intrinsic::kAtan: return std::atan(x);
    case Intrinsic::kSinh: return std::sinh(x);
    case Intrinsic::kCosh: return std::cosh(x);
    case Intrinsic::kAsinh: return std::asinh(x);
    case Intrinsic::kAcosh: return std::acosh(x);
    case Intrinsic::kAtanh: return std::atanh(x);
    case Intrinsic::kIsNan: break;  // handled by the caller
  }
  return x;
}

}  // namespace

int64_t DivideInt(BinaryOp op, DType t, int64_t a, int64_t b) {
  if (b == 0) throw KernelError(std::string("integer division by zero (") + kf::BinaryOpName(op) + ")");
  // Division by -1 is negation: a / -1 overflows for the most negative int64.
  if (b == -1) return op == BinaryOp::kFloorMod ? 0 : WrapInt(t, uint64_t{0} - static_cast<uint64_t>(a));
  switch (op) {
    case BinaryOp::kDiv: return WrapInt(t, static_cast<uint64_t>(a / b));
    case BinaryOp::kFloorDiv: return WrapInt(t, static_cast<uint64_t>(FloorDiv(a, b)));
    default: return FloorMod(a, b);
  }
}

Value MakeInt(DType t, int64_t v) {
  if (kf::IsFloat(t)) return FloatValue(IntToFloat(t, v));
  return IntValue(WrapInt(t, static_cast<uint64_t>(v)));
}

Value MakeFloat(DType t, double v) {
  if (kf::IsFloat(t)) return FloatValue(RoundFloat(t, v));
  if (t == DType::kBool) return BoolValue(v != 0);
  return IntValue(SaturatingTruncate(t, v));
}

Value ApplyCast(DType to, DType from, Value x) {
  if (kf::IsFloat(from)) return MakeFloat(to, x.f);
  return MakeInt(to, x.i);
}

Value ApplyIntrinsic(Intrinsic f, DType t, const Value* args) {
  if (f == Intrinsic::kIsNan) return BoolValue(kf::IsFloat(t) && std::isnan(args[0].f));
  if (!kf::IsFloat(t)) {  // abs, neg, floor, ceil, round of an integer
    int64_t x = args[0].i;
    if (f == Intrinsic::kNeg || (f == Intrinsic::kAbs && x < 0)) {
      return IntValue(WrapInt(t, uint64_t{0} - static_cast<uint64_t>(x)));
    }
    return args[0];
  }
  double y = kf::IntrinsicArity(f) == 2 ? args[1].f : 0.0;
  if (t == DType::kFloat64) return FloatValue(FloatIntrinsic<double>(f, args[0].f, y));
  float r = FloatIntrinsic<float>(f, static_cast<float>(args[0].f), static_cast<float>(y));
  return FloatValue(RoundFloat(t, r));
}

}  // namespace rxt::backend_reference
