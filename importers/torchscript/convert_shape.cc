// Shape aten ops: views and reshapes, transposes and permutations, (un)squeeze, concatenation,
// splits, expand, select and slice; and the ops that are the identity for rxt (contiguous,
// clone, detach: rxt values are immutable).
#include <algorithm>
#include <map>

#include "converters.h"

namespace rxt::import_torchscript {
namespace {

void Identity(NodeContext& ctx) {
  ctx.tensor_value(0);
  ctx.set_output(0, ctx.input(0));
}

void Flatten(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  Dims dims = ctx.dims(0);
  if (rank == 0) return ctx.set_tensor(0, Call("reshape", {ctx.tensor(0), "shape(1)"}), {Dim::Static(1)}, ctx.dtype(0));
  const int64_t start = ctx.axis(ctx.integer(1, "start_dim"), rank), end = ctx.axis(ctx.integer(2, "end_dim"), rank);
  if (start > end) ctx.fail("flatten from dim " + std::to_string(start) + " to " + std::to_string(end));
  Dims out(dims.begin(), dims.begin() + start);
  out.push_back(Product(Dims(dims.begin() + start, dims.begin() + end + 1)));
  out.insert(out.end(), dims.begin() + end + 1, dims.end());
  ctx.set_tensor(
      0, Call("flatten", {ctx.tensor(0)}, "start_dim=" + std::to_string(start) + ", end_dim=" + std::to_string(end)),
      out, ctx.dtype(0));
}

/// The dims a reshape of |in| to |want| (one may be -1) gives: -1 resolved when the other dims'
/// static part divides the input's and their symbols are the input's.
Dims ResolveShape(NodeContext& ctx, const Dims& in, Dims want) {
  int inferred = -1;
  Dims others;
  for (size_t k = 0; k < want.size(); ++k) {
    if (want[k].is_static() || !want[k].symbol.empty()) {
      others.push_back(want[k]);
      continue;
    }
    if (want[k].value != -1 || inferred >= 0)
      ctx.fail("shape " + ShapeExpr(want) + " has a negative dim other than one -1");
    inferred = static_cast<int>(k);
  }
  auto split = [](const Dims& dims, int64_t* known, std::vector<std::string>* symbols) {
    *known = 1;
    for (const Dim& d : dims) {
      if (d.is_static())
        *known = CheckedMul(*known, d.value);
      else
        symbols->push_back(d.symbol);
    }
    std::sort(symbols->begin(), symbols->end());
  };
  int64_t in_known = 0, other_known = 0;
  std::vector<std::string> in_symbols, other_symbols;
  split(in, &in_known, &in_symbols);
  split(others, &other_known, &other_symbols);
  if (inferred >= 0) {
    // The symbols of the input the other dims lack stay in the inferred dim.
    std::vector<std::string> rest;
    std::set_difference(in_symbols.begin(), in_symbols.end(), other_symbols.begin(), other_symbols.end(),
                        std::back_inserter(rest));
    if (!std::includes(in_symbols.begin(), in_symbols.end(), other_symbols.begin(), other_symbols.end()) ||
        other_known == 0 || in_known % other_known != 0) {
      ctx.unsupported("a reshape of " + TensorSInfo(in, ctx.dtype(0)) + " to " + ShapeExpr(want) +
                      " (-1 not resolved at import)");
    }
    Dims parts;
    for (const std::string& s : rest) parts.push_back(Dim::Symbolic(s));
    parts.push_back(Dim::Static(in_known / other_known));
    want[inferred] = Product(parts);
  } else if (in_symbols.empty() && other_symbols.empty() && in_known != other_known) {
    ctx.fail("cannot reshape " + TensorSInfo(in, ctx.dtype(0)) + " to " + ShapeExpr(want));
  }
  return want;
}

/// view / reshape (x, shape); view_as / reshape_as (x, other).
void Reshape(NodeContext& ctx) {
  const bool as = ctx.kind() == "aten::view_as" || ctx.kind() == "aten::reshape_as";
  Dims want = as ? ctx.dims(1) : ctx.dim_list(1, "shape");
  Dims out = ResolveShape(ctx, ctx.dims(0), want);
  ctx.set_tensor(0, Call("reshape", {ctx.tensor(0), ShapeExpr(out)}), out, ctx.dtype(0));
}

void Permute(NodeContext& ctx, const std::vector<int64_t>& axes) {
  Dims out;
  for (int64_t a : axes) out.push_back(ctx.dims(0)[a]);
  ctx.set_tensor(0, Call("permute_dims", {ctx.tensor(0)}, "axes=" + IntList(axes)), out, ctx.dtype(0));
}

void Transpose(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  std::vector<int64_t> axes(rank);
  for (int k = 0; k < rank; ++k) axes[k] = k;
  if (ctx.kind() == "aten::t" || ctx.kind() == "aten::numpy_T") {
    if (rank < 2) return ctx.set_output(0, ctx.input(0));
    std::reverse(axes.begin(), axes.end());
  } else {
    std::swap(axes[ctx.axis(ctx.integer(1, "dim0"), rank)], axes[ctx.axis(ctx.integer(2, "dim1"), rank)]);
  }
  Permute(ctx, axes);
}

void PermuteOp(NodeContext& ctx) {
  std::vector<int64_t> axes = ctx.ints(1, "dims");
  const int rank = ctx.rank(0);
  if (static_cast<int>(axes.size()) != rank)
    ctx.fail("permutes " + std::to_string(axes.size()) + " dims of a " + std::to_string(rank) + "-D tensor");
  std::vector<bool> seen(rank);
  for (int64_t& a : axes) {
    a = ctx.axis(a, rank);
    if (seen[a]) ctx.fail("dims is not a permutation");
    seen[a] = true;
  }
  Permute(ctx, axes);
}

void Unsqueeze(NodeContext& ctx) {
  const int64_t axis = ctx.axis(ctx.integer(1, "dim"), ctx.rank(0) + 1);
  Dims out = ctx.dims(0);
  out.insert(out.begin() + axis, Dim::Static(1));
  ctx.set_tensor(0, Call("expand_dims", {ctx.tensor(0)}, "axis=[" + std::to_string(axis) + "]"), out, ctx.dtype(0));
}

void Squeeze(NodeContext& ctx) {
  Dims in = ctx.dims(0), out;
  std::vector<int64_t> axes;
  if (ctx.num_inputs() > 1) {
    for (int64_t a : ctx.ints(1, "dim")) axes.push_back(ctx.axis(a, ctx.rank(0)));
  } else {
    for (size_t k = 0; k < in.size(); ++k) {
      if (!in[k].is_static()) ctx.unsupported("squeeze of every size-1 dim with symbolic dims");
      if (in[k].value == 1) axes.push_back(static_cast<int64_t>(k));
    }
  }
  std::vector<int64_t> kept;  // PyTorch leaves a dim that is not 1 alone
  for (int64_t a : axes) {
    if (in[a].is_static() && in[a].value == 1)
      kept.push_back(a);
    else if (!in[a].is_static())
      ctx.unsupported("squeeze of the symbolic dim " + in[a].symbol);
  }
  for (size_t k = 0; k < in.size(); ++k) {
    if (std::find(kept.begin(), kept.end(), static_cast<int64_t>(k)) == kept.end()) out.push_back(in[k]);
  }
  if (kept.empty()) return ctx.set_output(0, ctx.input(0));
  ctx.set_tensor(0, Call("squeeze", {ctx.tensor(0)}, "axis=" + IntList(kept)), out, ctx.dtype(0));
}

/// The tensors of a list input, all of one dtype.
std::vector<const Value*> TensorList(NodeContext& ctx, int i) {
  const Value& list = ctx.input(i);
  if (list.kind != Kind::kList || list.items.empty()) ctx.unsupported("a tensor list that is " + list.describe());
  std::vector<const Value*> out;
  for (const Value& item : list.items) {
    if (item.kind != Kind::kTensor) ctx.unsupported("a tensor list holding " + item.describe());
    out.push_back(&item);
  }
  return out;
}

std::string ExprOf(NodeContext& ctx, const Value& v) {
  return v.attribute.empty() ? v.expr : ctx.backbone().AttributeExpr(v.attribute);
}

void Cat(NodeContext& ctx) {
  std::vector<const Value*> parts = TensorList(ctx, 0);
  const bool stack = ctx.kind() == "aten::stack";
  const int rank = parts[0]->rank() + (stack ? 1 : 0);
  const int64_t axis = ctx.axis(ctx.num_inputs() > 1 ? ctx.integer(1, "dim") : 0, rank);
  std::vector<std::string> exprs;
  Dims out = parts[0]->dims;
  if (stack) out.insert(out.begin() + axis, Dim::Static(0));
  Dims along;
  for (const Value* p : parts) {
    if (p->rank() != parts[0]->rank() || p->dtype != parts[0]->dtype)
      ctx.unsupported("cat of tensors of different ranks or dtypes");
    std::string e = ExprOf(ctx, *p);
    if (stack) e = ctx.bind(Call("expand_dims", {e}, "axis=[" + std::to_string(axis) + "]"));
    exprs.push_back(e);
    along.push_back(stack ? Dim::Static(1) : p->dims[axis]);
  }
  out[axis] = stack ? Dim::Static(static_cast<int64_t>(parts.size())) : Dim();
  if (!stack) {
    // The sum of the parts' dims: static, or a sum of symbols.
    int64_t known = 0;
    std::string symbolic;
    for (const Dim& d : along) {
      if (d.is_static() && __builtin_add_overflow(known, d.value, &known))
        ctx.fail("concatenates more than 2^63 elements");
      else
        symbolic += (symbolic.empty() ? "" : " + ") + d.symbol;
    }
    out[axis] = symbolic.empty() ? Dim::Static(known)
                                 : Dim::Symbolic(known == 0 ? symbolic : symbolic + " + " + std::to_string(known));
  }
  ctx.set_tensor(
      0, Call("concat", {"(" + Join(exprs) + (exprs.size() == 1 ? "," : "") + ")"}, "axis=" + std::to_string(axis)),
      out, parts[0]->dtype);
}

/// Splits input 0 along |axis| into parts of |sizes| (static); the output is a list of them.
void SplitInto(NodeContext& ctx, int64_t axis, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> cuts;
  int64_t at = 0;
  for (size_t k = 0; k + 1 < sizes.size(); ++k) cuts.push_back(at += sizes[k]);
  std::string tuple =
      ctx.bind(Call("split", {ctx.tensor(0)}, "indices=" + IntList(cuts) + ", axis=" + std::to_string(axis)));
  std::vector<Value> parts;
  for (size_t k = 0; k < sizes.size(); ++k) {
    Dims dims = ctx.dims(0);
    dims[axis] = Dim::Static(sizes[k]);
    parts.push_back(ctx.bind_tensor(tuple + "[" + std::to_string(k) + "]", dims, ctx.dtype(0)));
  }
  if (ctx.kind() == "aten::unbind") {
    for (Value& p : parts) {
      Dims dims = p.dims;
      dims.erase(dims.begin() + axis);
      p = ctx.bind_tensor(Call("squeeze", {p.expr}, "axis=[" + std::to_string(axis) + "]"), dims, p.dtype);
    }
  }
  ctx.set_output(0, Value::List(std::move(parts)));
}

/// chunk(x, chunks, dim), split(x, split_size, dim), split_with_sizes(x, sizes, dim), unbind(x, dim).
void Split(NodeContext& ctx) {
  const std::string& kind = ctx.kind();
  const int rank = ctx.rank(0);
  const int64_t axis = ctx.axis(kind == "aten::unbind" ? ctx.integer(1, "dim") : ctx.integer(2, "dim"), rank);
  const Dim& d = ctx.dims(0)[axis];
  if (!d.is_static()) ctx.unsupported("a split of the symbolic dim " + d.symbol);
  std::vector<int64_t> sizes;
  if (kind == "aten::split_with_sizes" || (kind == "aten::split" && ctx.input(1).kind == Kind::kList)) {
    sizes = ctx.ints(1, "split_sizes");
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 0 || __builtin_add_overflow(total, s, &total)) ctx.fail("split sizes must be non-negative");
    }
    if (sizes.size() > 4096) ctx.unsupported("a split into more than 4096 parts");
    if (total != d.value)
      ctx.fail("split sizes add up to " + std::to_string(total) + ", not " + std::to_string(d.value));
  } else {
    int64_t size = 1;
    if (kind == "aten::chunk") {
      const int64_t chunks = ctx.integer(1, "chunks");
      if (chunks <= 0) ctx.fail("chunks must be positive");
      size = d.value / chunks + (d.value % chunks != 0 ? 1 : 0);  // PyTorch: ceil(dim / chunks) each, the last smaller
    } else if (kind == "aten::split") {
      size = ctx.integer(1, "split_size");
    }
    if (size <= 0) ctx.fail("split size must be positive");
    if (d.value / size > 4096) ctx.unsupported("a split into more than 4096 parts");
    for (int64_t at = 0; at < d.value; at += size) sizes.push_back(std::min(size, d.value - at));
    if (sizes.empty()) sizes.push_back(0);
  }
  SplitInto(ctx, axis, sizes);
}

/// expand(x, size, implicit): -1 keeps a dim.
void Expand(NodeContext& ctx) {
  Dims want = ctx.kind() == "aten::expand_as" ? ctx.dims(1) : ctx.dim_list(1, "size");
  const Dims& in = ctx.dims(0);
  if (want.size() < in.size())
    ctx.fail("expands a " + std::to_string(in.size()) + "-D tensor to " + std::to_string(want.size()) + " dims");
  for (size_t k = 0; k < want.size(); ++k) {
    if (want[k].is_static() || !want[k].symbol.empty()) continue;
    const size_t offset = want.size() - in.size();
    if (k < offset) ctx.fail("-1 for a new dim in expand");
    want[k] = in[k - offset];
  }
  Broadcast(ctx, in, want);
  ctx.set_tensor(0, Call("broadcast_to", {ctx.tensor(0), ShapeExpr(want)}), want, ctx.dtype(0));
}

/// select(x, dim, index): one index of one dim, the dim removed.
void Select(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  const int64_t axis = ctx.axis(ctx.integer(1, "dim"), rank);
  int64_t index = ctx.integer(2, "index");
  const Dim& d = ctx.dims(0)[axis];
  if (!d.is_static()) ctx.unsupported("select along the symbolic dim " + d.symbol);
  if (index < -d.value || index >= d.value)
    ctx.fail("index " + std::to_string(index) + " is out of range for a dim of " + std::to_string(d.value));
  if (index < 0) index += d.value;
  std::string sliced = ctx.bind(Call("strided_slice", {ctx.tensor(0)},
                                     "axes=[" + std::to_string(axis) + "], begin=[" + std::to_string(index) +
                                         "], end=[" + std::to_string(index + 1) + "]"));
  Dims out = ctx.dims(0);
  out.erase(out.begin() + axis);
  ctx.set_tensor(0, Call("squeeze", {sliced}, "axis=[" + std::to_string(axis) + "]"), out, ctx.dtype(0));
}

/// slice(x, dim, start, end, step), start and end None or clamped as Python's.
void Slice(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  const int64_t axis = ctx.axis(ctx.integer(1, "dim"), rank);
  const Dim& d = ctx.dims(0)[axis];
  const int64_t step = ctx.num_inputs() > 4 ? ctx.integer(4, "step") : 1;
  // x[:, ...] (start 0, end None or INT64_MAX, step 1) keeps the dim, symbolic or not.
  const bool from_start = ctx.is_none(2) || ctx.integer(2, "start") == 0;
  const bool to_end = ctx.is_none(3) || ctx.number(3, "end") >= 9.2e18;
  if (from_start && to_end && step == 1) return ctx.set_output(0, ctx.input(0));
  if (!d.is_static()) ctx.unsupported("slice along the symbolic dim " + d.symbol);
  const int64_t n = d.value;
  if (step <= 0) ctx.fail("slice step must be positive");
  auto clamp = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
  const int64_t start = ctx.is_none(2) ? 0 : clamp(ctx.integer(2, "start"));
  const int64_t end = ctx.is_none(3) || ctx.number(3, "end") >= 9.0e15 ? n : clamp(ctx.integer(3, "end"));
  if (start == 0 && end == n && step == 1) return ctx.set_output(0, ctx.input(0));
  Dims out = ctx.dims(0);
  out[axis] = Dim::Static(end > start ? (end - start - 1) / step + 1 : 0);
  ctx.set_tensor(0,
                 Call("strided_slice", {ctx.tensor(0)},
                      "axes=[" + std::to_string(axis) + "], begin=[" + std::to_string(start) + "], end=[" +
                          std::to_string(end) + "], strides=[" + std::to_string(step) + "]"),
                 out, ctx.dtype(0));
}

/// upsample_nearest2d(x, output_size, scale_factors) by whole factors: each pixel repeated
/// (reshape to (N, C, H, 1, W, 1), broadcast_to (N, C, H, s, W, t), reshape to (N, C, H*s, W*t)).
void UpsampleNearest(NodeContext& ctx) {
  if (ctx.rank(0) != 4) ctx.unsupported("upsample_nearest2d of a " + std::to_string(ctx.rank(0)) + "-D input");
  const Dims& in = ctx.dims(0);
  std::vector<int64_t> factors(2);
  for (int k = 0; k < 2; ++k) {
    if (!in[2 + k].is_static() || in[2 + k].value == 0) ctx.unsupported("upsample_nearest2d of a symbolic or empty dim");
    if (!ctx.is_none(1)) {
      const std::vector<int64_t> size = ctx.ints(1, "output_size");
      if (size.size() != 2) ctx.fail("output_size has " + std::to_string(size.size()) + " values");
      if (size[k] <= 0 || size[k] % in[2 + k].value != 0) ctx.unsupported("upsample_nearest2d by a factor that is not whole");
      factors[k] = size[k] / in[2 + k].value;
    } else {
      const Value& scales = ctx.input(2);
      if (scales.kind != Kind::kList || scales.items.size() != 2 || !scales.items[k].is_known_number()) {
        ctx.unsupported("upsample_nearest2d with scales that are " + scales.describe());
      }
      const double s = scales.items[k].number;
      if (!(s >= 1 && s <= 1024) || s != static_cast<double>(static_cast<int64_t>(s))) {
        ctx.unsupported("upsample_nearest2d by a factor that is not whole");
      }
      factors[k] = static_cast<int64_t>(s);
    }
  }
  Dims spread = {in[0], in[1], in[2], Dim::Static(1), in[3], Dim::Static(1)};
  Dims wide = {in[0], in[1], in[2], Dim::Static(factors[0]), in[3], Dim::Static(factors[1])};
  Dims out = {in[0], in[1], Dim::Static(CheckedMul(in[2].value, factors[0])), Dim::Static(CheckedMul(in[3].value, factors[1]))};
  std::string y = ctx.bind(Call("reshape", {ctx.tensor(0), ShapeExpr(spread)}));
  y = ctx.bind(Call("broadcast_to", {y, ShapeExpr(wide)}));
  ctx.set_tensor(0, Call("reshape", {y, ShapeExpr(out)}), out, ctx.dtype(0));
}

}  // namespace

void AddShapeConverters(ConverterMap& map) {
  for (const char* k : {"aten::contiguous", "aten::clone", "aten::detach", "aten::alias", "prim::data"})
    map[k] = Identity;
  map["aten::flatten"] = Flatten;
  map["aten::view"] = Reshape;
  map["aten::reshape"] = Reshape;
  map["aten::view_as"] = Reshape;
  map["aten::reshape_as"] = Reshape;
  map["aten::transpose"] = Transpose;
  map["aten::t"] = Transpose;
  map["aten::numpy_T"] = Transpose;
  map["aten::permute"] = PermuteOp;
  map["aten::unsqueeze"] = Unsqueeze;
  map["aten::squeeze"] = Squeeze;
  map["aten::cat"] = Cat;
  map["aten::concat"] = Cat;
  map["aten::stack"] = Cat;
  map["aten::chunk"] = Split;
  map["aten::split"] = Split;
  map["aten::split_with_sizes"] = Split;
  map["aten::unsafe_chunk"] = Split;
  map["aten::unsafe_split"] = Split;
  map["aten::unbind"] = Split;
  map["aten::expand"] = Expand;
  map["aten::expand_as"] = Expand;
  map["aten::select"] = Select;
  map["aten::slice"] = Slice;
  map["aten::upsample_nearest2d"] = UpsampleNearest;
}

}  // namespace rxt::import_torchscript
