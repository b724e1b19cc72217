/// Legalization of the elementwise ops: unary math, broadcasting arithmetic and comparisons,
/// where, astype, clip. Every one is a single compute over the broadcast result shape.
#include <cmath>

#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;
using UnaryFn = std::function<PrimExpr(const PrimExpr& x)>;
using BinaryFn = std::function<PrimExpr(const PrimExpr& a, const PrimExpr& b)>;

FLegalize Unary(UnaryFn fn, bool numeric_only = true) {
  return [fn, numeric_only](LegalizeContext& context, const CallNode& call) {
    if (numeric_only) RequireNumeric(call, OutputOf(call).dtype);
    return LegalizeElementwise(context, call, [&](const std::vector<PrimExpr>& v) { return fn(v[0]); });
  };
}

FLegalize Arithmetic(BinaryFn fn) {
  return [fn](LegalizeContext& context, const CallNode& call) {
    RequireNumeric(call, OutputOf(call).dtype);
    return LegalizeElementwise(context, call, [&](const std::vector<PrimExpr>& v) { return fn(v[0], v[1]); });
  };
}

// Comparisons of bool operands compare them as integers (the kernel format orders numbers).
FLegalize Comparison(BinaryOp op) {
  return [op](LegalizeContext& context, const CallNode& call) {
    return LegalizeElementwise(context, call, [&](const std::vector<PrimExpr>& v) {
      auto operand = [](const PrimExpr& x) { return x->dtype == DType::kBool ? Cast(DType::kInt8, x) : x; };
      return MakeBinary(op, operand(v[0]), operand(v[1]));
    });
  };
}

PrimExpr Power(const PrimExpr& a, const PrimExpr& b) {
  if (IsFloat(a->dtype)) return MakeIntrinsic("pow", {a, b});
  // Integers: through float64, which is exact for every result an int64 can hold below 2^53.
  return Cast(a->dtype, MakeIntrinsic("pow", {Cast(DType::kFloat64, a), Cast(DType::kFloat64, b)}));
}

/// power(x, c) with a float exponent c known at compile time (a constant holding one value,
/// e.g. LayerNorm written out as exporters do: pow(x - mean, 2)) of 2, 1, -1 or 0.5: x * x,
/// x, 1 / x or sqrt(x), each correctly rounded (glibc's powf is not always) and a multiplication
/// or an instruction per element instead of a libm call. sqrt(x) + 0 gives pow's +0 for -0,
/// and pow(-inf, 0.5) is +inf where sqrt gives NaN. Null for any other power.
std::function<PrimExpr(const PrimExpr& x)> PowerOfKnownExponent(LegalizeContext& context, const CallNode& call) {
  DType dtype = OutputOf(call).dtype;
  const ConstantNode* exponent = context.KnownConstant(call.args[1]);
  if (!IsFloat(dtype) || infer::TensorArg(call, 0).dtype != dtype || exponent == nullptr ||
      exponent->data.numel() != 1) {
    return nullptr;
  }
  double e = exponent->data.GetAsDouble(0);
  if (e == 2) return [](const PrimExpr& x) { return x * x; };
  if (e == 1) return [](const PrimExpr& x) { return x; };
  if (e == -1) return [](const PrimExpr& x) { return Div(One(x->dtype), x); };
  if (e == 0.5) {
    return [](const PrimExpr& x) {
      return Select(Eq(x, Const(-INFINITY, x->dtype)), Const(INFINITY, x->dtype), Call("sqrt", x) + Zero(x->dtype));
    };
  }
  return nullptr;
}

Expr LegalizePower(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  auto power = PowerOfKnownExponent(context, call);
  if (!power) {
    return LegalizeElementwise(context, call, [&](const std::vector<PrimExpr>& v) { return Power(v[0], v[1]); });
  }
  KernelCall k(call);
  TensorRef x = k.Tensor(0);  // the exponent is not a parameter of the kernel
  TensorRef result = k.builder().Compute("power", out.shape, [&](const Index& i) {
    return power(x(BroadcastIndex(i, out.shape, x.shape())));
  });
  return k.Finish(context, {result});
}

/// C's fmod: the remainder of the division truncated toward zero (integer division truncates;
/// a float quotient is truncated with floor or ceil by its sign).
PrimExpr TruncMod(const PrimExpr& a, const PrimExpr& b) {
  if (!IsFloat(a->dtype)) return a - Div(a, b) * b;
  PrimExpr q = Div(a, b);
  return a - Select(Lt(q, Zero(q->dtype)), Call("ceil", q), Call("floor", q)) * b;
}

Expr LegalizeAbs(LegalizeContext& context, const CallNode& call) {
  DType dtype = OutputOf(call).dtype;
  return LegalizeElementwise(context, call, [&](const std::vector<PrimExpr>& v) {
    return dtype == DType::kBool || IsUnsigned(dtype) ? v[0] : Call("abs", v[0]);
  });
}

Expr LegalizeAstype(LegalizeContext& context, const CallNode& call) {
  return LegalizeElementwise(context, call, [&](const std::vector<PrimExpr>& v) { return v[0]; });  // cast to out
}

// Integer bounds round inwards: clip(x, -0.5, 2.5) on ints is clip(x, 0, 2).
Expr LegalizeClip(LegalizeContext& context, const CallNode& call) {
  DType dtype = OutputOf(call).dtype;
  RequireNumeric(call, dtype);
  double lo = infer::FloatAttr(call, "min"), hi = infer::FloatAttr(call, "max");
  if (!IsFloat(dtype)) {
    lo = std::ceil(lo);
    hi = std::floor(hi);
  }
  return LegalizeElementwise(context, call, [&](const std::vector<PrimExpr>& v) {
    return Min(Max(v[0], Const(lo, dtype)), Const(hi, dtype));
  });
}

}  // namespace

void RegisterElementwiseLegalizations(OpRegistry& r) {
  SetLegalization(r, "negative", Unary([](const PrimExpr& x) { return Call("neg", x); }));
  SetLegalization(r, "abs", LegalizeAbs);
  for (const char* name : {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "sin", "cos",
                           "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"}) {
    std::string intrinsic = name;
    SetLegalization(r, name, Unary([intrinsic](const PrimExpr& x) { return Call(intrinsic, x); }));
  }
  SetLegalization(r, "add", Arithmetic([](const PrimExpr& a, const PrimExpr& b) { return a + b; }));
  SetLegalization(r, "subtract", Arithmetic([](const PrimExpr& a, const PrimExpr& b) { return a - b; }));
  SetLegalization(r, "multiply", Arithmetic([](const PrimExpr& a, const PrimExpr& b) { return a * b; }));
  SetLegalization(r, "divide", Arithmetic(Div));
  SetLegalization(r, "power", LegalizePower);
  SetLegalization(r, "maximum", Arithmetic(Max));
  SetLegalization(r, "minimum", Arithmetic(Min));
  SetLegalization(r, "mod", Arithmetic(FloorMod));
  SetLegalization(r, "fmod", Arithmetic(TruncMod));
  SetLegalization(r, "sign", Unary([](const PrimExpr& x) {
    return Select(Gt(x, Zero(x->dtype)), One(x->dtype), Select(Lt(x, Zero(x->dtype)), Const(-1, x->dtype), Zero(x->dtype)));
  }));
  SetLegalization(r, "equal", Comparison(BinaryOp::kEq));
  SetLegalization(r, "not_equal", Comparison(BinaryOp::kNe));
  SetLegalization(r, "less", Comparison(BinaryOp::kLt));
  SetLegalization(r, "less_equal", Comparison(BinaryOp::kLe));
  SetLegalization(r, "greater", Comparison(BinaryOp::kGt));
  SetLegalization(r, "greater_equal", Comparison(BinaryOp::kGe));
  SetLegalization(r, "where", [](LegalizeContext& context, const CallNode& call) {
    return LegalizeElementwise(context, call,
                               [](const std::vector<PrimExpr>& v) { return Select(v[0], v[1], v[2]); });
  });
  SetLegalization(r, "astype", LegalizeAstype);
  SetLegalization(r, "clip", LegalizeClip);
}

}  // namespace rxt::legalize
