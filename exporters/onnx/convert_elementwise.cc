// Elementwise ops, matmul and linear.
#include <cmath>

#include "converters.h"

namespace rxt::export_onnx {
namespace {

/// An op that is one ONNX node on the same inputs (Add, Relu, Where...).
template <const char* kOnnxOp>
void Direct(OpContext& c) {
  std::vector<std::string> inputs;
  for (int i = 0; i < c.num_args(); ++i) inputs.push_back(c.input(i));
  c.Output(c.Op(kOnnxOp, inputs));
}

#define RXT_ONNX_OP(name) constexpr char k##name[] = #name;
RXT_ONNX_OP(Neg)
RXT_ONNX_OP(Abs)
RXT_ONNX_OP(Exp)
RXT_ONNX_OP(Log)
RXT_ONNX_OP(Sqrt)
RXT_ONNX_OP(Tanh)
RXT_ONNX_OP(Sigmoid)
RXT_ONNX_OP(Erf)
RXT_ONNX_OP(Floor)
RXT_ONNX_OP(Ceil)
RXT_ONNX_OP(Round)
RXT_ONNX_OP(Sign)
RXT_ONNX_OP(Sin)
RXT_ONNX_OP(Cos)
RXT_ONNX_OP(Tan)
RXT_ONNX_OP(Asin)
RXT_ONNX_OP(Acos)
RXT_ONNX_OP(Atan)
RXT_ONNX_OP(Sinh)
RXT_ONNX_OP(Cosh)
RXT_ONNX_OP(Asinh)
RXT_ONNX_OP(Acosh)
RXT_ONNX_OP(Atanh)
RXT_ONNX_OP(Relu)
RXT_ONNX_OP(Add)
RXT_ONNX_OP(Sub)
RXT_ONNX_OP(Mul)
RXT_ONNX_OP(Div)
RXT_ONNX_OP(Pow)
RXT_ONNX_OP(Max)
RXT_ONNX_OP(Min)
RXT_ONNX_OP(Equal)
RXT_ONNX_OP(Less)
RXT_ONNX_OP(LessOrEqual)
RXT_ONNX_OP(Greater)
RXT_ONNX_OP(GreaterOrEqual)
RXT_ONNX_OP(Identity)
#undef RXT_ONNX_OP

/// Where; on bool values (how logical and/or arrive) as And/Or/Not, which every runtime has
/// (ONNX Runtime has no bool Where).
void Where(OpContext& c) {
  if (c.DType(c.result()) != "bool") {
    c.Output(c.Op("Where", {c.input(0), c.input(1), c.input(2)}));
    return;
  }
  std::string when_true = c.Op("And", {c.input(0), c.input(1)});
  std::string when_false = c.Op("And", {c.Op("Not", {c.input(0)}), c.input(2)});
  c.Output(c.Op("Or", {when_true, when_false}));
}

/// fmod: ONNX's Mod with fmod=1. mod (the divisor's sign): Mod with fmod=0 on integers; ONNX
/// allows fmod=0 on integers only, so floats are written x1 - Floor(x1 / x2) * x2.
void Fmod(OpContext& c) { c.Output(c.Op("Mod", {c.input(0), c.input(1)}, {MakeAttribute("fmod", int64_t{1})})); }
void FloorMod(OpContext& c) {
  const std::string dtype = c.DType(c.result());
  if (dtype.find("float") == std::string::npos) {  // float16/32/64, bfloat16
    c.Output(c.Op("Mod", {c.input(0), c.input(1)}, {MakeAttribute("fmod", int64_t{0})}));
    return;
  }
  std::string quotient = c.Op("Floor", {c.Op("Div", {c.input(0), c.input(1)})});
  c.Output(c.Op("Sub", {c.input(0), c.Op("Mul", {quotient, c.input(1)})}));
}

void Rsqrt(OpContext& c) { c.Output(c.Op("Reciprocal", {c.Op("Sqrt", {c.input(0)})})); }

void NotEqual(OpContext& c) { c.Output(c.Op("Not", {c.Op("Equal", {c.input(0), c.input(1)})})); }

/// x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2))): opset 17 has no Gelu.
void Gelu(OpContext& c) {
  rxt_ir_expr_t x = c.arg(0);
  std::string erf = c.Op("Erf", {c.Op("Div", {c.input(0), c.ScalarLike(std::sqrt(2.0), x)})});
  std::string half_x = c.Op("Mul", {c.input(0), c.ScalarLike(0.5, x)});
  c.Output(c.Op("Mul", {half_x, c.Op("Add", {erf, c.ScalarLike(1.0, x)})}));
}

void Silu(OpContext& c) { c.Output(c.Op("Mul", {c.input(0), c.Op("Sigmoid", {c.input(0)})})); }

void AsType(OpContext& c) {
  c.Output(c.Op("Cast", {c.input(0)}, {MakeAttribute("to", int64_t{c.OnnxTypeOf(c.result())})}));
}

void Clip(OpContext& c) {
  rxt_ir_expr_t x = c.arg(0);
  c.Output(c.Op("Clip", {c.input(0), c.ScalarLike(c.Float("min", 0), x), c.ScalarLike(c.Float("max", 0), x)}));
}

/// The result cast to the call's out_dtype when the op computed another.
std::string CastToResult(OpContext& c, const std::string& value, rxt_ir_expr_t computed_like) {
  if (c.DType(c.result()) == c.DType(computed_like)) return value;
  return c.Op("Cast", {value}, {MakeAttribute("to", int64_t{c.OnnxTypeOf(c.result())})});
}

void Matmul(OpContext& c) { c.Output(CastToResult(c, c.Op("MatMul", {c.input(0), c.input(1)}), c.arg(0))); }

/// x @ weight^T + bias: Gemm for a 2-D x, else Transpose, MatMul and Add.
void Linear(OpContext& c) {
  bool has_bias = c.num_args() > 2 && c.ir()->is_tensor(c.w.reader, c.arg(2));
  if (c.NDim(c.arg(0)) == 2) {
    std::vector<std::string> inputs = {c.input(0), c.input(1)};
    if (has_bias) inputs.push_back(c.input(2));
    c.Output(c.Op("Gemm", inputs, {MakeAttribute("transB", int64_t{1})}));
    return;
  }
  std::string product = c.Op("MatMul", {c.input(0), c.Op("Transpose", {c.input(1)})});
  c.Output(has_bias ? c.Op("Add", {product, c.input(2)}) : product);
}

}  // namespace

void AddElementwiseConverters(ConverterTable& t) {
  t["negative"] = &Direct<kNeg>;
  t["abs"] = &Direct<kAbs>;
  t["exp"] = &Direct<kExp>;
  t["log"] = &Direct<kLog>;
  t["sqrt"] = &Direct<kSqrt>;
  t["rsqrt"] = &Rsqrt;
  t["tanh"] = &Direct<kTanh>;
  t["sigmoid"] = &Direct<kSigmoid>;
  t["erf"] = &Direct<kErf>;
  t["floor"] = &Direct<kFloor>;
  t["ceil"] = &Direct<kCeil>;
  t["round"] = &Direct<kRound>;
  t["sign"] = &Direct<kSign>;
  t["sin"] = &Direct<kSin>;
  t["cos"] = &Direct<kCos>;
  t["tan"] = &Direct<kTan>;
  t["asin"] = &Direct<kAsin>;
  t["acos"] = &Direct<kAcos>;
  t["atan"] = &Direct<kAtan>;
  t["sinh"] = &Direct<kSinh>;
  t["cosh"] = &Direct<kCosh>;
  t["asinh"] = &Direct<kAsinh>;
  t["acosh"] = &Direct<kAcosh>;
  t["atanh"] = &Direct<kAtanh>;
  t["mod"] = &FloorMod;
  t["fmod"] = &Fmod;
  t["nn.relu"] = &Direct<kRelu>;
  t["nn.gelu"] = &Gelu;
  t["nn.silu"] = &Silu;
  t["add"] = &Direct<kAdd>;
  t["subtract"] = &Direct<kSub>;
  t["multiply"] = &Direct<kMul>;
  t["divide"] = &Direct<kDiv>;
  t["power"] = &Direct<kPow>;
  t["maximum"] = &Direct<kMax>;
  t["minimum"] = &Direct<kMin>;
  t["equal"] = &Direct<kEqual>;
  t["not_equal"] = &NotEqual;
  t["less"] = &Direct<kLess>;
  t["less_equal"] = &Direct<kLessOrEqual>;
  t["greater"] = &Direct<kGreater>;
  t["greater_equal"] = &Direct<kGreaterOrEqual>;
  t["where"] = &Where;
  t["astype"] = &AsType;
  t["clip"] = &Clip;
  t["checkpoint_start"] = &Direct<kIdentity>;
  t["checkpoint_end"] = &Direct<kIdentity>;
  t["matmul"] = &Matmul;
  t["linear"] = &Linear;
}

}  // namespace rxt::export_onnx
