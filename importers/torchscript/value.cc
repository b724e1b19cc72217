#include "value.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "options.h"

namespace rxt::import_torchscript {

int64_t SaturatingInt(double x) {
  constexpr double kLimit = 4611686018427387904.0;  // 2^62
  if (std::isnan(x)) return 0;
  if (x >= kLimit) return int64_t(1) << 62;
  if (x <= -kLimit) return -(int64_t(1) << 62);
  return static_cast<int64_t>(x);
}

int64_t CheckedMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw ImportError("a shape of more than 2^63 elements");
  return r;
}

Dim Value::as_dim() const { return symbol.empty() ? Dim::Static(SaturatingInt(number)) : Dim::Symbolic(symbol); }

std::string Value::describe() const {
  switch (kind) {
    case Kind::kTensor:
      return TensorSInfo(dims, dtype);
    case Kind::kInt:
      return symbol.empty() ? "int " + std::to_string(SaturatingInt(number)) : "int " + symbol;
    case Kind::kFloat:
      return "float " + NumberText(number);
    case Kind::kBool:
      return number != 0 ? "bool true" : "bool false";
    case Kind::kNone:
      return "None";
    case Kind::kString:
      return "string '" + text + "'";
    case Kind::kList:
      return "a list of " + std::to_string(items.size());
    case Kind::kModule:
      return "the module '" + text + "'";
    case Kind::kOther:
      break;
  }
  return text.empty() ? "a value of a type the importer does not know" : text;
}

std::string Local(const std::string& name) {
  bool plain = !name.empty();
  for (char c : name) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (plain) return "%" + name;
  std::string out = "%\"";
  for (char c : name) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string IntList(const std::vector<int64_t>& values) {
  std::vector<std::string> parts;
  for (int64_t v : values) parts.push_back(std::to_string(v));
  return "[" + Join(parts) + "]";
}

std::string Call(const std::string& op, const std::vector<std::string>& args, const std::string& attrs) {
  return op + "(" + Join(args) + (attrs.empty() ? "" : (args.empty() ? "" : ", ") + attrs) + ")";
}

std::string NumberText(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[64];
  std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, v);
  std::string text(buffer, r.ptr);
  // A float attribute must read as one: "1" -> "1.0".
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string TensorSInfo(const Dims& dims, const std::string& dtype) {
  std::vector<std::string> parts;
  for (const Dim& d : dims) parts.push_back(d.text());
  return "Tensor((" + Join(parts) + (parts.size() == 1 ? "," : "") + "), " + dtype + ")";
}

std::string ShapeExpr(const Dims& dims) {
  std::vector<std::string> parts;
  for (const Dim& d : dims) parts.push_back(d.text());
  return "shape(" + Join(parts) + ")";
}

Dim Product(const Dims& dims) {
  int64_t known = 1;
  std::string symbolic;
  for (const Dim& d : dims) {
    if (d.is_static()) {
      known = CheckedMul(known, d.value);
    } else {
      symbolic += (symbolic.empty() ? "" : " * ") +
                  (d.symbol.find_first_of("+-") != std::string::npos ? "(" + d.symbol + ")" : d.symbol);
    }
  }
  if (symbolic.empty()) return Dim::Static(known);
  if (known == 0) return Dim::Static(0);
  return Dim::Symbolic(known == 1 ? symbolic : symbolic + " * " + std::to_string(known));
}

}  // namespace rxt::import_torchscript
