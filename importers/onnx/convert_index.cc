// Indexing ops: Gather, GatherElements, OneHot, the masks Trilu and EyeLike, and Compress and
// ReverseSequence when their condition or lengths are known at import. ONNX lets
// indices count from the end (negative); rxt's take wants them in range, so they are shifted
// here: at import time when known, else with a where.
#include <algorithm>

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
  const std::vector<int64_t> strides = RowMajorStrides(data);
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
    NextIndex(p, shape);
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
  const Constant* values = &ctx.required(2, "values");
  if (values->size() != 2) ctx.fail("values must hold two elements (off, on)");
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

/// GatherND: each index tuple (the last axis of indices, after batch_dims shared leading axes)
/// becomes one flat position, sum(index * stride) plus the batch's offset, and a take from the
/// data flattened over the indexed axes gathers the slices. Indices may be computed at run time.
void GatherND(NodeContext& ctx) {
  const std::vector<int64_t> data = StaticDims(ctx, 0), shape = StaticDims(ctx, 1);
  const int64_t r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(shape.size());
  const int64_t b = ctx.attr_int("batch_dims", 0);
  if (q < 1 || b < 0 || b >= std::min(q, r)) ctx.fail("batch_dims must be below the ranks of data and indices");
  const int64_t m = shape[q - 1];
  if (m < 1 || b + m > r) ctx.unsupported("GatherND with index tuples of " + std::to_string(m) + " for data of rank " + std::to_string(r));
  for (int64_t k = 0; k < b; ++k) {
    if (data[k] != shape[k]) ctx.fail("data and indices differ in batch dim " + std::to_string(k));
  }
  std::vector<int64_t> strides(m, 1), sizes(m);
  for (int64_t k = m - 1; k >= 0; --k) {
    sizes[k] = data[b + k];
    if (k + 1 < m) strides[k] = strides[k + 1] * data[b + k + 1];
  }
  const int64_t block = strides[0] * sizes[0];  // positions per batch entry
  std::string indices = ctx.expr(1);
  if (ctx.dtype(1) != "int64") indices = ctx.bind(Call("astype", {indices}, "dtype=int64"));
  std::string negative = ctx.bind(Call("less", {indices, "const(0, int64)"}));
  std::string shifted = ctx.bind(Call("add", {indices, ctx.constant_expr(MakeIntConstant(sizes, {m}))}));
  indices = ctx.bind(Call("where", {negative, shifted, indices}));
  std::string scaled = ctx.bind(Call("multiply", {indices, ctx.constant_expr(MakeIntConstant(strides, {m}))}));
  std::string flat = ctx.bind(Call("sum", {scaled}, "axis=[" + std::to_string(q - 1) + "], keepdims=false"));
  int64_t batches = 1;
  for (int64_t k = 0; k < b; ++k) batches *= data[k];
  if (b > 0) {
    std::vector<int64_t> offsets(batches), offset_shape(shape.begin(), shape.begin() + b);
    for (int64_t k = 0; k < batches; ++k) offsets[k] = k * block;
    offset_shape.resize(q - 1, 1);
    Constant c = MakeIntConstant(offsets, {batches});
    c.shape = offset_shape;
    flat = ctx.bind(Call("add", {flat, ctx.constant_expr(c)}));
  }
  std::vector<std::string> flat_shape = {std::to_string(batches * block)};
  for (int64_t k = b + m; k < r; ++k) flat_shape.push_back(std::to_string(data[k]));
  std::string flat_data = ctx.bind(Call("reshape", {ctx.expr(0), ShapeExpr(flat_shape)}));
  ctx.set_output(0, Call("take", {flat_data, flat}, "axis=0"));
}

/// The writes of a scatter with indices known at import: (flat position in the data, flat
/// position in the updates), in the order ONNX applies them.
using Writes = std::vector<std::pair<int64_t, int64_t>>;

/// data with |writes| of updates applied: reduction none keeps the last write to a position;
/// add and mul combine every write, as a sum (product) of takes from the updates followed by
/// one padding element (0 for add, 1 for mul) that positions without a d-th write read.
void ApplyWrites(NodeContext& ctx, const std::vector<int64_t>& data_dims, int64_t updates_count, const Writes& writes) {
  const std::string reduction = ctx.attr_string("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul") ctx.unsupported(ctx.op() + " with reduction " + reduction);
  size_t count = 1;
  for (int64_t d : data_dims) count *= static_cast<size_t>(d);
  if (count > kMaxFoldedElements) ctx.unsupported(ctx.op() + " into more than 65536 elements");
  std::vector<std::vector<int64_t>> sources(count);
  for (const auto& [target, source] : writes) {
    if (reduction == "none") sources[target].assign(1, source);
    else sources[target].push_back(source);
  }
  size_t depth = 0;
  for (const auto& s : sources) depth = std::max(depth, s.size());
  const std::string dt = ctx.dtype(0);
  std::string data = ctx.expr(0);
  std::string updates = ctx.bind(Call("reshape", {ctx.expr(2), ShapeExpr({std::to_string(updates_count)})}));
  const double pad = reduction == "mul" ? 1 : 0;
  std::string padded = ctx.bind(Call("concat", {"(" + updates + ", " + Call("reshape", {ctx.scalar_const(pad, dt), ShapeExpr({"1"})}) + ")"}, "axis=0"));
  std::string result = data;
  for (size_t d = 0; d < depth; ++d) {
    Constant positions;
    positions.shape = data_dims;
    Constant written;
    written.dtype = onnx::TensorProto::BOOL;
    written.shape = data_dims;
    for (const auto& s : sources) {
      positions.ints.push_back(d < s.size() ? s[d] : updates_count);
      written.ints.push_back(d < s.size());
    }
    std::string values = ctx.bind(Call("take", {padded, ctx.constant_expr(positions)}, "axis=0"));
    if (reduction == "none") result = ctx.bind(Call("where", {ctx.constant_expr(written), values, result}));
    else result = ctx.bind(Call(reduction == "add" ? "add" : "multiply", {result, values}));
  }
  ctx.set_output(0, result);
}

/// ScatterElements (and the older Scatter) with indices known at import.
void ScatterElements(NodeContext& ctx) {
  const std::vector<int64_t> data = StaticDims(ctx, 0), shape = StaticDims(ctx, 2);
  const int64_t rank = static_cast<int64_t>(data.size());
  if (static_cast<int64_t>(shape.size()) != rank) ctx.fail("data and updates differ in rank");
  const int64_t axis = NormalizeAxis(ctx, ctx.attr_int("axis", 0), rank);
  const Constant& indices = ctx.required(1, "indices");
  if (indices.is_float()) ctx.fail("indices must be integers");
  if (indices.shape != shape) ctx.fail("indices and updates differ in shape");
  const std::vector<int64_t> strides = RowMajorStrides(data);
  Writes writes;
  std::vector<int64_t> p(rank, 0);
  for (size_t flat = 0; flat < indices.size(); ++flat) {
    int64_t index = indices.ints[flat];
    if (index < -data[axis] || index >= data[axis]) ctx.fail("index " + std::to_string(index) + " is out of range");
    if (index < 0) index += data[axis];
    int64_t target = 0;
    for (int64_t k = 0; k < rank; ++k) {
      const int64_t coordinate = k == axis ? index : p[k];
      if (coordinate >= data[k]) ctx.fail("updates reach outside the data along axis " + std::to_string(k));
      target += coordinate * strides[k];
    }
    writes.emplace_back(target, static_cast<int64_t>(flat));
    NextIndex(p, shape);
  }
  ApplyWrites(ctx, data, static_cast<int64_t>(indices.size()), writes);
}

/// ScatterND with indices known at import: each index tuple writes a slice of the data.
void ScatterND(NodeContext& ctx) {
  const std::vector<int64_t> data = StaticDims(ctx, 0), updates = StaticDims(ctx, 2);
  const Constant& indices = ctx.required(1, "indices");
  if (indices.is_float()) ctx.fail("indices must be integers");
  if (indices.shape.empty()) ctx.fail("indices must be at least 1-D");
  const int64_t r = static_cast<int64_t>(data.size()), m = indices.shape.back();
  if (m < 1 || m > r) ctx.fail("index tuples of " + std::to_string(m) + " for data of rank " + std::to_string(r));
  int64_t slice = 1;
  for (int64_t k = m; k < r; ++k) slice *= data[k];
  std::vector<int64_t> strides(m, slice);
  for (int64_t k = m - 2; k >= 0; --k) strides[k] = strides[k + 1] * data[k + 1];
  const int64_t tuples = static_cast<int64_t>(indices.size()) / m;
  int64_t updates_count = 1;
  for (int64_t d : updates) updates_count *= d;
  if (static_cast<size_t>(updates_count) > kMaxFoldedElements) ctx.unsupported("ScatterND of more than 65536 updates");
  if (slice == 0 || tuples > updates_count || updates_count != tuples * slice) {
    ctx.fail("updates do not hold one data slice per index tuple");
  }
  Writes writes;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (int64_t k = 0; k < m; ++k) {
      int64_t index = indices.ints[t * m + k];
      if (index < -data[k] || index >= data[k]) ctx.fail("index " + std::to_string(index) + " is out of range");
      if (index < 0) index += data[k];
      base += index * strides[k];
    }
    for (int64_t s = 0; s < slice; ++s) writes.emplace_back(base + s, t * slice + s);
  }
  ApplyWrites(ctx, data, updates_count, writes);
}

/// Compress with a condition known at import: a take of the positions where it holds (along
/// |axis|, or of the flattened input).
void Compress(NodeContext& ctx) {
  const Constant& condition = ctx.required(1, "condition");
  std::vector<int64_t> chosen;
  for (size_t i = 0; i < condition.size(); ++i) {
    if (condition.as_double(i) != 0) chosen.push_back(static_cast<int64_t>(i));
  }
  std::string x = ctx.expr(0);
  int64_t axis = 0;
  int64_t length = 0;
  if (ctx.has_attr("axis")) {
    axis = NormalizeAxis(ctx, ctx.attr_int("axis", 0), ctx.rank(0));
    length = StaticDims(ctx, 0)[axis];
  } else {
    x = ctx.bind(Call("reshape", {x, ShapeExpr({Product(DimTexts(ctx, 0))})}));
    length = 1;
    for (int64_t d : StaticDims(ctx, 0)) length *= d;
  }
  if (static_cast<int64_t>(condition.size()) > length) ctx.fail("the condition is longer than the axis");
  const int64_t count = static_cast<int64_t>(chosen.size());
  ctx.set_output(0, Call("take", {x, ctx.constant_expr(MakeIntConstant(std::move(chosen), {count}))},
                         "axis=" + std::to_string(axis)));
}

/// ReverseSequence with lengths known at import: one take from the flattened input at constant
/// positions (the first len[b] steps of batch b reversed, the rest in place).
void ReverseSequence(NodeContext& ctx) {
  const std::vector<int64_t> dims = StaticDims(ctx, 0);
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (rank < 2) ctx.fail("the input must be at least 2-D");
  const int64_t time = NormalizeAxis(ctx, ctx.attr_int("time_axis", 0), rank);
  const int64_t batch = NormalizeAxis(ctx, ctx.attr_int("batch_axis", 1), rank);
  if (time == batch || time > 1 || batch > 1) ctx.fail("time_axis and batch_axis must be 0 and 1 in some order");
  const Constant& lengths = ctx.required(1, "sequence_lens");
  if (static_cast<int64_t>(lengths.size()) != dims[batch]) ctx.fail("sequence_lens must hold one length per batch entry");
  Constant positions;
  positions.shape = dims;
  size_t count = 1;
  for (int64_t d : dims) count *= static_cast<size_t>(d);
  if (count > kMaxFoldedElements) ctx.unsupported("ReverseSequence over more than 65536 elements");
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> p(rank, 0);
  for (size_t flat = 0; flat < count; ++flat) {
    const int64_t len = static_cast<int64_t>(lengths.as_double(static_cast<size_t>(p[batch])));
    if (len < 0 || len > dims[time]) ctx.fail("a sequence length is out of range [0, " + std::to_string(dims[time]) + "]");
    const int64_t t = p[time], source = t < len ? len - 1 - t : t;
    positions.ints.push_back(static_cast<int64_t>(flat) + (source - t) * strides[time]);
    NextIndex(p, dims);
  }
  std::string flat_data = ctx.bind(Call("reshape", {ctx.expr(0), ShapeExpr({std::to_string(count)})}));
  ctx.set_output(0, Call("take", {flat_data, ctx.constant_expr(positions)}, "axis=0"));
}

}  // namespace

void AddIndexConverters(ConverterMap& map) {
  map["Gather"] = &Gather;
  map["GatherElements"] = &GatherElements;
  map["OneHot"] = &OneHot;
  map["Trilu"] = &Trilu;
  map["EyeLike"] = &EyeLike;
  map["Compress"] = &Compress;
  map["GatherND"] = &GatherND;
  map["ScatterElements"] = &ScatterElements;
  map["ScatterND"] = &ScatterND;
  map["ReverseSequence"] = &ReverseSequence;
}

}  // namespace rxt::import_onnx
