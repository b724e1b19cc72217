// What the importer knows of each value of a TorchScript graph, without libtorch: a tensor (its
// expression in the backbone, dims and dtype), a number known at import time or a symbolic int
// (aten::size of a symbolic dim), None, a string, a list or tuple, or a submodule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rxt::import_torchscript {

/// A dim: a number, or a prim expression over the inputs' symbolic dims ("batch * 4").
struct Dim {
  int64_t value = -1;  // >= 0 when static
  std::string symbol;
  static Dim Static(int64_t v) { return Dim{v, ""}; }
  static Dim Symbolic(std::string s) { return Dim{-1, std::move(s)}; }
  bool is_static() const { return value >= 0; }
  std::string text() const { return value >= 0 ? std::to_string(value) : symbol; }
  bool operator==(const Dim& o) const { return text() == o.text(); }
  bool operator!=(const Dim& o) const { return !(*this == o); }
};
using Dims = std::vector<Dim>;

enum class Kind { kOther, kNone, kTensor, kInt, kFloat, kBool, kString, kList, kModule };

struct Value {
  Kind kind = Kind::kOther;
  // kTensor
  std::string expr;  // a local, a parameter or a constant expression
  Dims dims;
  std::string dtype;      // rxt's name ("float32"); for a scalar tensor, its dtype
  std::string attribute;  // the module's parameter or buffer this tensor is ("layer1.0.bn1.running_mean")
  // kInt, kFloat, kBool
  double number = 0;
  std::string symbol;          // kInt not known at import: a prim expression
  double lower = 1;            // a symbolic int's lower bound (sizes of symbolic dims are taken to be >= 1)
  bool scalar_tensor = false;  // a 0-d tensor known at import (NumToTensor, a Constant tensor)
  // kString; kOther: what it is, for messages
  std::string text;
  // kList (lists and tuples)
  std::vector<Value> items;

  static Value Tensor(std::string expr, Dims dims, std::string dtype) {
    Value v;
    v.kind = Kind::kTensor;
    v.expr = std::move(expr);
    v.dims = std::move(dims);
    v.dtype = std::move(dtype);
    return v;
  }
  static Value Int(int64_t n) {
    Value v;
    v.kind = Kind::kInt;
    v.number = static_cast<double>(n);
    return v;
  }
  static Value SymbolicInt(std::string symbol, double lower = 1) {
    Value v;
    v.kind = Kind::kInt;
    v.symbol = std::move(symbol);
    v.lower = lower;
    return v;
  }
  static Value Float(double x) {
    Value v;
    v.kind = Kind::kFloat;
    v.number = x;
    return v;
  }
  static Value Bool(bool b) {
    Value v;
    v.kind = Kind::kBool;
    v.number = b ? 1 : 0;
    return v;
  }
  static Value None() {
    Value v;
    v.kind = Kind::kNone;
    return v;
  }
  static Value List(std::vector<Value> items) {
    Value v;
    v.kind = Kind::kList;
    v.items = std::move(items);
    return v;
  }
  static Value Other(std::string what) {
    Value v;
    v.kind = Kind::kOther;
    v.text = std::move(what);
    return v;
  }

  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kBool; }
  bool is_known_number() const { return is_number() && symbol.empty(); }
  int rank() const { return static_cast<int>(dims.size()); }
  /// "Tensor((2, 3), float32)", "int 3", "a list of 2", ...: for messages.
  std::string describe() const;
  /// An int's dim: static when known, else its symbol.
  Dim as_dim() const;
};

/// |x| as an int64, saturated to [-2^62, 2^62] (NaN: 0): never undefined, whatever a file holds.
int64_t SaturatingInt(double x);
/// a * b, or an ImportError when it overflows int64 (dims of a malformed file).
int64_t CheckedMul(int64_t a, int64_t b);

// ---- Text helpers

/// The local of a name: %name, quoted unless it is [A-Za-z0-9_]+.
std::string Local(const std::string& name);
/// "a, b, c".
std::string Join(const std::vector<std::string>& parts);
/// "[1, 2, 3]".
std::string IntList(const std::vector<int64_t>& values);
/// "op(a, b, attrs)".
std::string Call(const std::string& op, const std::vector<std::string>& args, const std::string& attrs = "");
/// The shortest decimal that reads back as the same double ("0.1", "1e-05").
std::string NumberText(double v);
/// "Tensor((n, 3), float32)".
std::string TensorSInfo(const Dims& dims, const std::string& dtype);
/// "shape(n, 3)".
std::string ShapeExpr(const Dims& dims);
/// The product of dims as a dim ("n * 12", or static).
Dim Product(const Dims& dims);

}  // namespace rxt::import_torchscript
