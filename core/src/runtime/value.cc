#include "rxt/runtime/value.h"

#include <cstring>

#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

[[noreturn]] void WrongKind(Value::Kind want, Value::Kind got) {
  Throw(ErrorCode::kInvalidArgument, "value: expected a ", Value::KindName(want), ", got a ", Value::KindName(got));
}

std::string DimsText(const std::vector<int64_t>& dims) { return ShapeText(dims.data(), dims.size()); }

// A description stays short whatever the value: tuples show their first fields, to a depth.
constexpr size_t kDescribedFields = 8;
constexpr int kDescribedDepth = 4;

std::string DescribeValue(const Value& value, int depth);

std::string DescribeTuple(const std::vector<Value>& fields, int depth) {
  if (depth >= kDescribedDepth) return StrCat("(… ", fields.size(), " fields)");
  std::string s = "(";
  for (size_t i = 0; i < fields.size() && i < kDescribedFields; ++i) s += (i ? ", " : "") + DescribeValue(fields[i], depth + 1);
  if (fields.size() > kDescribedFields) s += StrCat(", … (", fields.size(), " fields)");
  if (fields.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

Value::Value(Tensor t) : data_(std::make_shared<Tensor>(std::move(t))) {}

Value Value::Tuple(std::vector<Value> fields) {
  Value v;
  v.data_ = std::make_shared<const std::vector<Value>>(std::move(fields));
  return v;
}
Value Value::Shape(std::vector<int64_t> dims) {
  Value v;
  v.data_ = std::make_shared<const std::vector<int64_t>>(std::move(dims));
  return v;
}
Value Value::Int(int64_t i) {
  Value v;
  v.data_ = i;
  return v;
}
Value Value::Float(double f) {
  Value v;
  v.data_ = f;
  return v;
}
Value Value::String(std::string s) {
  Value v;
  v.data_ = std::make_shared<const std::string>(std::move(s));
  return v;
}

const Tensor& Value::tensor() const {
  if (!is_tensor()) WrongKind(Kind::kTensor, kind());
  return *std::get<std::shared_ptr<Tensor>>(data_);
}
Tensor& Value::mutable_tensor() {
  if (!is_tensor()) WrongKind(Kind::kTensor, kind());
  return *std::get<std::shared_ptr<Tensor>>(data_);
}
const std::vector<Value>& Value::tuple() const {
  if (!is_tuple()) WrongKind(Kind::kTuple, kind());
  return *std::get<std::shared_ptr<const std::vector<Value>>>(data_);
}
const std::vector<int64_t>& Value::shape() const {
  if (!is_shape()) WrongKind(Kind::kShape, kind());
  return *std::get<std::shared_ptr<const std::vector<int64_t>>>(data_);
}
int64_t Value::int_value() const {
  if (!is_int()) WrongKind(Kind::kInt, kind());
  return std::get<int64_t>(data_);
}
double Value::float_value() const {
  if (!is_float()) WrongKind(Kind::kFloat, kind());
  return std::get<double>(data_);
}
const std::string& Value::string() const {
  if (!is_string()) WrongKind(Kind::kString, kind());
  return *std::get<std::shared_ptr<const std::string>>(data_);
}

const char* Value::KindName(Kind k) {
  switch (k) {
    case Kind::kNone: return "none";
    case Kind::kTensor: return "tensor";
    case Kind::kTuple: return "tuple";
    case Kind::kShape: return "shape";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kString: return "string";
  }
  return "?";
}

std::string Value::Describe() const { return DescribeValue(*this, 0); }

namespace {

std::string DescribeValue(const Value& value, int depth) {
  switch (value.kind()) {
    case Value::Kind::kNone: return "none";
    case Value::Kind::kTensor: {
      const Tensor& t = value.tensor();
      if (!t.defined()) return "an undefined tensor";
      return StrCat(DTypeName(t.dtype()), " ", DimsText(t.shape()));
    }
    case Value::Kind::kTuple: return DescribeTuple(value.tuple(), depth);
    case Value::Kind::kShape: return "shape" + DimsText(value.shape());
    case Value::Kind::kInt: return std::to_string(value.int_value());
    case Value::Kind::kFloat: return StrCat(value.float_value());
    case Value::Kind::kString: return "\"" + MessageText(value.string()) + "\"";
  }
  return "?";
}

}  // namespace

bool BitwiseEqual(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kNone: return true;
    case Value::Kind::kTensor: return a.tensor().BitwiseEqual(b.tensor());
    case Value::Kind::kTuple: {
      const auto &x = a.tuple(), &y = b.tuple();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!BitwiseEqual(x[i], y[i])) return false;
      }
      return true;
    }
    case Value::Kind::kShape: return a.shape() == b.shape();
    case Value::Kind::kInt: return a.int_value() == b.int_value();
    case Value::Kind::kFloat: {
      double x = a.float_value(), y = b.float_value();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case Value::Kind::kString: return a.string() == b.string();
  }
  return false;
}

}  // namespace rxt
