// Resize (and Upsample, which the version converter turns into Resize) as a sequence of
// one-axis resamplings, each a weighted sum of takes: out = sum_k w_k * take(x, idx_k, axis),
// with the indices and weights computed here from ONNX's coordinate mapping (its reference
// implementation, onnx/backend/test/case/node/resize.py). Separable modes make this exact, and
// every op involved has a gradient, so an imported Resize trains. The scales, sizes and roi
// must be known at import time (they are constants in exported models); resized axes must be
// static, a symbolic one (the batch) may only keep its size.
#include <algorithm>
#include <cmath>

#include "convert_util.h"
#include "converters.h"
#include "tensor_data.h"

namespace rxt::import_onnx {
namespace {

struct ResizeAttrs {
  std::string mode, coordinates, nearest_mode;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
};

/// The taps of one axis: for each output index, taps[k].index[o] with weight taps[k].weight[o];
/// outside[o] when the output takes the extrapolation value (tf_crop_and_resize).
struct AxisTaps {
  std::vector<std::vector<int64_t>> index;
  std::vector<std::vector<double>> weight;
  std::vector<bool> outside;
};

/// The source coordinate of output index |x| (ONNX's coordinate_transformation_mode). The
/// resized length is scale * in, not rounded (as ONNX's reference: align_corners at scale 0.6
/// of 4 divides by 1.4, not by 1).
double SourceCoordinate(NodeContext& ctx, const ResizeAttrs& a, double x, double scale, int64_t in, double roi_start,
                        double roi_end) {
  const double out = scale * static_cast<double>(in);
  const std::string& m = a.coordinates;
  if (m == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (m == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : -0.5;
  if (m == "align_corners") return out == 1 ? 0.0 : x * static_cast<double>(in - 1) / (out - 1);
  if (m == "asymmetric") return x / scale;
  if (m == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (m == "tf_crop_and_resize") {
    const double span = (roi_end - roi_start) * static_cast<double>(in - 1);
    const double offset = roi_start * static_cast<double>(in - 1);
    return offset + (out == 1 ? span / 2 : x * span / (out - 1));
  }
  ctx.unsupported("Resize with coordinate_transformation_mode \"" + m + "\"");
}

/// The weights of the neighbours floor(x) - n/2 + 1 ... floor(x) + n/2 for a fractional part
/// |ratio| in (0, 1] (ONNX takes ratio 1, not 0, at whole coordinates).
std::vector<double> Coefficients(const ResizeAttrs& a, double ratio) {
  if (a.mode == "linear") return {1 - ratio, ratio};
  if (a.mode == "cubic") {
    const double A = a.cubic_a;
    auto far = [A](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };   // 1 < d < 2
    auto near = [A](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };         // d <= 1
    return {far(ratio + 1), near(ratio), near(1 - ratio), far(2 - ratio)};
  }
  // nearest: the left or the right neighbour
  if (ratio == 1.0) return {0, 1};
  bool right = false;
  if (a.nearest_mode == "round_prefer_floor") right = ratio > 0.5;
  else if (a.nearest_mode == "round_prefer_ceil") right = ratio >= 0.5;
  else if (a.nearest_mode == "floor") right = false;
  else right = true;  // ceil
  return {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
}

AxisTaps ComputeTaps(NodeContext& ctx, const ResizeAttrs& a, int64_t in, int64_t out, double scale, double roi_start,
                     double roi_end) {
  const size_t n = a.mode == "cubic" ? 4 : 2;
  AxisTaps taps;
  taps.index.assign(n, std::vector<int64_t>(out));
  taps.weight.assign(n, std::vector<double>(out));
  taps.outside.assign(out, false);
  for (int64_t o = 0; o < out; ++o) {
    const double x = SourceCoordinate(ctx, a, static_cast<double>(o), scale, in, roi_start, roi_end);
    if (!std::isfinite(x) || std::fabs(x) > 1e15) ctx.fail("a source coordinate is not finite (check the roi and scales)");
    if (a.coordinates == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(in - 1))) {
      taps.outside[o] = true;
      for (size_t k = 0; k < n; ++k) taps.index[k][o] = 0, taps.weight[k][o] = 0;
      continue;
    }
    // At a whole coordinate ONNX takes ratio 1 from the neighbour on the left, not ratio 0.
    const double base = x == std::floor(x) ? x - 1 : std::floor(x);
    const double ratio = x - base;
    std::vector<double> coeffs = Coefficients(a, ratio);
    // The neighbours of x, the nearest first on the left: base - n/2 + 1 ... base + n/2.
    const int64_t first = static_cast<int64_t>(base) - static_cast<int64_t>(n / 2) + 1;
    double total = 0;
    for (size_t k = 0; k < n; ++k) {
      const int64_t idx = first + static_cast<int64_t>(k);
      if (a.exclude_outside && (idx < 0 || idx >= in)) coeffs[k] = 0;
      total += coeffs[k];
    }
    for (size_t k = 0; k < n; ++k) {
      const int64_t idx = first + static_cast<int64_t>(k);
      taps.index[k][o] = std::clamp<int64_t>(idx, 0, in - 1);  // ONNX pads with the edge values
      taps.weight[k][o] = a.exclude_outside ? coeffs[k] / total : coeffs[k];
    }
  }
  return taps;
}

/// Whether |taps| copy the input unchanged (same length, each output its own input).
bool IsIdentity(const AxisTaps& taps, int64_t in) {
  if (static_cast<int64_t>(taps.outside.size()) != in) return false;
  for (int64_t o = 0; o < in; ++o) {
    if (taps.outside[o]) return false;
    for (size_t k = 0; k < taps.index.size(); ++k) {
      const double w = taps.weight[k][o];
      if (w != 0 && !(w == 1 && taps.index[k][o] == o)) return false;
    }
  }
  return true;
}

/// x resampled along |axis| by |taps|: nearest is one take, other modes a weighted sum of takes.
std::string ResampleAxis(NodeContext& ctx, const std::string& x, const std::string& dtype, int onnx_dtype, int64_t rank,
                         int64_t axis, const AxisTaps& taps, const ResizeAttrs& a) {
  const int64_t out = static_cast<int64_t>(taps.outside.size());
  auto along_axis = [&](std::vector<double> values) {
    Constant c;
    c.dtype = onnx_dtype;
    c.shape.assign(rank, 1);
    c.shape[axis] = out;
    c.floats = std::move(values);
    return ctx.constant_expr(c);
  };
  if (a.mode == "nearest" && a.coordinates != "tf_crop_and_resize") {
    std::vector<int64_t> chosen(out);
    for (int64_t o = 0; o < out; ++o) chosen[o] = taps.weight[0][o] == 1 ? taps.index[0][o] : taps.index[1][o];
    return ctx.bind(Call("take", {x, ctx.constant_expr(MakeIntConstant(chosen, {out}))}, "axis=" + std::to_string(axis)));
  }
  std::string sum;
  for (size_t k = 0; k < taps.index.size(); ++k) {
    bool used = false;
    for (double w : taps.weight[k]) used = used || w != 0;
    if (!used) continue;
    std::string tap = ctx.bind(Call("take", {x, ctx.constant_expr(MakeIntConstant(taps.index[k], {out}))},
                                    "axis=" + std::to_string(axis)));
    std::string term = ctx.bind(Call("multiply", {tap, along_axis(taps.weight[k])}));
    sum = sum.empty() ? term : ctx.bind(Call("add", {sum, term}));
  }
  bool any_outside = false;
  std::vector<double> fill(out, 0.0);
  for (int64_t o = 0; o < out; ++o) {
    if (taps.outside[o]) any_outside = true, fill[o] = a.extrapolation;
  }
  if (sum.empty()) {  // every output outside: zeros shaped like a take, plus the fill below
    std::string first = ctx.bind(Call("take", {x, ctx.constant_expr(MakeIntConstant(std::vector<int64_t>(out, 0), {out}))},
                                      "axis=" + std::to_string(axis)));
    sum = ctx.bind(Call("multiply", {first, ctx.scalar_const(0, dtype)}));
  }
  if (any_outside) sum = ctx.bind(Call("add", {sum, along_axis(fill)}));
  return sum;
}

void Resize(NodeContext& ctx) {
  ResizeAttrs a;
  a.mode = ctx.attr_string("mode", "nearest");
  a.coordinates = ctx.attr_string("coordinate_transformation_mode", "half_pixel");
  a.nearest_mode = ctx.attr_string("nearest_mode", "round_prefer_floor");
  a.cubic_a = ctx.attr_float("cubic_coeff_a", -0.75f);
  a.exclude_outside = ctx.attr_int("exclude_outside", 0) != 0;
  a.extrapolation = ctx.attr_float("extrapolation_value", 0.0f);
  if (a.mode != "nearest" && a.mode != "linear" && a.mode != "cubic") ctx.fail("unknown mode \"" + a.mode + "\"");
  if (a.nearest_mode != "round_prefer_floor" && a.nearest_mode != "round_prefer_ceil" && a.nearest_mode != "floor" &&
      a.nearest_mode != "ceil") {
    ctx.fail("unknown nearest_mode \"" + a.nearest_mode + "\"");
  }
  const int64_t rank = ctx.rank(0);
  const std::vector<Dim>& dims = ctx.type(0).dims;
  const std::string dtype = ctx.dtype(0);
  const int onnx_dtype = ctx.type(0).dtype;
  const bool is_float = dtype == "float32" || dtype == "float64" || dtype == "float16";
  if (a.mode != "nearest" && !is_float) ctx.unsupported("Resize " + a.mode + " of " + dtype + " data");
  if (a.coordinates == "tf_crop_and_resize" && !is_float) ctx.unsupported("Resize tf_crop_and_resize of " + dtype + " data");

  // Scales or sizes (exactly one non-empty); the roi for tf_crop_and_resize.
  auto known_input = [&](int i, const std::string& what) -> const Constant* {
    if (!ctx.has_input(i)) return nullptr;
    const Constant* c = &ctx.required(i, what);
    return c->size() == 0 ? nullptr : c;
  };
  const Constant* scales = known_input(2, "scales");
  const Constant* sizes = known_input(3, "sizes");
  if ((scales == nullptr) == (sizes == nullptr)) ctx.fail("exactly one of scales and sizes must be given");
  const Constant* given = scales != nullptr ? scales : sizes;
  if (static_cast<int64_t>(given->size()) != rank) {
    ctx.fail(std::string(scales ? "scales" : "sizes") + " holds " + std::to_string(given->size()) +
             " values for an input of rank " + std::to_string(rank));
  }
  std::vector<double> roi(2 * rank, 0.0);
  for (int64_t d = 0; d < rank; ++d) roi[rank + d] = 1.0;
  if (a.coordinates == "tf_crop_and_resize") {
    const Constant* r = known_input(1, "roi");
    if (r == nullptr || static_cast<int64_t>(r->size()) != 2 * rank) ctx.fail("tf_crop_and_resize needs a roi of 2 * rank values");
    for (int64_t k = 0; k < 2 * rank; ++k) {
      roi[k] = r->as_double(k);
      if (!std::isfinite(roi[k])) ctx.fail("the roi holds a value that is not finite");
    }
  }

  std::string result = ctx.expr(0);
  std::vector<Dim> out_dims = dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!dims[d].is_static()) {
      // A symbolic dim (the batch) may only stay as it is: scale 1, or a size that is its symbol.
      const bool kept = scales != nullptr ? scales->as_double(d) == 1.0
                                          : sizes->is_symbolic(d) && sizes->element_text(d) == dims[d].text();
      const bool moves = a.coordinates == "tf_half_pixel_for_nn" || a.coordinates == "tf_crop_and_resize";
      if (!kept || moves || !dims[d].is_known()) ctx.unsupported("Resize of a dim that is not static (axis " + std::to_string(d) + ")");
      continue;
    }
    const int64_t in = dims[d].value;
    double scale;
    int64_t out;
    if (sizes != nullptr && sizes->is_symbolic(d)) ctx.unsupported("Resize to a size that depends on symbolic dims");
    if (scales != nullptr) {
      scale = scales->as_double(d);
      if (!(scale > 0) || !std::isfinite(scale)) ctx.fail("scale " + std::to_string(scale) + " of axis " + std::to_string(d) + " is not positive");
      const double length = std::floor(static_cast<double>(in) * scale);
      if (length > static_cast<double>(kMaxFoldedElements)) ctx.unsupported("Resize to an axis of more than 65536 elements");
      out = static_cast<int64_t>(length);
    } else {
      out = static_cast<int64_t>(sizes->as_double(d));
      if (out <= 0) ctx.fail("size " + std::to_string(out) + " of axis " + std::to_string(d) + " is not positive");
      scale = static_cast<double>(out) / static_cast<double>(in);
    }
    if (out <= 0) ctx.fail("axis " + std::to_string(d) + " resizes to no elements");
    if (static_cast<size_t>(out) > kMaxFoldedElements) ctx.unsupported("Resize to an axis of more than 65536 elements");
    if (in == 0) ctx.fail("axis " + std::to_string(d) + " of the input is empty");
    out_dims[d] = Dim{out, ""};
    AxisTaps taps = ComputeTaps(ctx, a, in, out, scale, roi[d], roi[rank + d]);
    if (IsIdentity(taps, in)) continue;
    result = ResampleAxis(ctx, result, dtype, onnx_dtype, rank, d, taps, a);
  }
  ctx.set_output(0, result);
  ctx.set_output_dims(0, out_dims);
}

}  // namespace

void AddResizeConverters(ConverterMap& map) { map["Resize"] = &Resize; }

}  // namespace rxt::import_onnx
