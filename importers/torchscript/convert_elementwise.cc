// Elementwise aten ops: activations, arithmetic (with alpha), comparisons, clamps, where, casts.
#include <cmath>

#include "converters.h"

namespace rxt::import_torchscript {
namespace {

std::string DTypeOfCode(NodeContext& ctx, int64_t code);

/// One rxt op on input 0, or a formula of it.
void Unary(NodeContext& ctx, const std::string& op) {
  ctx.set_tensor(0, Call(op, {ctx.tensor(0)}), ctx.dims(0), ctx.dtype(0));
}

void UnaryOp(NodeContext& ctx) {
  static const std::map<std::string, std::string> kOps = {
      {"relu", "nn.relu"}, {"sigmoid", "sigmoid"}, {"tanh", "tanh"},    {"exp", "exp"},          {"log", "log"},
      {"sqrt", "sqrt"},    {"rsqrt", "rsqrt"},     {"neg", "negative"}, {"abs", "abs"},          {"erf", "erf"},
      {"silu", "nn.silu"}, {"sin", "sin"},         {"cos", "cos"},      {"floor", "floor"},      {"ceil", "ceil"},
      {"round", "round"},  {"sign", "sign"},       {"tan", "tan"},      {"negative", "negative"}};
  const std::string name = ctx.kind().substr(ctx.kind().find("::") + 2);
  if (ctx.input(0).is_known_number() && !ctx.input(0).scalar_tensor) {  // math.sqrt(head_dim)...
    const double x = ctx.input(0).number;
    static const std::map<std::string, double (*)(double)> kMath = {
        {"sqrt", [](double v) { return std::sqrt(v); }}, {"exp", [](double v) { return std::exp(v); }},
        {"log", [](double v) { return std::log(v); }},   {"floor", [](double v) { return std::floor(v); }},
        {"ceil", [](double v) { return std::ceil(v); }}, {"abs", [](double v) { return std::abs(v); }},
        {"neg", [](double v) { return -v; }}};
    auto it = kMath.find(name);
    if (it == kMath.end()) ctx.unsupported(name + " of a number");
    const double r = it->second(x);
    const bool to_int = name == "floor" || name == "ceil" || ((name == "abs" || name == "neg") && ctx.input(0).kind == Kind::kInt);
    if (to_int && !(std::abs(r) <= 9.0e15)) ctx.unsupported(name + " beyond 2^53");
    return ctx.set_output(0, to_int ? Value::Int(static_cast<int64_t>(r)) : Value::Float(r));
  }
  Unary(ctx, kOps.at(name));
}

/// x op scalar const of x's dtype, as a fresh local.
std::string WithScalar(NodeContext& ctx, const std::string& op, const std::string& x, double value) {
  return ctx.bind(Call(op, {x, NodeContext::scalar_const(value, ctx.dtype(0))}));
}

void Gelu(NodeContext& ctx) {
  const std::string approximate =
      ctx.num_inputs() > 1 && ctx.input(1).kind == Kind::kString ? ctx.input(1).text : "none";
  if (approximate == "none") return Unary(ctx, "nn.gelu");
  if (approximate != "tanh") ctx.unsupported("gelu with approximate='" + approximate + "'");
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  const std::string x = ctx.tensor(0);
  std::string cube = ctx.bind(Call("multiply", {ctx.bind(Call("multiply", {x, x})), x}));
  std::string inner = ctx.bind(Call("add", {x, WithScalar(ctx, "multiply", cube, 0.044715)}));
  std::string t = ctx.bind(Call("tanh", {WithScalar(ctx, "multiply", inner, std::sqrt(2.0 / M_PI))}));
  std::string half = WithScalar(ctx, "multiply", x, 0.5);
  ctx.set_tensor(0, Call("multiply", {half, WithScalar(ctx, "add", t, 1.0)}), ctx.dims(0), ctx.dtype(0));
}

void Clip(NodeContext& ctx, double lo, double hi) {
  ctx.set_tensor(0, Call("clip", {ctx.tensor(0)}, "min=" + NumberText(lo) + ", max=" + NumberText(hi)), ctx.dims(0),
                 ctx.dtype(0));
}

void Hardtanh(NodeContext& ctx) { Clip(ctx, ctx.number(1, "min_val"), ctx.number(2, "max_val")); }
void Relu6(NodeContext& ctx) { Clip(ctx, 0, 6); }

/// clamp(x, min, max) with either bound None.
void Clamp(NodeContext& ctx) {
  const bool is_min = ctx.kind() == "aten::clamp_min", is_max = ctx.kind() == "aten::clamp_max";
  const double lo = is_max || ctx.is_none(1) ? -INFINITY : ctx.number(1, "min");
  const double hi = is_min           ? INFINITY
                    : is_max         ? ctx.number(1, "max")
                    : ctx.is_none(2) ? INFINITY
                                     : ctx.number(2, "max");
  Clip(ctx, lo, hi);
}

void LeakyRelu(NodeContext& ctx) {
  const double slope = ctx.num_inputs() > 1 ? ctx.number(1, "negative_slope") : 0.01;
  const std::string x = ctx.tensor(0);
  std::string scaled = WithScalar(ctx, "multiply", x, slope);
  std::string positive = ctx.bind(Call("greater", {x, NodeContext::scalar_const(0, ctx.dtype(0))}));
  ctx.set_tensor(0, Call("where", {positive, x, scaled}), ctx.dims(0), ctx.dtype(0));
}

void Hardsigmoid(NodeContext& ctx) {
  // clip(x / 6 + 1/2, 0, 1)
  std::string y = WithScalar(ctx, "add", WithScalar(ctx, "multiply", ctx.tensor(0), 1.0 / 6), 0.5);
  ctx.set_tensor(0, Call("clip", {y}, "min=0.0, max=1.0"), ctx.dims(0), ctx.dtype(0));
}

void Hardswish(NodeContext& ctx) {
  const std::string x = ctx.tensor(0);
  std::string y = WithScalar(ctx, "add", WithScalar(ctx, "multiply", x, 1.0 / 6), 0.5);
  std::string gate = ctx.bind(Call("clip", {y}, "min=0.0, max=1.0"));
  ctx.set_tensor(0, Call("multiply", {x, gate}), ctx.dims(0), ctx.dtype(0));
}

void Softplus(NodeContext& ctx) {
  // beta and threshold at their defaults only: relu(x) + log(1 + exp(-|x|)), which does not overflow.
  if (ctx.num_inputs() > 1 && ctx.number(1, "beta") != 1) ctx.unsupported("softplus with beta != 1");
  const std::string x = ctx.tensor(0);
  std::string e = ctx.bind(Call("exp", {ctx.bind(Call("negative", {ctx.bind(Call("abs", {x}))}))}));
  std::string l = ctx.bind(Call("log", {WithScalar(ctx, "add", e, 1.0)}));
  ctx.set_tensor(0, Call("add", {ctx.bind(Call("nn.relu", {x})), l}), ctx.dims(0), ctx.dtype(0));
}

/// elu(x, alpha, scale, input_scale): scale * (x > 0 ? x : alpha * (exp(input_scale * x) - 1)).
void Elu(NodeContext& ctx) {
  const double alpha = ctx.num_inputs() > 1 ? ctx.number(1, "alpha") : 1.0;
  const double scale = ctx.num_inputs() > 2 ? ctx.number(2, "scale") : 1.0;
  const double input_scale = ctx.num_inputs() > 3 ? ctx.number(3, "input_scale") : 1.0;
  const std::string x = ctx.tensor(0);
  std::string e = ctx.bind(Call("exp", {input_scale == 1 ? x : WithScalar(ctx, "multiply", x, input_scale)}));
  std::string negative = WithScalar(ctx, "multiply", WithScalar(ctx, "subtract", e, 1.0), alpha);
  std::string positive = ctx.bind(Call("greater", {x, NodeContext::scalar_const(0, ctx.dtype(0))}));
  std::string y = Call("where", {positive, x, negative});
  if (scale != 1) y = Call("multiply", {ctx.bind(y), NodeContext::scalar_const(scale, ctx.dtype(0))});
  ctx.set_tensor(0, y, ctx.dims(0), ctx.dtype(0));
}

/// masked_fill(x, mask, value): where(mask, value, x).
void MaskedFill(NodeContext& ctx) {
  const std::string dtype = ctx.dtype(0);
  Dims dims = Broadcast(ctx, ctx.dims(0), ctx.dims(1));
  if (dims != ctx.dims(0)) ctx.fail("the mask does not broadcast to the input");
  ctx.set_tensor(0, Call("where", {TensorAs(ctx, 1, "bool"), TensorAs(ctx, 2, dtype), ctx.tensor(0)}), dims, dtype);
}

/// zeros_like / ones_like / full_like (x, [fill,] dtype, ...): x's dtype unless given.
void Like(NodeContext& ctx) {
  const bool full = ctx.kind() == "aten::full_like";
  const int dtype_input = full ? 2 : 1;
  std::string dtype = ctx.dtype(0);
  if (dtype_input < ctx.num_inputs() && ctx.input(dtype_input).kind == Kind::kInt)
    dtype = DTypeOfCode(ctx, ctx.integer(dtype_input, "dtype"));
  const std::string x = ctx.tensor(0);
  std::string expr =
      full ? Call("full_like", {x, NodeContext::scalar_const(ctx.number(1, "fill_value"), dtype)}, "dtype=" + dtype)
           : Call(ctx.kind() == "aten::zeros_like" ? "zeros_like" : "ones_like", {x}, "dtype=" + dtype);
  ctx.set_tensor(0, expr, ctx.dims(0), dtype);
}

void Reciprocal(NodeContext& ctx) {
  ctx.set_tensor(0, Call("divide", {NodeContext::scalar_const(1, ctx.dtype(0)), ctx.tensor(0)}), ctx.dims(0),
                 ctx.dtype(0));
}

void Square(NodeContext& ctx) {
  const std::string x = ctx.tensor(0);
  ctx.set_tensor(0, Call("multiply", {x, x}), ctx.dims(0), ctx.dtype(0));
}

/// Dims of a binary op's result: the broadcast of its inputs' (numbers are 0-d).
Dims BinaryDims(NodeContext& ctx, int a, int b) {
  const Value& x = ctx.input(a);
  const Value& y = ctx.input(b);
  return Broadcast(ctx, x.kind == Kind::kTensor ? x.dims : Dims{}, y.kind == Kind::kTensor ? y.dims : Dims{});
}

/// add, sub (with alpha: a + alpha * b), mul, div (rounding_mode), pow, maximum, minimum, rsub.
void Binary(NodeContext& ctx) {
  if (FoldsAtImport(ctx)) return FoldArithmetic(ctx);
  const std::string name = ctx.kind().substr(ctx.kind().find("::") + 2);
  int a = 0, b = 1;
  if (name == "rsub") std::swap(a, b);
  std::string dtype = PromoteTypes(ctx, a, b);
  if (name == "div" && !IsFloat(dtype) && (ctx.num_inputs() < 3 || ctx.is_none(2))) dtype = "float32";
  const std::string x = TensorAs(ctx, a, dtype);
  std::string y = TensorAs(ctx, b, dtype);
  if ((name == "add" || name == "sub" || name == "rsub") && ctx.num_inputs() > 2) {
    const double alpha = ctx.number(2, "alpha");
    if (alpha != 1) y = ctx.bind(Call("multiply", {y, NodeContext::scalar_const(alpha, dtype)}));
  }
  static const std::map<std::string, std::string> kOps = {
      {"add", "add"},   {"sub", "subtract"},    {"rsub", "subtract"},   {"mul", "multiply"},      {"div", "divide"},
      {"pow", "power"}, {"maximum", "maximum"}, {"minimum", "minimum"}, {"true_divide", "divide"}};
  std::string expr = Call(kOps.at(name), {x, y});
  if (name == "div" && ctx.num_inputs() > 2 && !ctx.is_none(2)) {
    const std::string mode = ctx.input(2).kind == Kind::kString ? ctx.input(2).text : "";
    if (mode == "floor")
      expr = Call("floor", {ctx.bind(expr)});
    else if (mode == "trunc") {
      std::string q = ctx.bind(expr);
      // trunc(q) = sign(q) * floor(|q|)
      expr = Call("multiply", {ctx.bind(Call("sign", {q})), ctx.bind(Call("floor", {ctx.bind(Call("abs", {q}))}))});
    } else {
      ctx.unsupported("div with rounding_mode '" + mode + "'");
    }
  }
  ctx.set_tensor(0, expr, BinaryDims(ctx, a, b), dtype);
}

void Compare(NodeContext& ctx) {
  if (FoldsAtImport(ctx)) return FoldArithmetic(ctx);
  static const std::map<std::string, std::string> kOps = {{"eq", "equal"},      {"ne", "not_equal"},
                                                          {"lt", "less"},       {"gt", "greater"},
                                                          {"le", "less_equal"}, {"ge", "greater_equal"}};
  const std::string name = ctx.kind().substr(ctx.kind().find("::") + 2);
  const std::string dtype = PromoteTypes(ctx, 0, 1);
  ctx.set_tensor(0, Call(kOps.at(name), {TensorAs(ctx, 0, dtype), TensorAs(ctx, 1, dtype)}), BinaryDims(ctx, 0, 1),
                 "bool");
}

void Where(NodeContext& ctx) {
  if (ctx.num_inputs() < 3) ctx.unsupported("where with one argument (nonzero)");
  const std::string dtype = PromoteTypes(ctx, 1, 2);
  Dims dims = BinaryDims(ctx, 1, 2);
  dims = Broadcast(ctx, ctx.dims(0), dims);
  ctx.set_tensor(0, Call("where", {TensorAs(ctx, 0, "bool"), TensorAs(ctx, 1, dtype), TensorAs(ctx, 2, dtype)}), dims,
                 dtype);
}

/// PyTorch's ScalarType code as rxt's dtype.
std::string DTypeOfCode(NodeContext& ctx, int64_t code) {
  switch (code) {
    case 0:
      return "uint8";
    case 1:
      return "int8";
    case 2:
      return "int16";
    case 3:
      return "int32";
    case 4:
      return "int64";
    case 5:
      return "float16";
    case 6:
      return "float32";
    case 7:
      return "float64";
    case 11:
      return "bool";
    case 15:
      return "bfloat16";
    default:
      ctx.unsupported("dtype code " + std::to_string(code));
  }
}

/// aten::to(x, dtype, ...), aten::to(x, device, dtype, ...), aten::to(x, other, ...), type_as:
/// a cast when the dtype changes (devices are ignored: rxt runs where it runs).
void To(NodeContext& ctx) {
  std::string dtype = ctx.dtype(0);
  if (ctx.kind() == "aten::type_as") {
    dtype = ctx.dtype(1);
  } else {
    for (int i = 1; i < std::min(ctx.num_inputs(), 3); ++i) {
      const Value& v = ctx.input(i);
      if (v.kind == Kind::kInt && v.symbol.empty()) {
        dtype = DTypeOfCode(ctx, SaturatingInt(v.number));
        break;
      }
      if (v.kind == Kind::kTensor) {
        dtype = v.dtype;
        break;
      }
    }
  }
  const std::string x = ctx.tensor(0);
  if (dtype == ctx.dtype(0)) return ctx.set_output(0, ctx.input(0));
  ctx.set_tensor(0, Call("astype", {x}, "dtype=" + dtype), ctx.dims(0), dtype);
}

}  // namespace

void AddElementwiseConverters(ConverterMap& map) {
  for (const char* k : {"relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "neg", "negative", "abs", "erf",
                        "silu", "sin", "cos", "tan", "floor", "ceil", "round", "sign"}) {
    map[std::string("aten::") + k] = UnaryOp;
  }
  map["aten::gelu"] = Gelu;
  map["aten::hardtanh"] = Hardtanh;
  map["aten::relu6"] = Relu6;
  map["aten::clamp"] = Clamp;
  map["aten::clip"] = Clamp;
  map["aten::clamp_min"] = Clamp;
  map["aten::clamp_max"] = Clamp;
  map["aten::leaky_relu"] = LeakyRelu;
  map["aten::hardsigmoid"] = Hardsigmoid;
  map["aten::hardswish"] = Hardswish;
  map["aten::softplus"] = Softplus;
  map["aten::reciprocal"] = Reciprocal;
  map["aten::elu"] = Elu;
  map["aten::masked_fill"] = MaskedFill;
  map["aten::zeros_like"] = Like;
  map["aten::ones_like"] = Like;
  map["aten::full_like"] = Like;
  map["aten::square"] = Square;
  for (const char* k : {"add", "sub", "rsub", "mul", "div", "true_divide", "pow", "maximum", "minimum"}) {
    map[std::string("aten::") + k] = Binary;
  }
  for (const char* k : {"eq", "ne", "lt", "gt", "le", "ge"}) map[std::string("aten::") + k] = Compare;
  map["aten::where"] = Where;
  map["aten::to"] = To;
  map["aten::type_as"] = To;
}

}  // namespace rxt::import_torchscript
