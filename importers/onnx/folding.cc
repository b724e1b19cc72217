// Folding: nodes whose inputs are known at import time are computed here, so that shape
// subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, ConstantOfShape -> Where ...)
// leave no ops behind. Integer elements may be symbolic: Shape of a (n, 3) value is [n, 3], and
// Add, Sub and Mul combine such elements into prim expressions.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include "convert_util.h"
#include "converters.h"
#include "onnx_model.h"
#include "tensor_data.h"

namespace rxt::import_onnx {
namespace {

using onnx::TensorProto;

/// One element of a folded value: a number, or a symbolic integer.
struct Elem {
  double f = 0;
  int64_t i = 0;
  std::string sym;  // non-empty: a symbolic integer
};

Elem Get(const Constant& c, size_t k) {
  Elem e;
  if (c.is_float()) e.f = c.floats[k];
  else {
    e.i = c.ints[k];
    if (c.is_symbolic(k)) e.sym = c.symbols[k];
  }
  return e;
}

void Put(Constant& c, const Elem& e) {
  if (c.is_float()) {
    c.floats.push_back(RoundToType(e.f, c.dtype));
    return;
  }
  // symbols stays empty until the first symbolic element, then runs parallel to ints.
  if (!e.sym.empty() && c.symbols.size() < c.ints.size()) c.symbols.resize(c.ints.size());
  const bool tracked = c.symbols.size() == c.ints.size() && (!c.symbols.empty() || !e.sym.empty());
  c.ints.push_back(e.sym.empty() ? WrapToType(e.i, c.dtype) : 0);
  if (tracked) c.symbols.push_back(e.sym);
}

size_t Count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

/// The NumPy broadcast of shapes; nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> BroadcastShape(const std::vector<const Constant*>& inputs) {
  size_t rank = 0;
  for (const Constant* c : inputs) rank = std::max(rank, c->shape.size());
  std::vector<int64_t> out(rank, 1);
  for (const Constant* c : inputs) {
    for (size_t k = 0; k < c->shape.size(); ++k) {
      int64_t& o = out[rank - c->shape.size() + k];
      const int64_t d = c->shape[k];
      if (d == o || d == 1) continue;
      if (o != 1) return std::nullopt;
      o = d;
    }
  }
  return out;
}

/// The flat index into |shape| (right-aligned, broadcast) of the multi-index |index| of the result.
size_t BroadcastIndex(const std::vector<int64_t>& shape, const std::vector<int64_t>& index) {
  size_t flat = 0;
  const size_t offset = index.size() - shape.size();
  for (size_t k = 0; k < shape.size(); ++k) flat = flat * shape[k] + (shape[k] == 1 ? 0 : index[offset + k]);
  return flat;
}

/// Elementwise with broadcasting; |fn| may return nullopt to give up (a symbol it cannot combine).
bool FoldElementwise(NodeContext& ctx, const std::vector<const Constant*>& inputs, int out_dtype,
                     const std::function<std::optional<Elem>(const std::vector<Elem>&)>& fn) {
  std::optional<std::vector<int64_t>> shape = BroadcastShape(inputs);
  if (!shape || Count(*shape) > kMaxFoldedElements) return false;
  Constant out;
  out.dtype = out_dtype;
  out.shape = *shape;
  std::vector<int64_t> index(shape->size(), 0);
  const size_t n = Count(*shape);
  for (size_t flat = 0; flat < n; ++flat) {
    std::vector<Elem> args;
    for (const Constant* c : inputs) args.push_back(Get(*c, BroadcastIndex(c->shape, index)));
    std::optional<Elem> e = fn(args);
    if (!e) return false;
    Put(out, *e);
    for (int k = static_cast<int>(index.size()) - 1; k >= 0 && ++index[k] == (*shape)[k]; --k) index[k] = 0;
  }
  ctx.set_output_constant(0, std::move(out));
  return true;
}

/// An operand of a prim expression: parenthesized unless a number or one name.
std::string Paren(const Elem& e) {
  if (e.sym.empty()) return std::to_string(e.i);
  return e.sym.find(' ') == std::string::npos ? e.sym : "(" + e.sym + ")";
}

/// a op b on integers, either possibly symbolic (+, -, *): a prim expression when symbolic.
std::optional<Elem> IntArith(char op, const Elem& a, const Elem& b) {
  Elem r;
  if (a.sym.empty() && b.sym.empty()) {
    r.i = op == '+' ? a.i + b.i : op == '-' ? a.i - b.i : a.i * b.i;
    return r;
  }
  if (op == '*' && ((a.sym.empty() && a.i == 1) || (b.sym.empty() && b.i == 1))) return a.sym.empty() ? b : a;
  if (op != '*' && b.sym.empty() && b.i == 0) return a;
  r.sym = Paren(a) + " " + std::string(1, op) + " " + Paren(b);
  return r;
}

/// Normalizes a possibly negative axis into [0, rank).
std::optional<int64_t> Axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// The elements of |c| at flat indices |picks|, shaped |shape|.
Constant Pick(const Constant& c, const std::vector<size_t>& picks, std::vector<int64_t> shape) {
  Constant out;
  out.dtype = c.dtype;
  out.shape = std::move(shape);
  for (size_t k : picks) Put(out, Get(c, k));
  return out;
}

bool FoldConstant(NodeContext& ctx) {
  const onnx::NodeProto& node = ctx.node();
  if (node.attribute_size() != 1) ctx.fail("a Constant node needs exactly one attribute");
  const onnx::AttributeProto& a = node.attribute(0);
  Constant c;
  if (a.name() == "value") {
    c = ConstantFromTensor(a.t(), "");
  } else if (a.name() == "value_float") {
    c.dtype = TensorProto::FLOAT;
    c.floats = {a.f()};
  } else if (a.name() == "value_floats") {
    c.dtype = TensorProto::FLOAT;
    c.floats.assign(a.floats().begin(), a.floats().end());
    c.shape = {static_cast<int64_t>(c.floats.size())};
  } else if (a.name() == "value_int") {
    c.ints = {a.i()};
  } else if (a.name() == "value_ints") {
    c.ints.assign(a.ints().begin(), a.ints().end());
    c.shape = {static_cast<int64_t>(c.ints.size())};
  } else {
    ctx.unsupported("Constant with " + a.name());
  }
  ctx.set_output_constant(0, std::move(c));
  return true;
}

bool FoldShape(NodeContext& ctx) {
  const TypeInfo& t = ctx.type(0);
  if (!t.has_shape) return false;
  const int64_t rank = t.rank();
  int64_t start = ctx.attr_int("start", 0), end = ctx.attr_int("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  Constant out;
  for (int64_t k = start; k < end; ++k) {
    const Dim& d = t.dims[k];
    if (!d.is_known()) return false;
    Put(out, Elem{0, d.is_static() ? d.value : 0, d.is_static() ? "" : d.symbol});
  }
  out.shape = {static_cast<int64_t>(out.ints.size())};
  ctx.set_output_constant(0, std::move(out));
  return true;
}

bool FoldGather(NodeContext& ctx, const Constant& data, const Constant& indices) {
  if (indices.is_symbolic() || indices.is_float()) return false;
  std::optional<int64_t> axis = Axis(ctx.attr_int("axis", 0), static_cast<int64_t>(data.shape.size()));
  if (!axis) ctx.fail("axis out of range");
  const int64_t dim = data.shape[*axis];
  std::vector<int64_t> shape(data.shape.begin(), data.shape.begin() + *axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + *axis + 1, data.shape.end());
  if (Count(shape) > kMaxFoldedElements) return false;
  const std::vector<int64_t> strides = RowMajorStrides(data.shape);
  const int64_t outer = Count(std::vector<int64_t>(data.shape.begin(), data.shape.begin() + *axis));
  const int64_t inner = strides[*axis];
  std::vector<size_t> picks;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t index : indices.ints) {
      if (index < -dim || index >= dim) ctx.fail("index " + std::to_string(index) + " is out of range for a dim of " + std::to_string(dim));
      if (index < 0) index += dim;
      for (int64_t in = 0; in < inner; ++in) picks.push_back(static_cast<size_t>(o * dim * inner + index * inner + in));
    }
  }
  ctx.set_output_constant(0, Pick(data, picks, shape));
  return true;
}

bool FoldConcat(NodeContext& ctx, const std::vector<const Constant*>& inputs) {
  const int64_t rank = static_cast<int64_t>(inputs[0]->shape.size());
  std::optional<int64_t> axis = Axis(ctx.attr_int("axis", 0), rank);
  if (!axis) ctx.fail("axis out of range");
  Constant out;
  out.dtype = inputs[0]->dtype;
  out.shape = inputs[0]->shape;
  out.shape[*axis] = 0;
  for (const Constant* c : inputs) {
    if (static_cast<int64_t>(c->shape.size()) != rank || c->dtype != out.dtype) ctx.fail("inputs of different ranks or types");
    out.shape[*axis] += c->shape[*axis];
  }
  const int64_t outer = Count(std::vector<int64_t>(out.shape.begin(), out.shape.begin() + *axis));
  for (int64_t o = 0; o < outer; ++o) {
    for (const Constant* c : inputs) {
      const int64_t chunk = Count(std::vector<int64_t>(c->shape.begin() + *axis, c->shape.end()));
      for (int64_t k = 0; k < chunk; ++k) Put(out, Get(*c, static_cast<size_t>(o * chunk + k)));
    }
  }
  ctx.set_output_constant(0, std::move(out));
  return true;
}

bool FoldSlice(NodeContext& ctx, const Constant& data) {
  const int64_t rank = static_cast<int64_t>(data.shape.size());
  SliceSpec s = ReadSlice(ctx, rank);
  // Per axis, the picked indices.
  std::vector<std::vector<int64_t>> picked(rank);
  for (int64_t k = 0; k < rank; ++k) {
    for (int64_t i = 0; i < data.shape[k]; ++i) picked[k].push_back(i);
  }
  for (size_t k = 0; k < s.starts.size(); ++k) {
    const int64_t step = s.steps[k];
    auto [start, end] = ClampSlice(s.starts[k], s.ends[k], step, data.shape[s.axes[k]]);
    picked[s.axes[k]].clear();
    for (int64_t i = start; step > 0 ? i < end : i > end;) {
      picked[s.axes[k]].push_back(i);
      if (step > 0 ? end - i <= step : i - end <= -step) break;  // the next step passes the end (no overflow)
      i += step;
    }
  }
  std::vector<int64_t> shape;
  for (const auto& p : picked) shape.push_back(static_cast<int64_t>(p.size()));
  if (Count(shape) > kMaxFoldedElements) return false;
  const std::vector<int64_t> strides = RowMajorStrides(data.shape);
  std::vector<size_t> picks;
  std::vector<int64_t> index(rank, 0);
  const size_t n = Count(shape);
  for (size_t flat = 0; flat < n; ++flat) {
    size_t source = 0;
    for (int64_t k = 0; k < rank; ++k) source += picked[k][index[k]] * strides[k];
    picks.push_back(source);
    for (int64_t k = rank - 1; k >= 0 && ++index[k] == shape[k]; --k) index[k] = 0;
  }
  ctx.set_output_constant(0, Pick(data, picks, shape));
  return true;
}

/// The shape Reshape gives |data| for the requested |shape| (0 copies, -1 infers).
std::vector<int64_t> ReshapeTarget(NodeContext& ctx, const std::vector<int64_t>& in, std::vector<int64_t> shape) {
  const bool allowzero = ctx.attr_int("allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0 && !allowzero) {
      if (k >= in.size()) ctx.fail("shape copies dim " + std::to_string(k) + " that the input lacks");
      shape[k] = in[k];
    }
    if (shape[k] == -1) {
      if (infer >= 0) ctx.fail("shape has two -1 dims");
      infer = static_cast<int64_t>(k);
    } else {
      known *= shape[k];
    }
  }
  const int64_t total = static_cast<int64_t>(Count(in));
  if (infer >= 0) {
    if (known == 0 || total % known != 0) ctx.fail("cannot infer the -1 dim");
    shape[infer] = total / known;
  } else if (known != total) {
    ctx.fail("shape " + IntList(shape) + " does not hold " + std::to_string(total) + " elements");
  }
  return shape;
}

/// Transpose of a known value (torch's Pad exports reverse and transpose its pads).
bool FoldTranspose(NodeContext& ctx, const Constant& x) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> perm = ctx.attr_ints("perm", {});
  if (perm.empty()) {
    for (int64_t k = rank - 1; k >= 0; --k) perm.push_back(k);
  }
  if (static_cast<int64_t>(perm.size()) != rank) ctx.fail("perm has " + std::to_string(perm.size()) + " axes for rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (int64_t a : perm) {
    if (a < 0 || a >= rank || seen[a]) ctx.fail("perm is not a permutation of the axes");
    seen[a] = true;
  }
  const std::vector<int64_t> strides = RowMajorStrides(x.shape);
  Constant out;
  out.dtype = x.dtype;
  for (int64_t a : perm) out.shape.push_back(x.shape[a]);
  const size_t count = x.size();
  std::vector<int64_t> p(rank, 0);  // a position in the output
  for (size_t flat = 0; flat < count; ++flat) {
    size_t source = 0;
    for (int64_t k = 0; k < rank; ++k) source += static_cast<size_t>(p[k] * strides[perm[k]]);
    if (x.is_float()) out.floats.push_back(x.floats[source]);
    else out.ints.push_back(x.ints[source]);
    if (x.is_symbolic()) out.symbols.push_back(x.symbols[source]);
    NextIndex(p, out.shape);
  }
  ctx.set_output_constant(0, std::move(out));
  return true;
}

bool FoldCast(NodeContext& ctx, const Constant& c) {
  const int to = static_cast<int>(ctx.attr_int("to", 0));
  if (RxtDType(to) == nullptr) return false;
  Constant out;
  out.dtype = to;
  out.shape = c.shape;
  for (size_t k = 0; k < c.size(); ++k) {
    Elem e = Get(c, k);
    if (!e.sym.empty()) {
      if (IsFloatType(to)) return false;
    } else if (IsFloatType(to) && !c.is_float()) {
      e.f = static_cast<double>(e.i);
    } else if (!IsFloatType(to) && c.is_float()) {
      if (!std::isfinite(e.f)) return false;
      e.i = to == TensorProto::BOOL ? e.f != 0 : static_cast<int64_t>(std::trunc(e.f));
    }
    Put(out, e);
  }
  ctx.set_output_constant(0, std::move(out));
  return true;
}

bool FoldRange(NodeContext& ctx, const Constant& start, const Constant& limit, const Constant& delta) {
  if (start.is_symbolic() || limit.is_symbolic() || delta.is_symbolic()) return false;
  const double s = start.as_double(0), l = limit.as_double(0), d = delta.as_double(0);
  if (d == 0) ctx.fail("delta is 0");
  const double count = std::max(std::ceil((l - s) / d), 0.0);
  if (count > static_cast<double>(kMaxFoldedElements)) return false;
  Constant out;
  out.dtype = start.dtype;
  out.shape = {static_cast<int64_t>(count)};
  for (int64_t k = 0; k < out.shape[0]; ++k) {
    Elem e;
    if (start.is_float()) e.f = s + k * d;
    else e.i = start.ints[0] + k * delta.ints[0];
    Put(out, e);
  }
  ctx.set_output_constant(0, std::move(out));
  return true;
}

bool FoldConstantOfShape(NodeContext& ctx, const Constant& shape) {
  if (shape.is_symbolic()) return false;
  if (Count(shape.ints) > kMaxFoldedElements) return false;
  Constant fill;
  fill.dtype = TensorProto::FLOAT;
  fill.floats = {0.0};
  if (const onnx::AttributeProto* a = ctx.find_attr("value")) fill = ConstantFromTensor(a->t(), "");
  if (fill.size() != 1) ctx.fail("value must hold one element");
  for (int64_t d : shape.ints) {
    if (d < 0) ctx.fail("negative dim in shape");
  }
  Constant out;
  out.dtype = fill.dtype;
  out.shape = shape.ints;
  const size_t n = Count(shape.ints);
  for (size_t k = 0; k < n; ++k) Put(out, Get(fill, 0));
  ctx.set_output_constant(0, std::move(out));
  return true;
}

std::optional<Elem> Arith(const std::string& op, bool is_float, const Elem& a, const Elem& b) {
  Elem r;
  if (is_float) {
    if (op == "Add") r.f = a.f + b.f;
    else if (op == "Sub") r.f = a.f - b.f;
    else if (op == "Mul") r.f = a.f * b.f;
    else r.f = a.f / b.f;
    return r;
  }
  if (op == "Add") return IntArith('+', a, b);
  if (op == "Sub") return IntArith('-', a, b);
  if (op == "Mul") return IntArith('*', a, b);
  if (!a.sym.empty() || !b.sym.empty() || b.i == 0) return std::nullopt;
  r.i = a.i / b.i;  // ONNX's integer Div truncates, as C++
  return r;
}

std::optional<Elem> Compare(const std::string& op, bool is_float, const Elem& a, const Elem& b) {
  Elem r;
  if (!a.sym.empty() || !b.sym.empty()) {
    if (op == "Equal" && a.sym == b.sym) return Elem{0, 1, ""};
    return std::nullopt;
  }
  const double x = is_float ? a.f : static_cast<double>(a.i), y = is_float ? b.f : static_cast<double>(b.i);
  const bool ints = !is_float;
  if (op == "Equal") r.i = ints ? a.i == b.i : x == y;
  else if (op == "Less") r.i = ints ? a.i < b.i : x < y;
  else if (op == "Greater") r.i = ints ? a.i > b.i : x > y;
  else if (op == "LessOrEqual") r.i = ints ? a.i <= b.i : x <= y;
  else r.i = ints ? a.i >= b.i : x >= y;
  return r;
}

}  // namespace

bool TryFold(NodeContext& ctx) {
  const std::string& op = ctx.op();
  if (op == "Constant") return FoldConstant(ctx);
  if (op == "Shape") return FoldShape(ctx);
  // The rest fold only when every given input is known.
  static const std::set<std::string> kFoldable = {
      "Identity", "Cast",     "Add",    "Sub",   "Mul",         "Div",            "Neg",     "Equal",
      "Less",     "Greater",  "LessOrEqual",     "GreaterOrEqual", "Where", "Not", "Gather",  "Concat",
      "Unsqueeze", "Squeeze", "Slice",  "Reshape", "ConstantOfShape", "Range", "Abs", "Min", "Max", "Size", "Transpose"};
  if (kFoldable.count(op) == 0) return false;
  std::vector<const Constant*> in;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    const Constant* c = ctx.constant(i);
    if (c == nullptr) return false;
    in.push_back(c);
  }
  if (in.empty()) return false;
  const Constant& x = *in[0];
  if (op == "Identity") {
    ctx.set_output_constant(0, x);
    return true;
  }
  if (op == "Cast") return FoldCast(ctx, x);
  if (op == "Size") {
    ctx.set_output_constant(0, MakeIntConstant({static_cast<int64_t>(x.size())}, {}));
    return true;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    if (in.size() != 2) return false;
    return FoldElementwise(ctx, in, x.dtype, [&](const std::vector<Elem>& e) { return Arith(op, x.is_float(), e[0], e[1]); });
  }
  if (op == "Min" || op == "Max") {
    if (x.is_symbolic() || in.size() < 1) return false;
    return FoldElementwise(ctx, in, x.dtype, [&](const std::vector<Elem>& e) -> std::optional<Elem> {
      Elem r = e[0];
      for (const Elem& v : e) {
        if (!v.sym.empty()) return std::nullopt;
        const bool less = x.is_float() ? v.f < r.f : v.i < r.i;
        if (less == (op == "Min")) r = v;
      }
      return r;
    });
  }
  if (op == "Neg" || op == "Abs") {
    return FoldElementwise(ctx, in, x.dtype, [&](const std::vector<Elem>& e) -> std::optional<Elem> {
      if (!e[0].sym.empty()) return op == "Neg" ? IntArith('*', Elem{0, -1, ""}, e[0]) : std::nullopt;
      Elem r = e[0];
      r.f = op == "Neg" ? -r.f : std::fabs(r.f);
      r.i = op == "Neg" ? -r.i : std::abs(r.i);
      return r;
    });
  }
  if (op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual") {
    if (in.size() != 2) return false;
    return FoldElementwise(ctx, in, TensorProto::BOOL,
                           [&](const std::vector<Elem>& e) { return Compare(op, x.is_float(), e[0], e[1]); });
  }
  if (op == "Not") {
    return FoldElementwise(ctx, in, TensorProto::BOOL, [](const std::vector<Elem>& e) { return Elem{0, e[0].i == 0, ""}; });
  }
  if (op == "Where") {
    if (in.size() != 3 || x.is_symbolic()) return false;
    return FoldElementwise(ctx, in, in[1]->dtype, [](const std::vector<Elem>& e) { return e[0].i != 0 ? e[1] : e[2]; });
  }
  if (op == "Gather") return in.size() == 2 && FoldGather(ctx, x, *in[1]);
  if (op == "Concat") return FoldConcat(ctx, in);
  if (op == "Slice") return FoldSlice(ctx, x);
  if (op == "Transpose") return FoldTranspose(ctx, x);
  if (op == "ConstantOfShape") return FoldConstantOfShape(ctx, x);
  if (op == "Range") return in.size() == 3 && FoldRange(ctx, x, *in[1], *in[2]);
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape") {
    Constant out = x;
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    if (op == "Reshape") {
      out.shape = ReshapeTarget(ctx, x.shape, ctx.ints(1, "shape"));
    } else if (op == "Unsqueeze") {
      std::vector<int64_t> axes = ctx.ints(1, "axes");
      const int64_t out_rank = rank + static_cast<int64_t>(axes.size());
      std::vector<bool> is_new(out_rank, false);
      for (int64_t a : axes) {
        std::optional<int64_t> k = Axis(a, out_rank);
        if (!k || is_new[*k]) ctx.fail("bad or repeated axis " + std::to_string(a));
        is_new[*k] = true;
      }
      out.shape.clear();
      size_t next = 0;
      for (int64_t k = 0; k < out_rank; ++k) out.shape.push_back(is_new[k] ? 1 : x.shape[next++]);
    } else {
      std::vector<bool> drop(rank, false);
      if (ctx.has_input(1)) {
        for (int64_t a : ctx.ints(1, "axes")) {
          std::optional<int64_t> k = Axis(a, rank);
          if (!k || x.shape[*k] != 1) ctx.fail("cannot squeeze axis " + std::to_string(a));
          drop[*k] = true;
        }
      } else {
        for (int64_t k = 0; k < rank; ++k) drop[k] = x.shape[k] == 1;
      }
      out.shape.clear();
      for (int64_t k = 0; k < rank; ++k) {
        if (!drop[k]) out.shape.push_back(x.shape[k]);
      }
    }
    ctx.set_output_constant(0, std::move(out));
    return true;
  }
  return false;
}

}  // namespace rxt::import_onnx
