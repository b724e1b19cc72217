// Reductions: ReduceSum (axes as an input since opset 13) and the others (axes attributes at
// opset 17), keepdims, noop_with_empty_axes; ArgMax and ArgMin; CumSum.
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

}  // namespace

void AddReduceConverters(ConverterMap& map) {
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                         "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}) {
    map[op] = &Reduce;
  }
  map["ArgMax"] = &ArgMaxMin;
  map["ArgMin"] = &ArgMaxMin;
  map["CumSum"] = &CumSum;
}

}  // namespace rxt::import_onnx
