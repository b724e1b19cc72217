// Indexing ops: Gather, GatherElements, OneHot, and the masks Trilu and EyeLike. ONNX lets
// indices count from the end (negative); rxt's take wants them in range, so they are shifted
// here: at import time when known, else with a where.
#include "convert_util.h"
#include "converters.h"
#include "tensor_data.h"

namespace rxt::import_onnx {
namespace {

/// Input i (integer indices into a dim of size |dim|) with negative ones shifted into range.
std::string InRangeIndices(NodeContext& ctx, int i, const Dim& dim) {
  const Constant* known = ctx.constant(i);
  if (known != nullptr && !known->is_symbolic() && dim.is_static()) {
    Constant shifted = *known;
    for (int64_t& index : shifted.ints) {
      if (index < -dim.value || index >= dim.value) {
        ctx.fail("index " + std::to_string(index) + " is out of range for a dim of " + std::to_string(dim.value));
      }
      if (index < 0) index += dim.value;
    }
    return ctx.constant_expr(shifted);
  }
  std::string indices = ctx.expr(i);
  if (!dim.is_static()) return indices;
  const std::string dt = ctx.dtype(i);
  std::string negative = ctx.bind(Call("less", {indices, ctx.scalar_const(0, dt)}));
  return ctx.bind(Call("where", {negative, Call("add", {indices, ctx.scalar_const(static_cast<double>(dim.value), dt)}), indices}));
}

void Gather(NodeContext& ctx) {
  const int64_t axis = NormalizeAxis(ctx, ctx.attr_int("axis", 0), ctx.rank(0));
  std::string indices = InRangeIndices(ctx, 1, ctx.type(0).dims[axis]);
  ctx.set_output(0, Call("take", {ctx.expr(0), indices}, "axis=" + std::to_string(axis)));
}

/// out[p] = data[p with p[axis] replaced by indices[p]]: a take from the flattened data at
/// indices * stride(axis) + (the offset of p's other coordinates), a constant.
void GatherElements(NodeContext& ctx) {
  std::vector<int64_t> data = StaticDims(ctx, 0), shape = StaticDims(ctx, 1);
  const int64_t rank = static_cast<int64_t>(data.size());
  if (static_cast<int64_t>(shape.size()) != rank) ctx.fail("data and indices differ in rank");
  const int64_t axis = NormalizeAxis(ctx, ctx.attr_int("axis", 0), rank);
  std::vector<int64_t> strides(rank, 1);
  for (int64_t k = rank - 2; k >= 0; --k) strides[k] = strides[k + 1] * data[k + 1];
  Constant offsets;
  offsets.shape = shape;
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  if (count > kMaxFoldedElements) ctx.unsupported("GatherElements with more than 65536 indices");
  std::vector<int64_t> p(rank, 0);
  for (size_t flat = 0; flat < count; ++flat) {
    int64_t offset = 0;
    for (int64_t k = 0; k < rank; ++k) {
      if (k != axis) offset += p[k] * strides[k];
    }
    offsets.ints.push_back(offset);
    for (int64_t k = rank - 1; k >= 0 && ++p[k] == shape[k]; --k) p[k] = 0;
  }
  std::string indices = InRangeIndices(ctx, 1, Dim{data[axis], ""});
  if (ctx.dtype(1) != "int64") indices = ctx.bind(Call("astype", {indices}, "dtype=int64"));
  std::string scaled = ctx.bind(Call("multiply", {indices, "const(" + std::to_string(strides[axis]) + ", int64)"}));
  std::string flat_indices = ctx.bind(Call("add", {scaled, ctx.constant_expr(offsets)}));
  std::string flat_data = ctx.bind(Call("reshape", {ctx.expr(0), ShapeExpr({Product(DimTexts(ctx, 0))})}));
  ctx.set_output(0, Call("take", {flat_data, flat_indices}, "axis=0"));
}

void OneHot(NodeContext& ctx) {
  const double depth = ctx.scalar(1, "depth");
  const Constant* values = ctx.constant(2);
  if (values == nullptr || values->size() != 2) ctx.unsupported("OneHot with values known only at run time");
  const std::string dt = RxtDType(values->dtype);
  std::string indices = ctx.expr(0);
  if (ctx.dtype(0) != "int64") indices = ctx.bind(Call("astype", {indices}, "dtype=int64"));
  std::string negative = ctx.bind(Call("less", {indices, "const(0, int64)"}));
  const std::string d = std::to_string(static_cast<int64_t>(depth));
  indices = ctx.bind(Call("where", {negative, Call("add", {indices, "const(" + d + ", int64)"}), indices}));
  ctx.set_output(0, Call("one_hot", {indices, PrimLiteral(values->as_double(1), dt), PrimLiteral(values->as_double(0), dt)},
                         "depth=" + d + ", axis=" + std::to_string(ctx.attr_int("axis", -1))));
}

/// A bool (rows, cols) constant: keep[i][j] = j - i >= k (upper) or j - i <= k (lower).
Constant TriangleMask(int64_t rows, int64_t cols, int64_t k, bool upper) {
  Constant mask;
  mask.dtype = onnx::TensorProto::BOOL;
  mask.shape = {rows, cols};
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) mask.ints.push_back(upper ? j - i >= k : j - i <= k);
  }
  return mask;
}

void Trilu(NodeContext& ctx) {
  std::vector<int64_t> dims = StaticDims(ctx, 0);
  if (dims.size() < 2) ctx.fail("the input must be at least 2-D");
  const int64_t k = ctx.has_input(1) ? static_cast<int64_t>(ctx.scalar(1, "k")) : 0;
  const int64_t rows = dims[dims.size() - 2], cols = dims.back();
  if (static_cast<size_t>(rows * cols) > kMaxFoldedElements) ctx.unsupported("Trilu on matrices over 65536 elements");
  std::string mask = ctx.constant_expr(TriangleMask(rows, cols, k, ctx.attr_int("upper", 1) != 0));
  ctx.set_output(0, Call("where", {mask, ctx.expr(0), ctx.scalar_const(0, ctx.dtype(0))}));
}

void EyeLike(NodeContext& ctx) {
  std::vector<int64_t> dims = StaticDims(ctx, 0);
  if (dims.size() != 2) ctx.fail("the input must be 2-D");
  if (static_cast<size_t>(dims[0] * dims[1]) > kMaxFoldedElements) ctx.unsupported("EyeLike over 65536 elements");
  const int dtype = static_cast<int>(ctx.attr_int("dtype", ctx.type(0).dtype));
  if (RxtDType(dtype) == nullptr) ctx.unsupported("EyeLike of element type " + std::to_string(dtype));
  const int64_t k = ctx.attr_int("k", 0);
  Constant eye;
  eye.dtype = dtype;
  eye.shape = dims;
  for (int64_t i = 0; i < dims[0]; ++i) {
    for (int64_t j = 0; j < dims[1]; ++j) {
      if (eye.is_float()) eye.floats.push_back(j - i == k);
      else eye.ints.push_back(j - i == k);
    }
  }
  ctx.set_output_constant(0, std::move(eye));
}

}  // namespace

void AddIndexConverters(ConverterMap& map) {
  map["Gather"] = &Gather;
  map["GatherElements"] = &GatherElements;
  map["OneHot"] = &OneHot;
  map["Trilu"] = &Trilu;
  map["EyeLike"] = &EyeLike;
}

}  // namespace rxt::import_onnx
