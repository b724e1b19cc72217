// Reductions: mean, sum, amax/amin, max/min (whole, or along a dim with its indices), var/std.
#include <algorithm>
#include <cmath>

#include "converters.h"

namespace rxt::import_torchscript {
namespace {

/// The reduced axes of input 0 from input |i| (None or [] : every axis), normalized and sorted.
std::vector<int64_t> Axes(NodeContext& ctx, int i) {
  const int rank = ctx.rank(0);
  std::vector<int64_t> axes;
  if (i < ctx.num_inputs() && !ctx.is_none(i)) axes = ctx.ints(i, "dim");
  if (axes.empty()) {
    for (int k = 0; k < rank; ++k) axes.push_back(k);
  }
  for (int64_t& a : axes) a = ctx.axis(a, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) ctx.fail("reduces a dim twice");
  return axes;
}

Dims Reduced(NodeContext& ctx, const std::vector<int64_t>& axes, bool keepdims) {
  Dims out;
  const Dims& in = ctx.dims(0);
  for (size_t k = 0; k < in.size(); ++k) {
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(k)) == axes.end())
      out.push_back(in[k]);
    else if (keepdims)
      out.push_back(Dim::Static(1));
  }
  return out;
}

std::string Attrs(const std::vector<int64_t>& axes, bool keepdims) {
  return "axis=" + IntList(axes) + ", keepdims=" + (keepdims ? "true" : "false");
}

/// mean / sum (x, dim, keepdim, dtype) or (x, dtype); amax / amin (x, dim, keepdim).
void Reduce(NodeContext& ctx) {
  const std::string name = ctx.kind().substr(ctx.kind().find("::") + 2);
  const bool whole = ctx.num_inputs() <= 2 && name != "amax" && name != "amin";  // (x) or (x, dtype)
  std::vector<int64_t> axes = whole ? Axes(ctx, ctx.num_inputs()) : Axes(ctx, 1);
  const bool keepdims = !whole && ctx.num_inputs() > 2 && ctx.boolean(2, "keepdim");
  const int dtype_input = whole ? 1 : 3;
  if (dtype_input < ctx.num_inputs() && !ctx.is_none(dtype_input)) ctx.unsupported(name + " with a dtype");
  static const std::map<std::string, std::string> kOps = {
      {"mean", "mean"}, {"sum", "sum"}, {"amax", "max"}, {"amin", "min"}};
  std::string dtype = ctx.dtype(0);
  std::string x = ctx.tensor(0);
  if (name == "sum" && !IsFloat(dtype) && dtype != "int64") {  // PyTorch sums ints and bools as int64
    x = ctx.bind(Call("astype", {x}, "dtype=int64"));
    dtype = "int64";
  }
  ctx.set_tensor(0, Call(kOps.at(name), {x}, Attrs(axes, keepdims)), Reduced(ctx, axes, keepdims), dtype);
}

/// max(x) / min(x): over everything; max(x, dim, keepdim) / min: (values, indices).
void Extreme(NodeContext& ctx) {
  const bool is_max = ctx.kind() == "aten::max";
  if (ctx.num_inputs() == 2) ctx.unsupported(std::string(is_max ? "max" : "min") + " of two tensors (use maximum)");
  if (ctx.num_inputs() == 1) {
    std::vector<int64_t> axes = Axes(ctx, 1);
    return ctx.set_tensor(0, Call(is_max ? "max" : "min", {ctx.tensor(0)}, Attrs(axes, false)), {}, ctx.dtype(0));
  }
  const int64_t axis = ctx.axis(ctx.integer(1, "dim"), ctx.rank(0));
  const bool keepdims = ctx.boolean(2, "keepdim");
  const std::string x = ctx.tensor(0);
  Dims out = Reduced(ctx, {axis}, keepdims);
  ctx.set_tensor(0, Call(is_max ? "max" : "min", {x}, Attrs({axis}, keepdims)), out, ctx.dtype(0));
  if (ctx.num_outputs() > 1 && ctx.output_used(1)) {
    if (!is_max) ctx.unsupported("min along a dim with its indices");
    ctx.set_output(
        1, ctx.bind_tensor(
               Call("argmax", {x}, "axis=" + std::to_string(axis) + ", keepdims=" + (keepdims ? "true" : "false")), out,
               "int64"));
  } else if (ctx.num_outputs() > 1) {
    ctx.set_output(1, Value::Other("unused indices"));
  }
}

/// var / std (x, dim, unbiased, keepdim): the population variance times n / (n - 1) when unbiased.
void Variance(NodeContext& ctx) {
  const bool is_std = ctx.kind() == "aten::std";
  if (ctx.num_inputs() < 4) ctx.unsupported(ctx.kind() + " without dims");
  std::vector<int64_t> axes = Axes(ctx, 1);
  const bool unbiased = ctx.input(2).kind == Kind::kNone || ctx.boolean(2, "unbiased");
  const bool keepdims = ctx.boolean(3, "keepdim");
  Dims kept_out = Reduced(ctx, axes, keepdims);
  std::string v = ctx.bind(Call("variance", {ctx.tensor(0)}, Attrs(axes, keepdims)));
  if (unbiased) {
    int64_t n = 1;
    for (int64_t a : axes) {
      const Dim& d = ctx.dims(0)[a];
      if (!d.is_static()) ctx.unsupported("an unbiased variance over the symbolic dim " + d.symbol);
      n *= d.value;
    }
    v = ctx.bind(
        Call("multiply", {v, NodeContext::scalar_const(n > 1 ? double(n) / double(n - 1) : NAN, ctx.dtype(0))}));
  }
  if (is_std) v = ctx.bind(Call("sqrt", {v}));
  ctx.set_output(0, ctx.bind_tensor(v, kept_out, ctx.dtype(0)));
}

}  // namespace

void AddReduceConverters(ConverterMap& map) {
  for (const char* k : {"aten::mean", "aten::sum", "aten::amax", "aten::amin"}) map[k] = Reduce;
  map["aten::max"] = Extreme;
  map["aten::min"] = Extreme;
  map["aten::var"] = Variance;
  map["aten::std"] = Variance;
}

}  // namespace rxt::import_torchscript
