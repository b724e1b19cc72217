// Linear quantization (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear) as float
// arithmetic: ONNX's formulas with round half to even and saturation to the integer type's
// range (onnx/defs/quantization). Per-axis scales and zero points (1-D, opset 13) broadcast
// along their axis.
#include "convert_util.h"
#include "converters.h"

namespace rxt::import_onnx {
namespace {

/// The range of the 8-bit types QuantizeLinear writes.
std::pair<int, int> RangeOf(NodeContext& ctx, const std::string& dtype) {
  if (dtype == "uint8") return {0, 255};
  if (dtype == "int8") return {-128, 127};
  ctx.unsupported("QuantizeLinear to " + dtype);
}

/// Input |i| (a scale or zero point: a scalar or a 1-D tensor along |axis| of a rank-|rank|
/// tensor) as |dtype|, shaped to broadcast against that tensor.
std::string AlongAxis(NodeContext& ctx, int i, int64_t axis, int rank, const std::string& dtype) {
  std::string value = ctx.expr(i);
  if (ctx.dtype(i) != dtype) value = ctx.bind(Call("astype", {value}, "dtype=" + dtype));
  if (ctx.rank(i) == 0) return value;
  if (ctx.rank(i) != 1) ctx.fail("input " + std::to_string(i) + " must be a scalar or 1-D");
  axis = NormalizeAxis(ctx, axis, rank);  // only a 1-D scale has an axis
  std::vector<int64_t> after;
  for (int k = static_cast<int>(axis) + 1; k < rank; ++k) after.push_back(k - static_cast<int>(axis));
  return after.empty() ? value : ctx.bind(Call("expand_dims", {value}, "axis=" + IntList(after)));
}

/// saturate(round(x / scale) + zero_point) in the float dtype of x, then as |to| (exact: whole
/// numbers in the type's range).
std::string Quantize(NodeContext& ctx, const std::string& x, const std::string& scale, const std::string& zero_point,
                     const std::string& to) {
  auto [lo, hi] = RangeOf(ctx, to);
  std::string q = ctx.bind(Call("round", {ctx.bind(Call("divide", {x, scale}))}));
  if (!zero_point.empty()) q = ctx.bind(Call("add", {q, zero_point}));
  q = ctx.bind(Call("clip", {q}, "min=" + std::to_string(lo) + ", max=" + std::to_string(hi)));
  return Call("astype", {q}, "dtype=" + to);
}

void QuantizeLinear(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  const int64_t axis = ctx.attr_int("axis", 1);
  const std::string float_dtype = ctx.dtype(0);
  const std::string to = ctx.has_input(2) ? ctx.dtype(2) : "uint8";
  std::string scale = AlongAxis(ctx, 1, axis, rank, float_dtype);
  std::string zero_point = ctx.has_input(2) ? AlongAxis(ctx, 2, axis, rank, float_dtype) : "";
  ctx.set_output(0, Quantize(ctx, ctx.expr(0), scale, zero_point, to));
}

void DequantizeLinear(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  const int64_t axis = ctx.attr_int("axis", 1);
  const std::string float_dtype = ctx.dtype(1);
  std::string x = ctx.bind(Call("astype", {ctx.expr(0)}, "dtype=" + float_dtype));
  if (ctx.has_input(2)) x = ctx.bind(Call("subtract", {x, AlongAxis(ctx, 2, axis, rank, float_dtype)}));
  ctx.set_output(0, Call("multiply", {x, AlongAxis(ctx, 1, axis, rank, float_dtype)}));
}

void DynamicQuantizeLinear(NodeContext& ctx) {
  const std::string f = ctx.dtype(0);
  std::string x = ctx.expr(0), zero = ctx.scalar_const(0, f);
  // The range always includes 0: scale = (max(x, 0) - min(x, 0)) / 255.
  std::string hi = ctx.bind(Call("maximum", {ctx.bind(Call("max", {x})), zero}));
  std::string lo = ctx.bind(Call("minimum", {ctx.bind(Call("min", {x})), zero}));
  std::string scale = ctx.bind(Call("divide", {ctx.bind(Call("subtract", {hi, lo})), ctx.scalar_const(255, f)}));
  std::string zero_point = ctx.bind(Call("clip", {ctx.bind(Call("round", {ctx.bind(Call("divide", {ctx.bind(Call("negative", {lo})), scale}))}))},
                                         "min=0, max=255"));
  ctx.set_output(0, Quantize(ctx, x, scale, zero_point, "uint8"));
  ctx.set_output(1, scale);
  ctx.set_output(2, Call("astype", {zero_point}, "dtype=uint8"));
}

}  // namespace

void AddQuantizeConverters(ConverterMap& map) {
  map["QuantizeLinear"] = &QuantizeLinear;
  map["DequantizeLinear"] = &DequantizeLinear;
  map["DynamicQuantizeLinear"] = &DynamicQuantizeLinear;
}

}  // namespace rxt::import_onnx
