// The patterns of a max pooling whose windows tile the input (window = stride, no padding, no
// dilation, NCHW) and of its gradient, with the ReLU gradient that follows it in a training step
// folded in:
//   y = nn.max_pool2d(x, pool_size=[kh, kw], strides=[kh, kw])   (one the convolution before
//       it did not take: in training the pooling gradient reads the convolution's output too)
// becomes dnnl.max_pool2d(x, kh, kw), and with other undilated windows whose padding after the
// data (from the output's extent) is smaller than the window dnnl.max_pool2d_strided(x, kh, kw,
// sh, sw, pt, pl);
//   dx = nn.max_pool2d_backward(dz, x, pool_size=[kh, kw], strides=[kh, kw])
//   [m = greater(x, 0); dx' = where(m, dx, 0)]
// becomes dnnl.max_pool2d_backward(dz, x, kh, kw, relu), and with other undilated windows
// (strides, padding smaller than the window, ceil mode; resnet's 3x3 stride-2 stem pooling)
// dnnl.max_pool2d_backward_strided(dz, x, kh, kw, sh, sw, pt, pl, relu). The generated kernels
// compute each output element from its window (gathers for the x * kw and x / kw indices), the
// gradient of overlapping windows by finding each candidate window's first maximum again for
// every input element; the library loops over windows once.
#include "patterns.h"

namespace rxt::lib_dnnl {
namespace {

/// True if |e| is a one-element float constant equal to 0 (grad_std's scalar zeros).
bool IsZeroConstant(const Pattern& p, Expr e) {
  std::string dtype = p.DType(e);
  return (dtype == "float32" || dtype == "float64") && p.ConstantValue(e) == std::optional<double>(0.0);
}

bool AllEqual(const std::vector<int64_t>& values, int64_t value) {
  for (int64_t v : values) {
    if (v != value) return false;
  }
  return true;
}

/// The window of a pooling call whose windows tile |x| into |pooled| (NCHW, window = stride,
/// no padding or dilation, nothing left over in ceil mode), or nothing.
std::optional<std::vector<int64_t>> TilingWindow(Pattern& p, Expr call, Expr x, Expr pooled) {
  std::string layout = StringOf(p, call, "layout");
  if (!layout.empty() && layout != "NCHW") return std::nullopt;
  std::vector<int64_t> window = PairOf(IntsOf(p, call, "pool_size"));
  std::vector<int64_t> strides = PairOf(IntsOf(p, call, "strides"));
  std::vector<int64_t> padding = PaddingOf(IntsOf(p, call, "padding"));
  if (window.empty() || strides != window || window[0] < 1 || window[1] < 1) return std::nullopt;
  if (!AllEqual(padding, 0) || !AllEqual(IntsOf(p, call, "dilation"), 1)) return std::nullopt;
  std::vector<int64_t> xs = *p.StaticShape(x), zs = *p.StaticShape(pooled);
  // Windows tiling the input from its corner (floor mode, or ceil mode with nothing left over).
  if (zs[0] != xs[0] || zs[1] != xs[1] || zs[2] != xs[2] / window[0] || zs[3] != xs[3] / window[1]) return std::nullopt;
  return window;
}

/// The window of a max pooling gradient the strided library function computes: NCHW, no
/// dilation, padding smaller than the window, every window of |pooled| (dz) starting inside
/// |x| or its top and left padding. {kh, kw, sh, sw, pt, pl}, or nothing.
std::optional<std::vector<int64_t>> UndilatedWindow(Pattern& p, Expr call, Expr x, Expr pooled) {
  std::string layout = StringOf(p, call, "layout");
  if (!layout.empty() && layout != "NCHW") return std::nullopt;
  // Absent attributes take the op's defaults: strides 1, no padding.
  auto ints_or = [&](const char* name, std::vector<int64_t> absent) {
    std::vector<int64_t> v = IntsOf(p, call, name);
    return v.empty() ? absent : v;
  };
  std::vector<int64_t> window = PairOf(IntsOf(p, call, "pool_size"));
  std::vector<int64_t> strides = PairOf(ints_or("strides", {1, 1}));
  std::vector<int64_t> padding = PaddingOf(ints_or("padding", {0, 0, 0, 0}));
  if (window.empty() || strides.empty() || padding.empty()) return std::nullopt;
  if (!AllEqual(IntsOf(p, call, "dilation"), 1)) return std::nullopt;
  for (int dim = 0; dim < 2; ++dim) {
    if (window[dim] < 1 || strides[dim] < 1) return std::nullopt;
    if (padding[dim] < 0 || padding[dim + 2] < 0 || padding[dim] >= window[dim] || padding[dim + 2] >= window[dim]) {
      return std::nullopt;
    }
  }
  std::vector<int64_t> xs = *p.StaticShape(x), zs = *p.StaticShape(pooled);
  if (zs[0] != xs[0] || zs[1] != xs[1]) return std::nullopt;
  for (int dim = 0; dim < 2; ++dim) {
    if (zs[dim + 2] > 0 && (zs[dim + 2] - 1) * strides[dim] - padding[dim] >= xs[dim + 2]) return std::nullopt;
  }
  return std::vector<int64_t>{window[0], window[1], strides[0], strides[1], padding[0], padding[1]};
}

/// True if the padding after each spatial axis that |pooled|'s extent implies for the window
/// {kh, kw, sh, sw, pt, pl} is in [0, window): what dnnl.max_pool2d_strided computes.
bool FarPaddingFits(const std::vector<int64_t>& window, const std::vector<int64_t>& xs,
                    const std::vector<int64_t>& pooled) {
  for (int axis = 0; axis < 2; ++axis) {
    if (pooled[2 + axis] == 0) continue;
    int64_t far = (pooled[2 + axis] - 1) * window[2 + axis] + window[axis] - xs[2 + axis] - window[4 + axis];
    if (far < 0 || far >= window[axis]) return false;
  }
  return true;
}

}  // namespace

void MaxPool2dPattern(Pattern& p) {
  Expr call = p.call(0);
  if (p.NumArgs(call) != 1) return;
  Expr x = p.Arg(call, 0), result = p.result(0);
  if (!IsStaticFloat32(p, x, 4) || !IsStaticFloat32(p, result, 4)) return;
  std::optional<std::vector<int64_t>> window = TilingWindow(p, call, x, result);
  if (window) {
    p.Replace(1, p.CallExtern("dnnl.max_pool2d", {x, p.PrimInt((*window)[0]), p.PrimInt((*window)[1])}, {result}));
    return;
  }
  std::optional<std::vector<int64_t>> strided = UndilatedWindow(p, call, x, result);
  if (!strided || !FarPaddingFits(*strided, *p.StaticShape(x), *p.StaticShape(result))) return;
  std::vector<Expr> args = {x};
  for (int64_t v : *strided) args.push_back(p.PrimInt(v));
  p.Replace(1, p.CallExtern("dnnl.max_pool2d_strided", args, {result}));
}

void MaxPool2dBackwardPattern(Pattern& p) {
  Expr call = p.call(0);
  if (p.NumArgs(call) != 2) return;
  Expr dz = p.Arg(call, 0), x = p.Arg(call, 1);
  if (!IsStaticFloat32(p, dz, 4) || !IsStaticFloat32(p, x, 4) || !IsStaticFloat32(p, p.result(0), 4)) return;
  std::optional<std::vector<int64_t>> window = TilingWindow(p, call, x, dz);
  std::optional<std::vector<int64_t>> strided = window ? std::nullopt : UndilatedWindow(p, call, x, dz);
  if (!window && !strided) return;
  // The ReLU gradient after it: where(m, dx, 0) with m = greater(x, 0) read only by the where.
  int num_calls = 1;
  if (p.num_calls() > 1) {
    Expr where = p.call(1), mask = p.producer(1, 0);
    bool relu = p.NumArgs(where) == 3 && p.Arg(where, 1) == p.result(0) && IsZeroConstant(p, p.Arg(where, 2)) &&
                IsStaticFloat32(p, p.result(1), 4) && mask != nullptr && p.OpName(mask) == "greater" &&
                p.NumArgs(mask) == 2 && p.Arg(mask, 0) == x && IsZeroConstant(p, p.Arg(mask, 1));
    if (relu) num_calls = 2;
  }
  std::vector<Expr> args = {dz, x};
  for (int64_t v : window ? *window : *strided) args.push_back(p.PrimInt(v));
  args.push_back(p.PrimInt(num_calls == 2));
  const char* function = window ? "dnnl.max_pool2d_backward" : "dnnl.max_pool2d_backward_strided";
  p.Replace(num_calls, p.CallExtern(function, args, {p.result(num_calls - 1)}));
}

}  // namespace rxt::lib_dnnl
