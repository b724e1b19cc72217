// Einsum as ops rxt has (so it trains): repeated subscripts in one operand take the diagonal
// (a product with an identity mask, summed); two operands that contract like a batched matrix
// product become one matmul between permutes and reshapes; anything else is a broadcast
// product of the operands laid out on a common subscript order, summed over the contracted
// subscripts. Ellipses broadcast from the right, as NumPy's einsum.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "convert_util.h"
#include "converters.h"
#include "tensor_data.h"

namespace rxt::import_onnx {
namespace {

/// A subscript: a letter, or (>= 256) the k-th dim an ellipsis stands for.
using Label = int;
constexpr Label kEllipsisBase = 256;

struct Equation {
  std::vector<std::vector<Label>> inputs;
  std::vector<Label> output;
};

/// The labels of one term; |rank| expands its ellipsis, |ellipsis_rank| is the widest one.
std::vector<Label> ParseTerm(NodeContext& ctx, const std::string& term, int64_t rank, int64_t ellipsis_rank) {
  std::vector<Label> labels;
  const size_t dots = term.find("...");
  const int64_t letters = static_cast<int64_t>(term.size()) - (dots == std::string::npos ? 0 : 3);
  for (size_t i = 0; i < term.size(); ++i) {
    if (i == dots) {
      const int64_t covered = rank < 0 ? ellipsis_rank : rank - letters;
      if (covered < 0) ctx.fail("the term '" + term + "' has more subscripts than its operand has dims");
      for (int64_t k = ellipsis_rank - covered; k < ellipsis_rank; ++k) labels.push_back(kEllipsisBase + static_cast<Label>(k));
      i += 2;
      continue;
    }
    const char c = term[i];
    if (!std::isalpha(static_cast<unsigned char>(c))) ctx.fail(std::string("invalid subscript '") + c + "' in the equation");
    labels.push_back(static_cast<unsigned char>(c));
  }
  if (rank >= 0 && static_cast<int64_t>(labels.size()) != rank) {
    ctx.fail("the term '" + term + "' has " + std::to_string(labels.size()) + " subscripts for an operand of rank " +
             std::to_string(rank));
  }
  return labels;
}

Equation ParseEquation(NodeContext& ctx, std::string text) {
  text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
             text.end());
  const size_t arrow = text.find("->");
  const std::string lhs = text.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(terms.size()) != ctx.num_inputs()) {
    ctx.fail("the equation has " + std::to_string(terms.size()) + " terms for " + std::to_string(ctx.num_inputs()) + " inputs");
  }
  int64_t ellipsis_rank = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].find("...") != std::string::npos) {
      ellipsis_rank = std::max<int64_t>(ellipsis_rank, ctx.rank(static_cast<int>(i)) - (static_cast<int64_t>(terms[i].size()) - 3));
    }
  }
  Equation eq;
  std::map<Label, int> count;
  for (size_t i = 0; i < terms.size(); ++i) {
    eq.inputs.push_back(ParseTerm(ctx, terms[i], ctx.rank(static_cast<int>(i)), ellipsis_rank));
    for (Label l : eq.inputs.back()) ++count[l];
  }
  if (arrow != std::string::npos) {
    eq.output = ParseTerm(ctx, text.substr(arrow + 2), -1, ellipsis_rank);
    for (Label l : eq.output) {
      if (count.count(l) == 0) ctx.fail("the output subscript '" + std::string(1, static_cast<char>(l)) + "' is in no input");
      if (std::count(eq.output.begin(), eq.output.end(), l) > 1) ctx.fail("an output subscript repeats");
    }
  } else {  // implicit: the ellipsis dims, then the letters seen once, in alphabetical order
    for (int64_t k = 0; k < ellipsis_rank; ++k) eq.output.push_back(kEllipsisBase + static_cast<Label>(k));
    for (const auto& [label, n] : count) {
      if (label < kEllipsisBase && n == 1) eq.output.push_back(label);
    }
  }
  return eq;
}

/// An operand with its labels and static dims, as it is rewritten.
struct Operand {
  std::string expr;
  std::vector<Label> labels;
  std::vector<std::string> dims;  // prim expressions: numbers, or symbols (a batch)
};

/// Removes repeated labels: the diagonal of each pair of axes with the same label.
void TakeDiagonals(NodeContext& ctx, Operand& op, int onnx_dtype) {
  for (size_t p = 0; p < op.labels.size(); ++p) {
    for (size_t q = p + 1; q < op.labels.size(); ++q) {
      if (op.labels[q] != op.labels[p]) continue;
      if (op.dims[q] != op.dims[p]) ctx.fail("a repeated subscript labels dims of different sizes");
      if (op.dims[p].find_first_not_of("0123456789") != std::string::npos) {
        ctx.unsupported("Einsum diagonal of a dim that is not static");
      }
      if (op.dims[p].size() > 6) ctx.unsupported("Einsum diagonal over more than 65536 elements");
      const int64_t n = std::stoll(op.dims[p]);
      if (static_cast<size_t>(n * n) > kMaxFoldedElements) ctx.unsupported("Einsum diagonal over more than 65536 elements");
      Constant eye;
      eye.dtype = onnx_dtype;
      eye.shape.assign(op.dims.size(), 1);
      eye.shape[p] = n;
      eye.shape[q] = n;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          if (eye.is_float()) eye.floats.push_back(i == j);
          else eye.ints.push_back(i == j);
        }
      }
      std::string masked = ctx.bind(Call("multiply", {op.expr, ctx.constant_expr(eye)}));
      op.expr = ctx.bind(Call("sum", {masked}, "axis=[" + std::to_string(q) + "], keepdims=false"));
      op.labels.erase(op.labels.begin() + static_cast<long>(q));
      op.dims.erase(op.dims.begin() + static_cast<long>(q));
      --q;
    }
  }
}

/// |op| permuted to the order of |order| (a permutation of its labels).
std::string Permuted(NodeContext& ctx, const Operand& op, const std::vector<Label>& order) {
  std::vector<int64_t> perm;
  for (Label l : order) perm.push_back(std::find(op.labels.begin(), op.labels.end(), l) - op.labels.begin());
  bool identity = true;
  for (size_t k = 0; k < perm.size(); ++k) identity = identity && perm[k] == static_cast<int64_t>(k);
  return identity ? op.expr : ctx.bind(Call("permute_dims", {op.expr}, "axes=" + IntList(perm)));
}

/// Sums |op| over its labels not in |keep|.
void SumOthers(NodeContext& ctx, Operand& op, const std::vector<Label>& keep) {
  std::vector<int64_t> axes;
  Operand rest{op.expr, {}, {}};
  for (size_t k = 0; k < op.labels.size(); ++k) {
    if (std::find(keep.begin(), keep.end(), op.labels[k]) == keep.end()) {
      axes.push_back(static_cast<int64_t>(k));
    } else {
      rest.labels.push_back(op.labels[k]);
      rest.dims.push_back(op.dims[k]);
    }
  }
  if (axes.empty()) return;
  rest.expr = ctx.bind(Call("sum", {op.expr}, "axis=" + IntList(axes) + ", keepdims=false"));
  op = rest;
}

bool Contains(const std::vector<Label>& labels, Label l) { return std::find(labels.begin(), labels.end(), l) != labels.end(); }

/// Two operands as one matmul: [batch, free A, contracted] x [batch, contracted, free B]. Returns
/// the result in the order batch, free A, free B (its labels in |labels|), or nullopt when the
/// operands do not have that form (a batch dim broadcast from 1).
std::optional<Operand> AsMatmul(NodeContext& ctx, Operand a, Operand b, const std::vector<Label>& output) {
  auto dim_of = [](const Operand& op, Label l) { return op.dims[std::find(op.labels.begin(), op.labels.end(), l) - op.labels.begin()]; };
  for (Label l : a.labels) {
    if (Contains(b.labels, l) && dim_of(a, l) != dim_of(b, l)) return std::nullopt;
  }
  std::vector<Label> keep_a = output, keep_b = output;
  for (Label l : b.labels) keep_a.push_back(l);
  for (Label l : a.labels) keep_b.push_back(l);
  SumOthers(ctx, a, keep_a);
  SumOthers(ctx, b, keep_b);
  std::vector<Label> batch, free_a, free_b, contracted;
  for (Label l : a.labels) {
    if (Contains(b.labels, l)) {
      (Contains(output, l) ? batch : contracted).push_back(l);
    } else {
      free_a.push_back(l);
    }
  }
  for (Label l : b.labels) {
    if (!Contains(a.labels, l)) free_b.push_back(l);
  }
  auto product_of = [&](const Operand& op, const std::vector<Label>& labels) {
    std::vector<std::string> dims;
    for (Label l : labels) dims.push_back(dim_of(op, l));
    return Product(dims);
  };
  std::vector<std::string> batch_dims;
  for (Label l : batch) batch_dims.push_back(dim_of(a, l));
  std::vector<Label> order_a = batch, order_b = batch;
  order_a.insert(order_a.end(), free_a.begin(), free_a.end());
  order_a.insert(order_a.end(), contracted.begin(), contracted.end());
  order_b.insert(order_b.end(), contracted.begin(), contracted.end());
  order_b.insert(order_b.end(), free_b.begin(), free_b.end());
  std::vector<std::string> shape_a = batch_dims, shape_b = batch_dims;
  shape_a.push_back(product_of(a, free_a));
  shape_a.push_back(product_of(a, contracted));
  shape_b.push_back(product_of(b, contracted));
  shape_b.push_back(product_of(b, free_b));
  std::string lhs = ctx.bind(Call("reshape", {Permuted(ctx, a, order_a), ShapeExpr(shape_a)}));
  std::string rhs = ctx.bind(Call("reshape", {Permuted(ctx, b, order_b), ShapeExpr(shape_b)}));
  Operand result;
  result.labels = batch;
  result.labels.insert(result.labels.end(), free_a.begin(), free_a.end());
  result.labels.insert(result.labels.end(), free_b.begin(), free_b.end());
  result.dims = batch_dims;
  for (Label l : free_a) result.dims.push_back(dim_of(a, l));
  for (Label l : free_b) result.dims.push_back(dim_of(b, l));
  std::string product = ctx.bind(Call("matmul", {lhs, rhs}));
  result.expr = ctx.bind(Call("reshape", {product, ShapeExpr(result.dims)}));
  return result;
}

/// The operands on one common label order (the output's, then the contracted ones), multiplied
/// with broadcasting, summed over the contracted labels.
Operand BroadcastProduct(NodeContext& ctx, std::vector<Operand>& operands, const std::vector<Label>& output) {
  std::vector<Label> order = output;
  std::map<Label, std::string> size;  // a broadcast dim of 1 gives way to the other
  for (Operand& op : operands) {
    for (size_t k = 0; k < op.labels.size(); ++k) {
      if (!Contains(order, op.labels[k])) order.push_back(op.labels[k]);
      std::string& known = size[op.labels[k]];
      if (known.empty() || known == "1") known = op.dims[k];
    }
  }
  std::string product;
  for (Operand& op : operands) {
    std::vector<Label> mine;
    std::vector<std::string> shape;
    for (Label l : order) {
      if (Contains(op.labels, l)) {
        mine.push_back(l);
        shape.push_back(op.dims[std::find(op.labels.begin(), op.labels.end(), l) - op.labels.begin()]);
      } else {
        shape.push_back("1");
      }
    }
    std::string laid_out = ctx.bind(Call("reshape", {Permuted(ctx, op, mine), ShapeExpr(shape)}));
    product = product.empty() ? laid_out : ctx.bind(Call("multiply", {product, laid_out}));
  }
  Operand result{product, order, {}};
  for (Label l : order) result.dims.push_back(size[l]);
  SumOthers(ctx, result, output);
  return result;
}

void Einsum(NodeContext& ctx) {
  Equation eq = ParseEquation(ctx, ctx.attr_string("equation", ""));
  const std::string dtype = ctx.dtype(0);
  const int onnx_dtype = ctx.type(0).dtype;
  std::vector<Operand> operands;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.dtype(i) != dtype) ctx.fail("the operands differ in element type");
    operands.push_back({ctx.expr(i), eq.inputs[i], DimTexts(ctx, i)});
    TakeDiagonals(ctx, operands.back(), onnx_dtype);
  }
  std::optional<Operand> result;
  const bool is_float = dtype == "float32" || dtype == "float64" || dtype == "float16";
  if (operands.size() == 2 && is_float) result = AsMatmul(ctx, operands[0], operands[1], eq.output);
  if (!result && operands.size() == 1) {
    result = operands[0];
    SumOthers(ctx, *result, eq.output);
  }
  if (!result) result = BroadcastProduct(ctx, operands, eq.output);
  ctx.set_output(0, Permuted(ctx, *result, eq.output));
  std::vector<Dim> dims;  // ONNX's inference leaves a symbolic batch through Einsum unknown
  for (Label l : eq.output) {
    const std::string& text = result->dims[std::find(result->labels.begin(), result->labels.end(), l) - result->labels.begin()];
    const bool number = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    dims.push_back(number ? Dim{std::stoll(text), ""} : Dim{-1, text});
  }
  ctx.set_output_dims(0, dims);
}

}  // namespace

void AddEinsumConverters(ConverterMap& map) { map["Einsum"] = &Einsum; }

}  // namespace rxt::import_onnx
