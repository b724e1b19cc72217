#include "node_context.h"

#include <cmath>

namespace rxt::import_torchscript {

const Value& NodeContext::input(int i) const {
  if (i < 0 || i >= num_inputs()) fail("has no input " + std::to_string(i));
  return *inputs_[i];
}

const Value& NodeContext::tensor_value(int i) const {
  const Value& v = input(i);
  if (v.kind != Kind::kTensor) unsupported("input " + std::to_string(i) + " is " + v.describe() + ", not a tensor");
  return v;
}

std::string NodeContext::tensor(int i, const std::string& scalar_dtype) {
  const Value& v = input(i);
  if (v.kind == Kind::kTensor) return v.attribute.empty() ? v.expr : backbone_.AttributeExpr(v.attribute);
  if (v.is_known_number()) {
    std::string dtype = scalar_dtype;
    if (dtype.empty())
      dtype = v.scalar_tensor && !v.dtype.empty() ? v.dtype
              : v.kind == Kind::kFloat            ? "float32"
              : v.kind == Kind::kBool             ? "bool"
                                                  : "int64";
    return scalar_const(v.number, dtype);
  }
  unsupported("input " + std::to_string(i) + " is " + v.describe() + ", not a tensor");
}

std::vector<int64_t> NodeContext::static_dims(int i, const std::string& what) const {
  std::vector<int64_t> out;
  for (const Dim& d : dims(i)) {
    if (!d.is_static()) unsupported(what + " with a symbolic dim (" + d.symbol + ")");
    out.push_back(d.value);
  }
  return out;
}

double NodeContext::number(int i, const std::string& what) const {
  const Value& v = input(i);
  if (!v.is_known_number()) unsupported(what + " that is " + v.describe() + ", not a number known at import");
  return v.number;
}

int64_t NodeContext::integer(int i, const std::string& what) const {
  const double x = number(i, what);
  if (x != std::floor(x) || std::abs(x) > 9.0e15) fail(what + " is " + NumberText(x) + ", not an integer");
  return SaturatingInt(x);
}

std::vector<int64_t> NodeContext::ints(int i, const std::string& what) const {
  const Value& v = input(i);
  if (v.kind == Kind::kInt) return {integer(i, what)};
  if (v.kind != Kind::kList) unsupported(what + " that is " + v.describe() + ", not a list of ints");
  std::vector<int64_t> out;
  for (const Value& item : v.items) {
    if (item.kind != Kind::kInt || !item.symbol.empty()) unsupported(what + " holding " + item.describe());
    out.push_back(SaturatingInt(item.number));
  }
  return out;
}

Dims NodeContext::dim_list(int i, const std::string& what) const {
  const Value& v = input(i);
  if (v.kind != Kind::kList) unsupported(what + " that is " + v.describe() + ", not a list of ints");
  Dims out;
  for (const Value& item : v.items) {
    if (item.kind != Kind::kInt) unsupported(what + " holding " + item.describe());
    out.push_back(item.as_dim());
  }
  return out;
}

int64_t NodeContext::axis(int64_t axis, int64_t rank) const {
  const int64_t r = rank;
  if (r == 0) fail("dim " + std::to_string(axis) + " of a 0-d tensor");
  if (axis < -r || axis >= r) fail("dim " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + r : axis;
}

void NodeContext::set_tensor(int k, const std::string& expr, Dims dims, std::string dtype) {
  const std::string local = backbone_.Bind(expr, output_names_.at(k), TensorSInfo(dims, dtype));
  outputs_.at(k) = Value::Tensor(local, std::move(dims), std::move(dtype));
}

Value NodeContext::bind_tensor(const std::string& expr, Dims dims, std::string dtype) {
  const std::string local = backbone_.Bind(expr, "t", TensorSInfo(dims, dtype));
  return Value::Tensor(local, std::move(dims), std::move(dtype));
}

std::string NodeContext::scalar_const(double value, const std::string& dtype) {
  const bool is_float = dtype.rfind("float", 0) == 0 || dtype == "bfloat16";
  std::string text = dtype == "bool" ? (value != 0 ? "true" : "false")
                     : is_float      ? NumberText(value)
                                     : std::to_string(SaturatingInt(value));
  return "const(" + text + ", " + dtype + ")";
}

bool NodeContext::is_state_candidate(int i) const {
  const Value& v = input(i);
  return v.kind == Kind::kTensor && !v.attribute.empty() && backbone_.IsStateCandidate(v.attribute);
}

std::string NodeContext::state(int i) { return backbone_.State(input(i).attribute); }

void NodeContext::update_state(int i, const std::string& expr) { backbone_.UpdateState(input(i).attribute, expr); }

void NodeContext::fail(const std::string& what) const { throw ImportError(where() + ": " + what); }

void NodeContext::unsupported(const std::string& what) const { throw UnsupportedNode{what}; }

}  // namespace rxt::import_torchscript
