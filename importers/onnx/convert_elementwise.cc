// Elementwise ops: activations, arithmetic with NumPy broadcasting, comparisons, Where, Clip,
// Cast. Activations without an rxt op of their own are written as the formula ONNX defines them
// by, so their gradients come from the ops they are made of.
#include <cmath>
#include <limits>

#include "convert_util.h"
#include "converters.h"
#include "tensor_data.h"

namespace rxt::import_onnx {
namespace {

/// A converter for an op that maps onto one rxt op with the same inputs.
template <const char* kOp>
void Direct(NodeContext& ctx) {
  std::vector<std::string> args;
  for (int i = 0; i < ctx.num_inputs(); ++i) args.push_back(ctx.expr(i));
  ctx.set_output(0, Call(kOp, args));
}

constexpr char kRelu[] = "nn.relu", kSigmoid[] = "sigmoid", kTanh[] = "tanh", kExp[] = "exp", kLog[] = "log",
               kSqrt[] = "sqrt", kNeg[] = "negative", kAbs[] = "abs", kErf[] = "erf", kAdd[] = "add",
               kSub[] = "subtract", kMul[] = "multiply", kDiv[] = "divide", kEqual[] = "equal", kLess[] = "less",
               kGreater[] = "greater", kLessEq[] = "less_equal", kGreaterEq[] = "greater_equal", kWhere[] = "where",
               kSign[] = "sign";

/// The floating-point input 0, or an unsupported-node failure (integer activations).
std::string FloatInput(NodeContext& ctx) {
  if (!IsFloatType(ctx.type(0).dtype)) ctx.unsupported(ctx.op() + " on " + ctx.dtype(0));
  return ctx.expr(0);
}

void Identity(NodeContext& ctx) { ctx.set_output(0, ctx.expr(0)); }

/// Floor, Ceil, Round (floating point only, as ONNX defines them).
template <const char* kOp>
void FloatUnary(NodeContext& ctx) {
  ctx.set_output(0, Call(kOp, {FloatInput(ctx)}));
}
constexpr char kFloor[] = "floor", kCeil[] = "ceil", kRound[] = "round", kSin[] = "sin", kCos[] = "cos", kTan[] = "tan",
               kAsin[] = "asin", kAcos[] = "acos", kAtan[] = "atan", kSinh[] = "sinh", kCosh[] = "cosh",
               kAsinh[] = "asinh", kAcosh[] = "acosh", kAtanh[] = "atanh";

/// Mod: fmod=0 takes the divisor's sign (Python's %), fmod=1 the dividend's (C's fmod).
void Mod(NodeContext& ctx) {
  bool fmod = ctx.attr_int("fmod", 0) != 0;
  if (!fmod && IsFloatType(ctx.type(0).dtype)) ctx.unsupported("Mod with fmod=0 on floating point (ONNX requires fmod=1)");
  ctx.set_output(0, Call(fmod ? "fmod" : "mod", {ctx.expr(0), ctx.expr(1)}));
}

void Reciprocal(NodeContext& ctx) {
  std::string x = FloatInput(ctx);
  ctx.set_output(0, Call("divide", {ctx.scalar_const(1, ctx.dtype(0)), x}));
}

void Softplus(NodeContext& ctx) {
  // log(1 + exp(x)) overflows for large x: max(x, 0) + log(1 + exp(-|x|)) does not.
  std::string x = FloatInput(ctx), dt = ctx.dtype(0);
  std::string tail = ctx.bind(Call("log", {Call("add", {Call("exp", {Call("negative", {Call("abs", {x})})}), ctx.scalar_const(1, dt)})}));
  ctx.set_output(0, Call("add", {Call("nn.relu", {x}), tail}));
}

void Softsign(NodeContext& ctx) {
  std::string x = FloatInput(ctx);
  ctx.set_output(0, Call("divide", {x, Call("add", {Call("abs", {x}), ctx.scalar_const(1, ctx.dtype(0))})}));
}

/// where(x < 0, negative_part, x).
void NegativePart(NodeContext& ctx, const std::string& x, const std::string& negative_part) {
  std::string below = ctx.bind(Call("less", {x, ctx.scalar_const(0, ctx.dtype(0))}));
  ctx.set_output(0, Call("where", {below, negative_part, x}));
}

void LeakyRelu(NodeContext& ctx) {
  std::string x = FloatInput(ctx);
  NegativePart(ctx, x, Call("multiply", {x, ctx.scalar_const(ctx.attr_float("alpha", 0.01f), ctx.dtype(0))}));
}

void PRelu(NodeContext& ctx) {
  std::string x = FloatInput(ctx), slope = ctx.expr(1);
  // Before opset 7 a 1-D slope went to the channels (dim 1); the version converter leaves it as
  // it was, where NumPy broadcasting would put it on the last dim (and fail).
  const TypeInfo& xt = ctx.type(0);
  const TypeInfo& st = ctx.type(1);
  if (xt.has_shape && st.has_shape && xt.rank() >= 3 && st.rank() == 1 && st.dims[0].is_static() &&
      xt.dims[1].is_static() && st.dims[0].value == xt.dims[1].value && st.dims[0].value != 1 &&
      !(xt.dims.back().is_static() && xt.dims.back().value == st.dims[0].value)) {
    std::vector<int64_t> axes;
    for (int k = 1; k + 1 < xt.rank(); ++k) axes.push_back(k);
    slope = ctx.bind(Call("expand_dims", {slope}, "axis=" + IntList(axes)));
  }
  NegativePart(ctx, x, ctx.bind(Call("multiply", {x, slope})));
}

void Elu(NodeContext& ctx) {
  std::string x = FloatInput(ctx), dt = ctx.dtype(0);
  std::string em1 = ctx.bind(Call("subtract", {Call("exp", {x}), ctx.scalar_const(1, dt)}));
  NegativePart(ctx, x, Call("multiply", {em1, ctx.scalar_const(ctx.attr_float("alpha", 1.0f), dt)}));
}

void Selu(NodeContext& ctx) {
  std::string x = FloatInput(ctx), dt = ctx.dtype(0);
  const float alpha = ctx.attr_float("alpha", 1.67326319217681884765625f);
  const float gamma = ctx.attr_float("gamma", 1.05070102214813232421875f);
  std::string em1 = ctx.bind(Call("subtract", {Call("exp", {x}), ctx.scalar_const(1, dt)}));
  std::string below = ctx.bind(Call("less_equal", {x, ctx.scalar_const(0, dt)}));
  std::string inner = ctx.bind(Call("where", {below, Call("multiply", {em1, ctx.scalar_const(alpha, dt)}), x}));
  ctx.set_output(0, Call("multiply", {inner, ctx.scalar_const(gamma, dt)}));
}

void Celu(NodeContext& ctx) {
  std::string x = FloatInput(ctx), dt = ctx.dtype(0);
  const float alpha = ctx.attr_float("alpha", 1.0f);
  std::string scaled = ctx.bind(Call("divide", {x, ctx.scalar_const(alpha, dt)}));
  std::string neg = ctx.bind(Call("multiply", {Call("subtract", {Call("exp", {scaled}), ctx.scalar_const(1, dt)}),
                                               ctx.scalar_const(alpha, dt)}));
  ctx.set_output(0, Call("add", {Call("nn.relu", {x}), Call("minimum", {neg, ctx.scalar_const(0, dt)})}));
}

void ThresholdedRelu(NodeContext& ctx) {
  std::string x = FloatInput(ctx), dt = ctx.dtype(0);
  std::string above = ctx.bind(Call("greater", {x, ctx.scalar_const(ctx.attr_float("alpha", 1.0f), dt)}));
  ctx.set_output(0, Call("where", {above, x, ctx.scalar_const(0, dt)}));
}

std::string HardSigmoidOf(NodeContext& ctx, const std::string& x, float alpha, float beta) {
  std::string dt = ctx.dtype(0);
  std::string affine = ctx.bind(Call("add", {Call("multiply", {x, ctx.scalar_const(alpha, dt)}), ctx.scalar_const(beta, dt)}));
  return Call("clip", {affine}, "min=0, max=1");
}

void HardSigmoid(NodeContext& ctx) {
  std::string x = FloatInput(ctx);
  ctx.set_output(0, HardSigmoidOf(ctx, x, ctx.attr_float("alpha", 0.2f), ctx.attr_float("beta", 0.5f)));
}

void HardSwish(NodeContext& ctx) {
  std::string x = FloatInput(ctx);
  std::string gate = ctx.bind(HardSigmoidOf(ctx, x, 1.0f / 6, 0.5f));
  ctx.set_output(0, Call("multiply", {x, gate}));
}

void Mish(NodeContext& ctx) {
  std::string x = FloatInput(ctx), dt = ctx.dtype(0);
  std::string tail = ctx.bind(Call("log", {Call("add", {Call("exp", {Call("negative", {Call("abs", {x})})}), ctx.scalar_const(1, dt)})}));
  std::string softplus = ctx.bind(Call("add", {Call("nn.relu", {x}), tail}));
  ctx.set_output(0, Call("multiply", {x, Call("tanh", {softplus})}));
}

void Pow(NodeContext& ctx) {
  std::string base = ctx.expr(0), exponent = ctx.expr(1);
  if (ctx.type(1).dtype != ctx.type(0).dtype) exponent = Call("astype", {exponent}, "dtype=" + ctx.dtype(0));
  ctx.set_output(0, Call("power", {base, exponent}));
}

/// Max, Min, Sum, Mean of any number of inputs, broadcast.
void Variadic(NodeContext& ctx, const std::string& op) {
  std::string acc = ctx.expr(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    std::string next = Call(op, {acc, ctx.expr(i)});
    acc = i + 1 < ctx.num_inputs() ? ctx.bind(next) : next;
  }
  return ctx.set_output(0, acc);
}

void Max(NodeContext& ctx) { Variadic(ctx, "maximum"); }
void Min(NodeContext& ctx) { Variadic(ctx, "minimum"); }
void Sum(NodeContext& ctx) { Variadic(ctx, "add"); }

void Mean(NodeContext& ctx) {
  if (ctx.num_inputs() == 1) return ctx.set_output(0, ctx.expr(0));
  std::string acc = ctx.expr(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) acc = ctx.bind(Call("add", {acc, ctx.expr(i)}));
  ctx.set_output(0, Call("divide", {acc, ctx.scalar_const(ctx.num_inputs(), ctx.dtype(0))}));
}

void Not(NodeContext& ctx) { ctx.set_output(0, Call("equal", {ctx.expr(0), "const(false, bool)"})); }

void And(NodeContext& ctx) { ctx.set_output(0, Call("where", {ctx.expr(0), ctx.expr(1), "const(false, bool)"})); }
void Or(NodeContext& ctx) { ctx.set_output(0, Call("where", {ctx.expr(0), "const(true, bool)", ctx.expr(1)})); }
void Xor(NodeContext& ctx) { ctx.set_output(0, Call("not_equal", {ctx.expr(0), ctx.expr(1)})); }

/// NaN is the one value not equal to itself.
void IsNaN(NodeContext& ctx) {
  std::string x = ctx.expr(0);
  ctx.set_output(0, Call("not_equal", {x, x}));
}

void IsInf(NodeContext& ctx) {
  std::string x = FloatInput(ctx), dt = ctx.dtype(0);
  const bool negative = ctx.attr_int("detect_negative", 1) != 0, positive = ctx.attr_int("detect_positive", 1) != 0;
  const double inf = std::numeric_limits<double>::infinity();
  if (negative && positive) return ctx.set_output(0, Call("equal", {ctx.bind(Call("abs", {x})), ctx.scalar_const(inf, dt)}));
  if (positive) return ctx.set_output(0, Call("equal", {x, ctx.scalar_const(inf, dt)}));
  if (negative) return ctx.set_output(0, Call("equal", {x, ctx.scalar_const(-inf, dt)}));
  ctx.set_output(0, Call("astype", {ctx.bind(Call("zeros_like", {x}))}, "dtype=bool"));
}

void Shrink(NodeContext& ctx) {
  std::string x = ctx.expr(0), dt = ctx.dtype(0);
  const float lambd = ctx.attr_float("lambd", 0.5f), bias = ctx.attr_float("bias", 0.0f);
  std::string low = ctx.bind(Call("less", {x, ctx.scalar_const(-lambd, dt)}));
  std::string high = ctx.bind(Call("greater", {x, ctx.scalar_const(lambd, dt)}));
  std::string upper = ctx.bind(Call("where", {high, Call("subtract", {x, ctx.scalar_const(bias, dt)}), ctx.scalar_const(0, dt)}));
  ctx.set_output(0, Call("where", {low, Call("add", {x, ctx.scalar_const(bias, dt)}), upper}));
}

void Clip(NodeContext& ctx) {
  std::string x = ctx.expr(0);
  const Constant* low = ctx.known(1);
  const Constant* high = ctx.known(2);
  const bool known = (!ctx.has_input(1) || low != nullptr) && (!ctx.has_input(2) || high != nullptr);
  if (known && IsFloatType(ctx.type(0).dtype)) {
    auto bound = [&](const Constant* c, double fallback) {
      return NumberText(c == nullptr ? fallback : c->as_double(0), onnx::TensorProto::DOUBLE);
    };
    const double inf = std::numeric_limits<double>::infinity();
    std::string lo = bound(low, -inf), hi = bound(high, inf);
    return ctx.set_output(0, Call("clip", {x}, "min=" + lo + ", max=" + hi));
  }
  // Bounds known only at run time, or integers: minimum then maximum (ONNX: max(min(x, hi), lo)).
  std::string result = x;
  if (ctx.has_input(2)) result = ctx.bind(Call("minimum", {result, ctx.expr(2)}));
  if (ctx.has_input(1)) result = Call("maximum", {result, ctx.expr(1)});
  ctx.set_output(0, result);
}

void Cast(NodeContext& ctx) {
  const char* to = RxtDType(static_cast<int>(ctx.attr_int("to", 0)));
  if (to == nullptr) ctx.unsupported("Cast to element type " + std::to_string(ctx.attr_int("to", 0)));
  ctx.set_output(0, Call("astype", {ctx.expr(0)}, std::string("dtype=") + to));
}

void CastLike(NodeContext& ctx) { ctx.set_output(0, Call("astype", {ctx.expr(0)}, "dtype=" + ctx.dtype(1))); }

}  // namespace

void AddElementwiseConverters(ConverterMap& map) {
  map["Relu"] = &Direct<kRelu>;
  map["Sigmoid"] = &Direct<kSigmoid>;
  map["Tanh"] = &Direct<kTanh>;
  map["Exp"] = &Direct<kExp>;
  map["Log"] = &Direct<kLog>;
  map["Sqrt"] = &Direct<kSqrt>;
  map["Neg"] = &Direct<kNeg>;
  map["Abs"] = &Direct<kAbs>;
  map["Erf"] = &Direct<kErf>;
  map["Floor"] = &FloatUnary<kFloor>;
  map["Ceil"] = &FloatUnary<kCeil>;
  map["Round"] = &FloatUnary<kRound>;
  map["Sin"] = &FloatUnary<kSin>;
  map["Cos"] = &FloatUnary<kCos>;
  map["Tan"] = &FloatUnary<kTan>;
  map["Asin"] = &FloatUnary<kAsin>;
  map["Acos"] = &FloatUnary<kAcos>;
  map["Atan"] = &FloatUnary<kAtan>;
  map["Sinh"] = &FloatUnary<kSinh>;
  map["Cosh"] = &FloatUnary<kCosh>;
  map["Asinh"] = &FloatUnary<kAsinh>;
  map["Acosh"] = &FloatUnary<kAcosh>;
  map["Atanh"] = &FloatUnary<kAtanh>;
  map["Sign"] = &Direct<kSign>;
  map["Mod"] = &Mod;
  map["Add"] = &Direct<kAdd>;
  map["Sub"] = &Direct<kSub>;
  map["Mul"] = &Direct<kMul>;
  map["Div"] = &Direct<kDiv>;
  map["Equal"] = &Direct<kEqual>;
  map["Less"] = &Direct<kLess>;
  map["Greater"] = &Direct<kGreater>;
  map["LessOrEqual"] = &Direct<kLessEq>;
  map["GreaterOrEqual"] = &Direct<kGreaterEq>;
  map["Where"] = &Direct<kWhere>;
  map["Identity"] = &Identity;
  map["Reciprocal"] = &Reciprocal;
  map["Softplus"] = &Softplus;
  map["Softsign"] = &Softsign;
  map["LeakyRelu"] = &LeakyRelu;
  map["PRelu"] = &PRelu;
  map["Elu"] = &Elu;
  map["Selu"] = &Selu;
  map["Celu"] = &Celu;
  map["ThresholdedRelu"] = &ThresholdedRelu;
  map["HardSigmoid"] = &HardSigmoid;
  map["HardSwish"] = &HardSwish;
  map["Mish"] = &Mish;
  map["Pow"] = &Pow;
  map["Max"] = &Max;
  map["Min"] = &Min;
  map["Sum"] = &Sum;
  map["Mean"] = &Mean;
  map["Not"] = &Not;
  map["Clip"] = &Clip;
  map["And"] = &And;
  map["Or"] = &Or;
  map["Xor"] = &Xor;
  map["IsNaN"] = &IsNaN;
  map["IsInf"] = &IsInf;
  map["Shrink"] = &Shrink;
  map["Cast"] = &Cast;
  map["CastLike"] = &CastLike;
}

}  // namespace rxt::import_onnx
