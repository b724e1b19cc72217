#include "converters.h"

namespace rxt::import_torchscript {

const ConverterMap& Converters() {
  static const ConverterMap map = [] {
    ConverterMap m;
    AddScalarConverters(m);
    AddElementwiseConverters(m);
    AddNNConverters(m);
    AddShapeConverters(m);
    AddReduceConverters(m);
    return m;
  }();
  return map;
}

bool IsFloat(const std::string& dtype) { return dtype.rfind("float", 0) == 0 || dtype == "bfloat16"; }

Dims Broadcast(const NodeContext& ctx, const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const Dim* x = k + a.size() >= rank ? &a[k + a.size() - rank] : nullptr;
    const Dim* y = k + b.size() >= rank ? &b[k + b.size() - rank] : nullptr;
    if (x == nullptr || (x->is_static() && x->value == 1 && y != nullptr)) {
      out[k] = *y;
    } else if (y == nullptr || (y->is_static() && y->value == 1) || *x == *y) {
      out[k] = *x;
    } else {
      ctx.fail("shapes " + TensorSInfo(a, "") + " and " + TensorSInfo(b, "") + " do not broadcast");
    }
  }
  return out;
}

namespace {

int Rank(const std::string& dtype) {
  static const char* kOrder[] = {"bool",  "uint8",   "int8",     "int16",   "int32",
                                 "int64", "float16", "bfloat16", "float32", "float64"};
  for (int k = 0; k < 10; ++k) {
    if (dtype == kOrder[k]) return k;
  }
  return -1;
}

}  // namespace

std::string PromoteTypes(const NodeContext& ctx, int a, int b) {
  const Value& x = ctx.input(a);
  const Value& y = ctx.input(b);
  auto dtype_of = [](const Value& v) -> std::string {
    if (v.kind == Kind::kTensor || (v.scalar_tensor && !v.dtype.empty())) return v.dtype;
    return v.kind == Kind::kFloat ? "float32" : v.kind == Kind::kBool ? "bool" : "int64";
  };
  // A dimensioned tensor's dtype wins over a number's (and a 0-d tensor's) of its category.
  const bool x_dims = x.kind == Kind::kTensor && x.rank() > 0, y_dims = y.kind == Kind::kTensor && y.rank() > 0;
  const std::string dx = dtype_of(x), dy = dtype_of(y);
  if (x_dims != y_dims) {
    const std::string& tensor = x_dims ? dx : dy;
    const std::string& other = x_dims ? dy : dx;
    if (IsFloat(other) && !IsFloat(tensor)) return "float32";
    return tensor;
  }
  if (IsFloat(dx) != IsFloat(dy)) return IsFloat(dx) ? dx : dy;
  return Rank(dx) >= Rank(dy) ? dx : dy;
}

std::string TensorAs(NodeContext& ctx, int i, const std::string& dtype) {
  const Value& v = ctx.input(i);
  if (v.kind != Kind::kTensor) return ctx.tensor(i, dtype);
  const std::string expr = ctx.tensor(i);
  return v.dtype == dtype ? expr : ctx.bind(Call("astype", {expr}, "dtype=" + dtype));
}

}  // namespace rxt::import_torchscript
