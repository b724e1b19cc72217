// Small helpers the converters share: writing op calls and shapes, reading dims and axes.
#pragma once

#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "graph_builder.h"

namespace rxt::import_onnx {

/// "op(a, b, attrs)".
inline std::string Call(const std::string& op, const std::vector<std::string>& args, const std::string& attrs = "") {
  return op + "(" + Join(args) + (attrs.empty() ? "" : ", " + attrs) + ")";
}

/// "shape(n, 64)".
inline std::string ShapeExpr(const std::vector<std::string>& dims) { return "shape(" + Join(dims) + ")"; }

/// Input i's dims as prim expressions; an unsupported-node failure when one is unknown.
std::vector<std::string> DimTexts(NodeContext& ctx, int i);

/// The most elements StaticDims accepts in a value (2^40): products of its dims never overflow.
inline constexpr int64_t kMaxStaticElements = int64_t(1) << 40;

/// Input i's dims, all static (their product at most kMaxStaticElements), or an unsupported-node failure.
std::vector<int64_t> StaticDims(NodeContext& ctx, int i);

/// Output k's dims as prim expressions when ONNX's shape inference knows them all.
std::optional<std::vector<std::string>> OutputDims(NodeContext& ctx, int k);

/// A product of dims as a prim expression ("1" when empty).
std::string Product(const std::vector<std::string>& dims);

/// |axis| in [0, rank), or a failure naming it.
int64_t NormalizeAxis(NodeContext& ctx, int64_t axis, int64_t rank);

/// Slice's inputs 1 to 4 read and checked: axes normalized for |rank|, steps non-zero.
struct SliceSpec {
  std::vector<int64_t> starts, ends, axes, steps;
};
SliceSpec ReadSlice(NodeContext& ctx, int64_t rank);

/// ONNX's clamping of a slice of a dim of |dim|: negative bounds count from the end, then a
/// positive step keeps them in [0, dim], a negative one in [-1, dim - 1] (-1: before index 0).
std::pair<int64_t, int64_t> ClampSlice(int64_t start, int64_t end, int64_t step, int64_t dim);

/// A window over any number of spatial dims, as ONNX gives it (pads: all begins, then all ends).
struct NdWindow {
  std::vector<int64_t> kernel, strides, dilations, pads;
};

/// The window of a convolution or pooling node: |kernel| are the spatial kernel dims (from the
/// weight or kernel_shape); strides, dilations and pads from the attributes, auto_pad SAME_*
/// resolved (it needs static input dims).
NdWindow NdWindowOf(NodeContext& ctx, std::vector<int64_t> kernel);

/// Row-major strides of |dims| (the last is 1).
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

/// Steps the multi-index |p| to the next position of |dims| in row-major order (the last index
/// fastest); false after the last position.
inline bool NextIndex(std::vector<int64_t>& p, const std::vector<int64_t>& dims) {
  for (int64_t k = static_cast<int64_t>(dims.size()) - 1; k >= 0; --k) {
    if (++p[k] < dims[k]) return true;
    p[k] = 0;
  }
  return false;
}

/// A Prim literal of |dtype|: "prim(1f32)".
std::string PrimLiteral(double value, const std::string& dtype);

}  // namespace rxt::import_onnx
