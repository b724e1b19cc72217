#include "convert_util.h"

#include <algorithm>

#include "constant.h"

namespace rxt::import_onnx {

std::vector<std::string> DimTexts(NodeContext& ctx, int i) {
  const TypeInfo& t = ctx.type(i);
  if (!t.has_shape) ctx.unsupported(ctx.op() + " on a value of unknown shape");
  std::vector<std::string> dims;
  for (const Dim& d : t.dims) {
    if (!d.is_known()) ctx.unsupported(ctx.op() + " on a value with a dim of unknown size");
    dims.push_back(d.text());
  }
  return dims;
}

std::vector<int64_t> StaticDims(NodeContext& ctx, int i) {
  const TypeInfo& t = ctx.type(i);
  if (!t.has_shape) ctx.unsupported(ctx.op() + " on a value of unknown shape");
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (const Dim& d : t.dims) {
    if (!d.is_static()) ctx.unsupported(ctx.op() + " on a value with non-static dims");
    dims.push_back(d.value);
    // Converters multiply these (strides, element counts): no product may overflow.
    if (d.value > 0 && count > kMaxStaticElements / d.value) {
      ctx.unsupported(ctx.op() + " on a value of more than 2^40 elements");
    }
    count *= d.value;
  }
  return dims;
}

std::optional<std::vector<std::string>> OutputDims(NodeContext& ctx, int k) {
  const TypeInfo& t = ctx.output_type(k);
  if (!t.has_shape) return std::nullopt;
  std::vector<std::string> dims;
  for (const Dim& d : t.dims) {
    // unk__N: a dim ONNX's inference made up; it names nothing in the function.
    if (!d.is_known() || (!d.is_static() && d.symbol.rfind("unk__", 0) == 0)) return std::nullopt;
    dims.push_back(d.text());
  }
  return dims;
}

std::string Product(const std::vector<std::string>& dims) {
  int64_t number = 1;
  std::string symbols;
  for (const std::string& d : dims) {
    if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0])) != 0) number *= std::stoll(d);
    else symbols += (symbols.empty() ? "" : " * ") + d;
  }
  if (symbols.empty()) return std::to_string(number);
  return number == 1 ? symbols : std::to_string(number) + " * " + symbols;
}

int64_t NormalizeAxis(NodeContext& ctx, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    ctx.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

SliceSpec ReadSlice(NodeContext& ctx, int64_t rank) {
  SliceSpec s;
  s.starts = ctx.ints(1, "starts");
  s.ends = ctx.ints(2, "ends");
  if (ctx.has_input(3)) s.axes = ctx.ints(3, "axes");
  else for (size_t k = 0; k < s.starts.size(); ++k) s.axes.push_back(static_cast<int64_t>(k));
  if (ctx.has_input(4)) s.steps = ctx.ints(4, "steps");
  else s.steps.assign(s.starts.size(), 1);
  if (s.ends.size() != s.starts.size() || s.axes.size() != s.starts.size() || s.steps.size() != s.starts.size()) {
    ctx.fail("starts, ends, axes and steps differ in length");
  }
  for (size_t k = 0; k < s.axes.size(); ++k) {
    s.axes[k] = NormalizeAxis(ctx, s.axes[k], rank);
    if (s.steps[k] == 0) ctx.fail("a step is 0");
  }
  return s;
}

std::pair<int64_t, int64_t> ClampSlice(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (start < 0) start = start < -dim ? -1 : start + dim;  // (no overflow for INT64_MIN)
  if (end < 0) end = end < -dim ? -1 : end + dim;
  const int64_t low = step > 0 ? 0 : -1, high = step > 0 ? dim : dim - 1;
  return {std::clamp(start, low, high), std::clamp(end, low, high)};
}

std::string PrimLiteral(double value, const std::string& dtype) {
  static const std::vector<std::pair<std::string, std::string>> kSuffix = {
      {"float32", "f32"}, {"float64", "f64"}, {"float16", "f16"}, {"bfloat16", "bf16"}, {"int64", ""},
      {"int32", "i32"},   {"int16", "i16"},  {"int8", "i8"},      {"uint8", "u8"}};
  if (dtype == "bool") return value != 0 ? "prim(true)" : "prim(false)";
  for (const auto& [name, suffix] : kSuffix) {
    if (name != dtype) continue;
    const bool is_float = suffix.rfind('f', 0) == 0 || suffix == "bf16";
    std::string number = is_float ? NumberText(value, onnx::TensorProto::DOUBLE) : std::to_string(static_cast<int64_t>(value));
    if (is_float && (number == "inf" || number == "-inf" || number == "nan")) {
      return "prim(" + std::string(number[0] == '-' ? "-" : "") + (number.back() == 'f' ? "inf_" : "nan_") + suffix + ")";
    }
    return "prim(" + number + suffix + ")";
  }
  return "prim(" + std::to_string(value) + ")";
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t k = static_cast<int64_t>(dims.size()) - 2; k >= 0; --k) strides[k] = strides[k + 1] * dims[k + 1];
  return strides;
}

NdWindow NdWindowOf(NodeContext& ctx, std::vector<int64_t> kernel) {
  const int spatial = static_cast<int>(kernel.size());
  std::vector<int64_t> strides = ctx.attr_ints("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> dilations = ctx.attr_ints("dilations", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * spatial, 0));
  if (strides.size() != size_t(spatial) || dilations.size() != size_t(spatial) || pads.size() != size_t(2 * spatial)) {
    ctx.fail("strides, dilations or pads do not match the " + std::to_string(spatial) + " spatial dims");
  }
  const std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    pads.assign(2 * spatial, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const TypeInfo& x = ctx.type(0);
    for (int k = 0; k < spatial; ++k) {
      const Dim& in = x.has_shape && x.rank() == spatial + 2 ? x.dims[2 + k] : Dim{};
      if (!in.is_static()) ctx.unsupported(ctx.op() + " with auto_pad " + auto_pad + " on non-static spatial dims");
      const int64_t out = (in.value + strides[k] - 1) / strides[k];
      const int64_t total = std::max<int64_t>((out - 1) * strides[k] + (kernel[k] - 1) * dilations[k] + 1 - in.value, 0);
      pads[k] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[spatial + k] = total - pads[k];
    }
  } else if (auto_pad != "NOTSET") {
    ctx.fail("auto_pad '" + auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }
  return {kernel, strides, dilations, pads};
}


}  // namespace rxt::import_onnx
