// Elementwise ops: unary math, broadcasting binary arithmetic and comparisons, where,
// astype and clip.
#include "infer_util.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

// Same struct info as the input.
StructInfo InferUnary(const CallNode& call) {
  TensorArg(call, 0);
  return ArgSI(call, 0);
}

StructInfo InferFloatUnary(const CallNode& call) {
  RequireFloat(call, 0);
  return ArgSI(call, 0);
}

// Broadcasting arithmetic: both operands have the same dtype, which the result keeps.
StructInfo InferArithmetic(const CallNode& call) {
  DType dtype = CommonDType(call, {0, 1});
  BroadcastShape b = BroadcastArgs(call, {0, 1});
  return MakeTensorSI(dtype, b.ndim, b.shape);
}

StructInfo InferComparison(const CallNode& call) {
  CommonDType(call, {0, 1});
  BroadcastShape b = BroadcastArgs(call, {0, 1});
  return MakeTensorSI(DType::kBool, b.ndim, b.shape);
}

StructInfo InferWhere(const CallNode& call) {
  RequireBool(call, 0);
  DType dtype = CommonDType(call, {1, 2});
  BroadcastShape b = BroadcastArgs(call, {0, 1, 2});
  return MakeTensorSI(dtype, b.ndim, b.shape);
}

StructInfo InferAstype(const CallNode& call) {
  const TensorSINode& x = TensorArg(call, 0);
  DType dtype = DTypeAttr(call, "dtype");
  if (dtype == DType::kUnknown) OpError(call, "attribute dtype must be a concrete dtype, got unknown");
  return MakeTensorSI(dtype, x.ndim, x.shape);
}

StructInfo InferClip(const CallNode& call) {
  TensorArg(call, 0);
  double lo = FloatAttr(call, "min"), hi = FloatAttr(call, "max");
  if (lo > hi) OpError(call, StrCat("attribute min (", lo, ") must not exceed max (", hi, ")"));
  return ArgSI(call, 0);
}

void DefUnary(OpRegistry& r, const char* name, const char* doc, FInferStructInfo infer) {
  r.Def(name).Describe(doc).Input("x").Set<FInferStructInfo>(std::move(infer));
}

void DefBinary(OpRegistry& r, const char* name, const char* doc, FInferStructInfo infer) {
  r.Def(name).Describe(doc).Input("x1").Input("x2").Set<FInferStructInfo>(std::move(infer));
}

}  // namespace

void RegisterElementwiseOps(OpRegistry& r) {
  DefUnary(r, "negative", "Elementwise -x.", InferUnary);
  DefUnary(r, "abs", "Elementwise |x|.", InferUnary);
  DefUnary(r, "exp", "Elementwise e^x (floating point).", InferFloatUnary);
  DefUnary(r, "log", "Elementwise natural logarithm (floating point).", InferFloatUnary);
  DefUnary(r, "sqrt", "Elementwise square root (floating point).", InferFloatUnary);
  DefUnary(r, "rsqrt", "Elementwise 1 / sqrt(x) (floating point).", InferFloatUnary);
  DefUnary(r, "tanh", "Elementwise hyperbolic tangent (floating point).", InferFloatUnary);
  DefUnary(r, "sigmoid", "Elementwise 1 / (1 + e^-x) (floating point).", InferFloatUnary);
  DefUnary(r, "erf", "Elementwise Gauss error function (floating point).", InferFloatUnary);
  DefUnary(r, "floor", "Elementwise largest integer <= x (floating point).", InferFloatUnary);
  DefUnary(r, "ceil", "Elementwise smallest integer >= x (floating point).", InferFloatUnary);
  DefUnary(r, "round", "Elementwise nearest integer, halves to even as NumPy and ONNX (floating point).",
           InferFloatUnary);
  DefUnary(r, "sign", "Elementwise -1, 0 or 1 as x is negative, zero or positive.", InferUnary);
  DefUnary(r, "sin", "Elementwise sine (floating point).", InferFloatUnary);
  DefUnary(r, "cos", "Elementwise cosine (floating point).", InferFloatUnary);
  DefUnary(r, "tan", "Elementwise tangent (floating point).", InferFloatUnary);
  DefUnary(r, "asin", "Elementwise arcsine, in [-pi/2, pi/2] (floating point).", InferFloatUnary);
  DefUnary(r, "acos", "Elementwise arccosine, in [0, pi] (floating point).", InferFloatUnary);
  DefUnary(r, "atan", "Elementwise arctangent, in (-pi/2, pi/2) (floating point).", InferFloatUnary);
  DefUnary(r, "sinh", "Elementwise hyperbolic sine (floating point).", InferFloatUnary);
  DefUnary(r, "cosh", "Elementwise hyperbolic cosine (floating point).", InferFloatUnary);
  DefUnary(r, "asinh", "Elementwise inverse hyperbolic sine (floating point).", InferFloatUnary);
  DefUnary(r, "acosh", "Elementwise inverse hyperbolic cosine (x >= 1) (floating point).", InferFloatUnary);
  DefUnary(r, "atanh", "Elementwise inverse hyperbolic tangent (|x| < 1) (floating point).", InferFloatUnary);

  DefBinary(r, "add", "x1 + x2 with NumPy broadcasting; both operands have the same dtype.", InferArithmetic);
  DefBinary(r, "subtract", "x1 - x2 with NumPy broadcasting.", InferArithmetic);
  DefBinary(r, "multiply", "x1 * x2 with NumPy broadcasting.", InferArithmetic);
  DefBinary(r, "divide", "x1 / x2 with NumPy broadcasting (true division for floats).", InferArithmetic);
  DefBinary(r, "power", "x1 ^ x2 with NumPy broadcasting.", InferArithmetic);
  DefBinary(r, "maximum", "Elementwise maximum with NumPy broadcasting.", InferArithmetic);
  DefBinary(r, "minimum", "Elementwise minimum with NumPy broadcasting.", InferArithmetic);
  DefBinary(r, "mod", "x1 - floor(x1 / x2) * x2, the sign of x2's, as Python's % and numpy.mod.", InferArithmetic);
  DefBinary(r, "fmod", "x1 - trunc(x1 / x2) * x2, the sign of x1's, as C's fmod and numpy.fmod.", InferArithmetic);

  DefBinary(r, "equal", "x1 == x2 with NumPy broadcasting; bool result.", InferComparison);
  DefBinary(r, "not_equal", "x1 != x2 with NumPy broadcasting; bool result.", InferComparison);
  DefBinary(r, "less", "x1 < x2 with NumPy broadcasting; bool result.", InferComparison);
  DefBinary(r, "less_equal", "x1 <= x2 with NumPy broadcasting; bool result.", InferComparison);
  DefBinary(r, "greater", "x1 > x2 with NumPy broadcasting; bool result.", InferComparison);
  DefBinary(r, "greater_equal", "x1 >= x2 with NumPy broadcasting; bool result.", InferComparison);

  r.Def("where")
      .Describe("condition ? x1 : x2, elementwise; condition is bool and all three broadcast.")
      .Input("condition")
      .Input("x1")
      .Input("x2")
      .Set<FInferStructInfo>(InferWhere);
  r.Def("astype")
      .Describe("Converts x to another dtype.")
      .Input("x")
      .RequiredAttr("dtype", AttrKind::kDType, "the result's dtype")
      .Set<FInferStructInfo>(InferAstype);
  r.Def("clip")
      .Describe("Clamps x elementwise to [min, max].")
      .Input("x")
      .RequiredAttr("min", AttrKind::kFloat, "the lower bound")
      .RequiredAttr("max", AttrKind::kFloat, "the upper bound")
      .Set<FInferStructInfo>(InferClip);
}

}  // namespace rxt
