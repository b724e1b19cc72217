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
  const Value& list = ctx.input(0);
  if (list.kind != Kind::kList) ctx.unsupported("len of " + list.describe());
  ctx.set_output(0, Value::Int(static_cast<int64_t>(list.items.size())));
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

void Device(NodeContext& ctx) { ctx.set_output(0, Value::Other("a device")); }

/// "(a + b)" style prim text of a symbolic or known int.
std::string PrimText(const Value& v) {
  if (!v.symbol.empty()) return v.symbol.find(' ') != std::string::npos ? "(" + v.symbol + ")" : v.symbol;
  return std::to_string(SaturatingInt(v.number));
}

}  // namespace

bool FoldsAtImport(const NodeContext& ctx) {
  if (ctx.num_inputs() == 0) return false;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Value& v = ctx.input(i);
    if (!v.is_number() && v.kind != Kind::kNone && v.kind != Kind::kString) return false;
  }
  return true;
}

void FoldArithmetic(NodeContext& ctx) {
  const std::string op = ctx.kind().substr(ctx.kind().find("::") + 2);
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
    out = Value::SymbolicInt(text);
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
  for (const char* k : {"aten::floordiv", "aten::floor_divide", "aten::remainder", "aten::eq", "aten::ne", "aten::lt",
                        "aten::gt", "aten::le", "aten::ge"}) {
    map.emplace(k, FoldArithmetic);  // tensor kinds of the same names are set by their files
  }
}

}  // namespace rxt::import_torchscript
