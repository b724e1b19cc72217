// Nodes computed at import time: prim ops on lists and tuples, ints and floats (the shape
// arithmetic a trace records: aten::size -> prim::NumToTensor -> aten::mul -> aten::Int), and
// sizes of tensors. A symbolic dim stays a prim expression ("batch * 4").
#include <cmath>

#include "converters.h"

namespace rxt::import_torchscript {
namespace {

void ListConstruct(NodeContext& ctx) {
  std::vector<Value> items;
  for (int i = 0; i < ctx.num_inputs(); ++i) items.push_back(ctx.input(i));
  ctx.set_output(0, Value::List(std::move(items)));
}

void ListUnpack(NodeContext& ctx) {
  const Value& list = ctx.input(0);
  if (list.kind != Kind::kList) ctx.unsupported("unpacking " + list.describe());
  if (static_cast<int>(list.items.size()) != ctx.num_outputs()) {
    ctx.fail("unpacks " + std::to_string(list.items.size()) + " values into " + std::to_string(ctx.num_outputs()));
  }
  for (int k = 0; k < ctx.num_outputs(); ++k) ctx.set_output(k, list.items[k]);
}

void GetItem(NodeContext& ctx) {
  const Value& list = ctx.input(0);
  if (list.kind != Kind::kList) ctx.unsupported("indexing " + list.describe());
  const int64_t n = static_cast<int64_t>(list.items.size());
  int64_t index = ctx.integer(1, "index");
  if (index < -n || index >= n)
    ctx.fail("index " + std::to_string(index) + " is out of range for " + std::to_string(n) + " items");
  ctx.set_output(0, list.items[index < 0 ? index + n : index]);
}

void ListLength(NodeContext& ctx) {
  const Value& v = ctx.input(0);
  if (v.kind == Kind::kString) return ctx.set_output(0, Value::Int(static_cast<int64_t>(v.text.size())));
  if (v.kind == Kind::kTensor && v.rank() > 0) return ctx.set_output(0, v.dims[0].is_static() ? Value::Int(v.dims[0].value) : Value::SymbolicInt(v.dims[0].symbol));
  if (v.kind != Kind::kList) ctx.unsupported("len of " + v.describe());
  ctx.set_output(0, Value::Int(static_cast<int64_t>(v.items.size())));
}

/// x in list (strings or numbers known at import).
void Contains(NodeContext& ctx) {
  const Value& list = ctx.input(0);
  const Value& x = ctx.input(1);
  if (list.kind != Kind::kList) ctx.unsupported("'in' of " + list.describe());
  bool found = false;
  for (const Value& item : list.items) {
    if (item.kind == Kind::kString && x.kind == Kind::kString) found = found || item.text == x.text;
    else if (item.is_known_number() && x.is_known_number()) found = found || item.number == x.number;
    else ctx.unsupported("'in' of " + x.describe() + " and " + item.describe());
  }
  ctx.set_output(0, Value::Bool(found));
}

/// A number as a 0-d tensor known at import (int64 or float64, as PyTorch's NumToTensor).
void NumToTensor(NodeContext& ctx) {
  Value v = ctx.input(0);
  if (!v.is_number()) ctx.unsupported("NumToTensor of " + v.describe());
  v.scalar_tensor = true;
  v.dtype = v.kind == Kind::kFloat ? "float64" : v.kind == Kind::kBool ? "bool" : "int64";
  ctx.set_output(0, v);
}

/// aten::Int / Float / ScalarImplicit...: a number known at import (a tensor computed at run time
/// cannot be one).
void ToNumber(NodeContext& ctx) {
  Value v = ctx.input(0);
  if (!v.is_number()) ctx.unsupported("a number from " + v.describe() + " (known only at run time)");
  v.scalar_tensor = false;
  v.dtype.clear();
  const std::string& k = ctx.kind();
  if (k == "aten::Int" || k == "aten::IntImplicit") {
    if (v.symbol.empty()) v.number = std::trunc(v.number);
    if (v.symbol.empty() && !(std::abs(v.number) <= 9.0e15))
      ctx.unsupported("an int of " + NumberText(v.number) + " (beyond 2^53)");
    v.kind = Kind::kInt;
  } else if (k == "aten::Float" || k == "aten::FloatImplicit") {
    if (!v.symbol.empty()) ctx.unsupported("a float from the symbolic " + v.symbol);
    v.kind = Kind::kFloat;
  } else if (k == "aten::Bool") {
    v.kind = Kind::kBool;
    v.number = v.number != 0;
  }
  ctx.set_output(0, v);
}

void Size(NodeContext& ctx) {
  const Dims& dims = ctx.dims(0);
  if (ctx.num_inputs() == 1 || ctx.is_none(1)) {
    std::vector<Value> items;
    for (const Dim& d : dims) items.push_back(d.is_static() ? Value::Int(d.value) : Value::SymbolicInt(d.symbol));
    ctx.set_output(0, Value::List(std::move(items)));
    return;
  }
  const Dim& d = dims.at(ctx.axis(ctx.integer(1, "dim"), ctx.rank(0)));
  ctx.set_output(0, d.is_static() ? Value::Int(d.value) : Value::SymbolicInt(d.symbol));
}

void Rank(NodeContext& ctx) { ctx.set_output(0, Value::Int(ctx.rank(0))); }

void Numel(NodeContext& ctx) {
  const Dim n = Product(ctx.dims(0));
  ctx.set_output(0, n.is_static() ? Value::Int(n.value) : Value::SymbolicInt(n.symbol));
}

/// prim::dtype: PyTorch's ScalarType code of the tensor's dtype (what aten::to takes).
void DType(NodeContext& ctx) {
  static const std::pair<const char*, int> kCodes[] = {{"uint8", 0}, {"int8", 1},     {"int16", 2},   {"int32", 3},
                                                       {"int64", 4}, {"float16", 5},  {"float32", 6}, {"float64", 7},
                                                       {"bool", 11}, {"bfloat16", 15}};
  for (const auto& [name, code] : kCodes) {
    if (ctx.dtype(0) == name) return ctx.set_output(0, Value::Int(code));
  }
  ctx.unsupported("dtype " + ctx.dtype(0));
}

/// A tensor's device: "cpu" (as a string: str(x.device) is what scripted code asks of it).
void Device(NodeContext& ctx) {
  Value v;
  v.kind = Kind::kString;
  v.text = "cpu";
  ctx.set_output(0, v);
}

/// aten::str of a value known at import.
void Str(NodeContext& ctx) {
  const Value& x = ctx.input(0);
  Value v;
  v.kind = Kind::kString;
  if (x.kind == Kind::kString) v.text = x.text;
  else if (x.kind == Kind::kInt && x.symbol.empty()) v.text = std::to_string(SaturatingInt(x.number));
  else ctx.unsupported("str of " + x.describe());
  ctx.set_output(0, v);
}

/// aten::find(string, sub, start, end): the index of sub, or -1.
void Find(NodeContext& ctx) {
  const Value& s = ctx.input(0);
  const Value& sub = ctx.input(1);
  if (s.kind != Kind::kString || sub.kind != Kind::kString) ctx.unsupported("find in " + s.describe());
  const size_t at = s.text.find(sub.text);
  ctx.set_output(0, Value::Int(at == std::string::npos ? -1 : static_cast<int64_t>(at)));
}

/// aten::all / any of a list of bools known at import.
void AllAny(NodeContext& ctx) {
  const Value& list = ctx.input(0);
  if (list.kind != Kind::kList) ctx.unsupported(ctx.kind() + " of " + list.describe());
  const bool all = ctx.kind() == "aten::all";
  bool result = all;
  for (const Value& item : list.items) {
    if (!item.is_known_number()) ctx.unsupported(ctx.kind() + " of " + item.describe());
    result = all ? result && item.number != 0 : result || item.number != 0;
  }
  ctx.set_output(0, Value::Bool(result));
}

/// prim::requires_grad: true for a trainable parameter (not frozen), false for the rest.
void RequiresGrad(NodeContext& ctx) {
  const Value& t = ctx.tensor_value(0);
  ctx.set_output(0, Value::Bool(!t.attribute.empty() && ctx.backbone().IsTrainable(t.attribute)));
}

/// prim::is_nested, is_cuda, is_sparse... of a tensor: false (rxt's tensors are dense, on the CPU
/// at import); aten::is_grad_enabled: true.
void TensorFlag(NodeContext& ctx) { ctx.set_output(0, Value::Bool(ctx.kind() == "aten::is_grad_enabled")); }

/// "(a + b)" style prim text of a symbolic or known int.
std::string PrimText(const Value& v) {
  if (!v.symbol.empty()) return v.symbol.find(' ') != std::string::npos ? "(" + v.symbol + ")" : v.symbol;
  return std::to_string(SaturatingInt(v.number));
}

/// aten::__is__ / __isnot__: identity of None (and equality of numbers known at import).
void Is(NodeContext& ctx) {
  const Value& a = ctx.input(0);
  const Value& b = ctx.input(1);
  bool same = false;
  if (a.kind == Kind::kNone || b.kind == Kind::kNone) {
    same = a.kind == b.kind;
  } else if (a.is_known_number() && b.is_known_number()) {
    same = a.number == b.number;
  } else if (a.kind == Kind::kTensor && b.kind == Kind::kTensor) {
    same = a.expr == b.expr && a.attribute == b.attribute;  // one value (MultiheadAttention's query is key)
  } else if (a.kind == Kind::kModule && b.kind == Kind::kModule) {
    same = a.text == b.text;
  } else if (a.kind != b.kind && a.kind != Kind::kList && b.kind != Kind::kList && a.kind != Kind::kOther && b.kind != Kind::kOther) {
    same = false;
  } else {
    ctx.unsupported("'is' between " + a.describe() + " and " + b.describe());
  }
  ctx.set_output(0, Value::Bool(ctx.kind() == "aten::__is__" ? same : !same));
}

void Not(NodeContext& ctx) { ctx.set_output(0, Value::Bool(!ctx.boolean(0, "operand"))); }

/// aten::__and__ / __or__ / __xor__ of bools known at import.
void Logic(NodeContext& ctx) {
  const bool a = ctx.boolean(0, "operand"), b = ctx.boolean(1, "operand");
  const std::string& k = ctx.kind();
  ctx.set_output(0, Value::Bool(k == "aten::__and__" ? a && b : k == "aten::__or__" ? a || b : a != b));
}

void Pass(NodeContext& ctx) {
  if (ctx.num_outputs() > 0) ctx.set_output(0, ctx.input(0));
}

void Warn(NodeContext&) {}

/// aten::__range_length(lo, hi, step): the length of range(lo, hi, step).
void RangeLength(NodeContext& ctx) {
  const int64_t lo = ctx.integer(0, "lo"), hi = ctx.integer(1, "hi"), step = ctx.integer(2, "step");
  if (step == 0) ctx.fail("range with step 0");
  const int64_t n = step > 0 ? (hi > lo ? (hi - lo - 1) / step + 1 : 0) : (lo > hi ? (lo - hi - 1) / -step + 1 : 0);
  ctx.set_output(0, Value::Int(n));
}

/// aten::__derive_index(index, start, step) = start + index * step.
void DeriveIndex(NodeContext& ctx) {
  ctx.set_output(0, Value::Int(ctx.integer(1, "start") + ctx.integer(0, "index") * ctx.integer(2, "step")));
}

}  // namespace

bool FoldsAtImport(const NodeContext& ctx) {
  if (ctx.num_inputs() == 0) return false;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Value& v = ctx.input(i);
    if (!v.is_number() && v.kind != Kind::kNone && v.kind != Kind::kString && v.kind != Kind::kList) return false;
  }
  return true;
}

namespace {

/// Equality of values known at import (numbers, symbols, strings, None, lists of them); -1 when
/// it cannot be told.
int SameValue(const Value& a, const Value& b) {
  if (a.kind == Kind::kList && b.kind == Kind::kList) {
    if (a.items.size() != b.items.size()) return 0;
    for (size_t k = 0; k < a.items.size(); ++k) {
      const int same = SameValue(a.items[k], b.items[k]);
      if (same != 1) return same;
    }
    return 1;
  }
  if (a.kind == Kind::kString && b.kind == Kind::kString) return a.text == b.text;
  if (a.kind == Kind::kNone || b.kind == Kind::kNone) return a.kind == b.kind;
  if (a.is_known_number() && b.is_known_number()) return a.number == b.number;
  if (a.is_number() && b.is_number() && !a.symbol.empty() && a.symbol == b.symbol) return 1;
  return -1;
}

}  // namespace

void FoldArithmetic(NodeContext& ctx) {
  const std::string op = ctx.kind().substr(ctx.kind().find("::") + 2);
  if (ctx.num_inputs() >= 2 && (op == "eq" || op == "ne") &&
      (!ctx.input(0).is_number() || !ctx.input(1).is_number() || ctx.input(0).symbol == ctx.input(1).symbol)) {
    const int same = SameValue(ctx.input(0), ctx.input(1));
    if (same < 0) ctx.unsupported(op + " of " + ctx.input(0).describe() + " and " + ctx.input(1).describe());
    return ctx.set_output(0, Value::Bool((same == 1) == (op == "eq")));
  }
  for (int i = 0; i < std::min(ctx.num_inputs(), 2); ++i) {
    if (!ctx.input(i).is_number()) ctx.unsupported(op + " of " + ctx.input(i).describe());
  }
  const Value& a = ctx.input(0);
  const bool unary = op == "neg";
  Value b = unary ? a : ctx.input(1);
  if ((op == "add" || op == "sub") && ctx.num_inputs() > 2 && ctx.input(2).is_number()) {
    const double alpha = ctx.number(2, "alpha");
    if (alpha != 1) {
      if (!b.symbol.empty()) ctx.unsupported(op + " with alpha of the symbolic dim " + b.symbol);
      b.number *= alpha;
    }
  }
  const bool symbolic = !a.symbol.empty() || !b.symbol.empty();
  const bool any_float = a.kind == Kind::kFloat || b.kind == Kind::kFloat;
  std::string rounding;
  if (op == "div" && ctx.num_inputs() > 2 && ctx.input(2).kind == Kind::kString) rounding = ctx.input(2).text;
  Value out;
  if (symbolic) {
    if (any_float) ctx.unsupported("float arithmetic on the symbolic dim " + (a.symbol.empty() ? b.symbol : a.symbol));
    const std::string x = PrimText(a), y = PrimText(b);
    // Lower bounds (a known number is its own): comparisons decide with them when they can
    // (a scripted batch_norm's check that batch * H * W != 1).
    const double la = a.symbol.empty() ? a.number : a.lower, lb = b.symbol.empty() ? b.number : b.lower;
    const bool a_sym = !a.symbol.empty();
    const double other = a_sym ? b.number : a.number;  // the known side, when one is known
    const bool one_known = a.symbol.empty() != b.symbol.empty();
    if (op == "eq" || op == "ne" || op == "lt" || op == "gt" || op == "le" || op == "ge") {
      // Written as sym OP c: flip the operator when the symbol is on the right.
      std::string o = op;
      if (!a_sym) o = op == "lt" ? "gt" : op == "gt" ? "lt" : op == "le" ? "ge" : op == "ge" ? "le" : op;
      const double lower = a_sym ? la : lb;
      int decided = -1;  // -1: undecided
      if (one_known) {
        if ((o == "eq" || o == "ne") && other < lower) decided = o == "ne";
        if (o == "gt" && lower > other) decided = 1;
        if (o == "ge" && lower >= other) decided = 1;
        if (o == "lt" && lower >= other) decided = 0;
        if (o == "le" && lower > other) decided = 0;
      }
      if (decided < 0) ctx.unsupported(op + " of the symbolic dim " + (a_sym ? a.symbol : b.symbol) + " (undecided at import)");
      return ctx.set_output(0, Value::Bool(decided != 0));
    }
    double lower = -1e300;
    if (op == "add") lower = la + lb;
    else if (op == "mul" && la >= 0 && lb >= 0) lower = la * lb;
    std::string text;
    if (op == "add")
      text = x + " + " + y;
    else if (op == "sub")
      text = x + " - " + y;
    else if (op == "mul")
      text = x + " * " + y;
    else if (op == "neg")
      text = "0 - " + x;
    else if (op == "floordiv" || op == "floor_divide" || (op == "div" && (rounding == "floor" || rounding == "trunc")))
      text = "floordiv(" + x + ", " + y + ")";  // sizes are non-negative: trunc == floor
    else if (op == "remainder")
      text = "floormod(" + x + ", " + y + ")";
    else
      ctx.unsupported(op + " of the symbolic dim " + (a.symbol.empty() ? b.symbol : a.symbol));
    out = Value::SymbolicInt(text, lower);
  } else {
    const double x = a.number, y = b.number;
    double r = 0;
    bool is_bool = false;
    if (op == "add")
      r = x + y;
    else if (op == "sub")
      r = x - y;
    else if (op == "mul")
      r = x * y;
    else if (op == "neg")
      r = -x;
    else if (op == "div") {
      if (y == 0) ctx.fail("divides by zero at import time");
      r = x / y;
      if (rounding == "trunc") r = std::trunc(r);
      if (rounding == "floor") r = std::floor(r);
    } else if (op == "floordiv" || op == "floor_divide") {
      if (y == 0) ctx.fail("divides by zero at import time");
      r = std::floor(x / y);
    } else if (op == "remainder") {
      if (y == 0) ctx.fail("divides by zero at import time");
      r = x - std::floor(x / y) * y;
    } else if (op == "pow")
      r = std::pow(x, y);
    else if (op == "eq")
      r = x == y, is_bool = true;
    else if (op == "ne")
      r = x != y, is_bool = true;
    else if (op == "lt")
      r = x < y, is_bool = true;
    else if (op == "gt")
      r = x > y, is_bool = true;
    else if (op == "le")
      r = x <= y, is_bool = true;
    else if (op == "ge")
      r = x >= y, is_bool = true;
    else
      ctx.unsupported(op + " of numbers");
    // div (true division) and pow of ints give floats, as in Python.
    const bool float_result = any_float || (op == "div" && rounding.empty()) || (op == "pow" && y < 0);
    if (!float_result && !is_bool && !(std::abs(r) <= 9.0e15)) ctx.unsupported(op + " of ints beyond 2^53 at import");
    out = is_bool ? Value::Bool(r != 0) : float_result ? Value::Float(r) : Value::Int(static_cast<int64_t>(r));
  }
  // Arithmetic of 0-d tensors stays a 0-d tensor.
  if (a.scalar_tensor || b.scalar_tensor) {
    out.scalar_tensor = true;
    out.dtype = out.kind == Kind::kFloat  ? (a.dtype == "float32" || b.dtype == "float32" ? "float32" : "float64")
                : out.kind == Kind::kBool ? "bool"
                                          : "int64";
  }
  ctx.set_output(0, out);
}

void AddScalarConverters(ConverterMap& map) {
  map["prim::ListConstruct"] = ListConstruct;
  map["prim::TupleConstruct"] = ListConstruct;
  map["prim::ListUnpack"] = ListUnpack;
  map["prim::TupleUnpack"] = ListUnpack;
  map["prim::TupleIndex"] = GetItem;
  map["aten::__getitem__"] = GetItem;
  map["aten::len"] = ListLength;
  map["aten::__contains__"] = Contains;
  for (const char* k : {"prim::is_nested", "prim::is_cuda", "prim::is_sparse", "prim::is_mkldnn", "prim::is_quantized",
                        "prim::is_meta", "prim::is_xpu", "aten::is_grad_enabled", "aten::is_autocast_enabled",
                        "aten::is_autocast_cpu_enabled"}) {
    map[k] = TensorFlag;
  }
  map["prim::NumToTensor"] = NumToTensor;
  for (const char* k :
       {"aten::Int", "aten::Float", "aten::Bool", "aten::ScalarImplicit", "aten::IntImplicit", "aten::FloatImplicit"}) {
    map[k] = ToNumber;
  }
  map["aten::size"] = Size;
  map["aten::dim"] = Rank;
  map["aten::numel"] = Numel;
  map["prim::dtype"] = DType;
  map["prim::device"] = Device;
  map["aten::str"] = Str;
  map["aten::find"] = Find;
  map["aten::all"] = AllAny;
  map["aten::any"] = AllAny;
  map["prim::requires_grad"] = RequiresGrad;
  map["aten::__is__"] = Is;
  map["aten::__isnot__"] = Is;
  map["aten::__not__"] = Not;
  map["aten::__and__"] = Logic;
  map["aten::__or__"] = Logic;
  map["aten::__xor__"] = Logic;
  map["prim::unchecked_cast"] = Pass;
  map["aten::list"] = Pass;
  map["aten::warn"] = Warn;
  map["aten::__range_length"] = RangeLength;
  map["aten::__derive_index"] = DeriveIndex;
  for (const char* k : {"aten::floordiv", "aten::floor_divide", "aten::remainder", "aten::eq", "aten::ne", "aten::lt",
                        "aten::gt", "aten::le", "aten::ge"}) {
    map.emplace(k, FoldArithmetic);  // tensor kinds of the same names are set by their files
  }
}

}  // namespace rxt::import_torchscript
