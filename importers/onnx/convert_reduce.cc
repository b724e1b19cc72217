// Reductions: ReduceSum (axes as an input since opset 13) and the others (axes attributes at
// opset 17), keepdims, noop_with_empty_axes; ArgMax and ArgMin; CumSum; TopK.
#include <limits>

#include "convert_util.h"
#include "converters.h"

namespace rxt::import_onnx {
namespace {

/// The reduced axes as an attribute ("axis=[1]" or "axis=none"); nullopt for a no-op.
std::optional<std::string> AxesAttr(NodeContext& ctx) {
  std::vector<int64_t> axes;
  if (ctx.op() == "ReduceSum") {
    if (ctx.has_input(1)) axes = ctx.ints(1, "axes");
  } else {
    axes = ctx.attr_ints("axes", {});
  }
  if (axes.empty()) {
    if (ctx.attr_int("noop_with_empty_axes", 0) != 0) return std::nullopt;
    return std::string("axis=none");
  }
  const int64_t rank = ctx.rank(0);
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) ctx.fail("axis " + std::to_string(a) + " is out of range");
    if (a < 0) a += rank;
  }
  return "axis=" + IntList(axes);
}

void Reduce(NodeContext& ctx) {
  const std::string& op = ctx.op();
  std::optional<std::string> axes = AxesAttr(ctx);
  std::string x = ctx.expr(0);
  if (!axes) return ctx.set_output(0, x);
  const std::string attrs = *axes + ", keepdims=" + (ctx.attr_int("keepdims", 1) != 0 ? "true" : "false");
  if (op == "ReduceSum") return ctx.set_output(0, Call("sum", {x}, attrs));
  if (op == "ReduceMean") return ctx.set_output(0, Call("mean", {x}, attrs));
  if (op == "ReduceMax") return ctx.set_output(0, Call("max", {x}, attrs));
  if (op == "ReduceMin") return ctx.set_output(0, Call("min", {x}, attrs));
  if (op == "ReduceProd") return ctx.set_output(0, Call("prod", {x}, attrs));
  if (op == "ReduceSumSquare") return ctx.set_output(0, Call("sum", {ctx.bind(Call("multiply", {x, x}))}, attrs));
  if (op == "ReduceL1") return ctx.set_output(0, Call("sum", {ctx.bind(Call("abs", {x}))}, attrs));
  if (op == "ReduceL2") {
    return ctx.set_output(0, Call("sqrt", {ctx.bind(Call("sum", {ctx.bind(Call("multiply", {x, x}))}, attrs))}));
  }
  if (op == "ReduceLogSum") return ctx.set_output(0, Call("log", {ctx.bind(Call("sum", {x}, attrs))}));
  if (op == "ReduceLogSumExp") {
    return ctx.set_output(0, Call("log", {ctx.bind(Call("sum", {ctx.bind(Call("exp", {x}))}, attrs))}));
  }
  ctx.fail("no reduction for " + op);
}

void ArgMaxMin(NodeContext& ctx) {
  const int64_t rank = ctx.rank(0);
  const int64_t axis = NormalizeAxis(ctx, ctx.attr_int("axis", 0), rank);
  const std::string keepdims = ctx.attr_int("keepdims", 1) != 0 ? "true" : "false";
  std::string x = ctx.expr(0);
  // The first minimum is the first maximum of the negation.
  if (ctx.op() == "ArgMin") x = ctx.bind(Call("negative", {x}));
  if (ctx.attr_int("select_last_index", 0) == 0) {
    return ctx.set_output(0, Call("argmax", {x}, "axis=" + std::to_string(axis) + ", keepdims=" + keepdims));
  }
  // The last maximum: the first one of x reversed along the axis, counted from the end.
  const Dim& dim = ctx.type(0).dims[axis];
  if (!dim.is_static()) ctx.unsupported(ctx.op() + " with select_last_index along a non-static axis");
  std::string reversed = ctx.bind(Call("strided_slice", {x}, "axes=[" + std::to_string(axis) + "], begin=[-1], end=[" +
                                                                 std::to_string(-(dim.value + 1)) + "], strides=[-1]"));
  std::string index = ctx.bind(Call("argmax", {reversed}, "axis=" + std::to_string(axis) + ", keepdims=" + keepdims));
  ctx.set_output(0, Call("subtract", {"const(" + std::to_string(dim.value - 1) + ", int64)", index}));
}

/// CumSum: its axis (input 1) must be known at import time (rxt's cumsum takes it as an attribute).
void CumSum(NodeContext& ctx) {
  const int64_t axis = NormalizeAxis(ctx, static_cast<int64_t>(ctx.scalar(1, "axis")), ctx.rank(0));
  auto flag = [&](const char* name) { return std::string(ctx.attr_int(name, 0) != 0 ? "true" : "false"); };
  const std::string attrs =
      "axis=" + std::to_string(axis) + ", exclusive=" + flag("exclusive") + ", reverse=" + flag("reverse");
  ctx.set_output(0, Call("cumsum", {ctx.expr(0)}, attrs));
}

/// TopK with k known at import (at most 64): k rounds of max and argmax along the axis, each
/// round masking the position it took (ties go to the lower index first, as ONNX asks, since
/// argmax takes the first maximum); smallest as the largest of the negation. The values keep
/// max's gradient. Float data only (the mask is -inf).
void TopK(NodeContext& ctx) {
  const int64_t rank = ctx.rank(0);
  const int64_t axis = NormalizeAxis(ctx, ctx.attr_int("axis", -1), rank);
  const Dim& dim = ctx.type(0).dims[axis];
  if (!dim.is_static()) ctx.unsupported("TopK along a dim that is not static");
  const int64_t k = static_cast<int64_t>(ctx.scalar(1, "k"));
  if (k < 0 || k > dim.value) ctx.fail("k " + std::to_string(k) + " is out of range [0, " + std::to_string(dim.value) + "]");
  if (k == 0) ctx.unsupported("TopK with k 0 (empty outputs)");
  if (k > 64) ctx.unsupported("TopK with k above 64");
  const std::string dt = ctx.dtype(0);
  if (dt != "float32" && dt != "float64" && dt != "float16") ctx.unsupported("TopK of " + dt);
  const bool largest = ctx.attr_int("largest", 1) != 0;
  std::string current = ctx.expr(0);
  if (!largest) current = ctx.bind(Call("negative", {current}));
  Constant positions = MakeIntConstant({}, {});
  positions.shape.assign(rank, 1);
  positions.shape[axis] = dim.value;
  for (int64_t i = 0; i < dim.value; ++i) positions.ints.push_back(i);
  const std::string iota = ctx.constant_expr(positions);
  const std::string along = "axis=" + std::to_string(axis) + ", keepdims=true";
  std::vector<std::string> values, indices;
  for (int64_t round = 0; round < k; ++round) {
    std::string value = ctx.bind(Call("max", {current}, "axis=[" + std::to_string(axis) + "], keepdims=true"));
    std::string index = ctx.bind(Call("argmax", {current}, along));
    values.push_back(largest ? value : ctx.bind(Call("negative", {value})));
    indices.push_back(index);
    if (round + 1 == k) break;
    std::string taken = ctx.bind(Call("equal", {iota, index}));
    current = ctx.bind(Call("where", {taken, ctx.scalar_const(-std::numeric_limits<double>::infinity(), dt), current}));
  }
  auto joined = [&](const std::vector<std::string>& parts) {
    if (parts.size() == 1) return parts[0];
    return Call("concat", {"(" + Join(parts) + ")"}, "axis=" + std::to_string(axis));
  };
  ctx.set_output(0, joined(values));
  ctx.set_output(1, joined(indices));
}

}  // namespace

void AddReduceConverters(ConverterMap& map) {
  map["TopK"] = &TopK;
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                         "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}) {
    map[op] = &Reduce;
  }
  map["ArgMax"] = &ArgMaxMin;
  map["ArgMin"] = &ArgMaxMin;
  map["CumSum"] = &CumSum;
}

}  // namespace rxt::import_onnx
