#include "infer_util.h"

#include <algorithm>

namespace rxt::infer {
namespace {

const char* StructInfoKindName(StructInfoKind kind) {
  switch (kind) {
    case StructInfoKind::kObject: return "an Object";
    case StructInfoKind::kPrim: return "a Prim value";
    case StructInfoKind::kShape: return "a Shape";
    case StructInfoKind::kTensor: return "a Tensor";
    case StructInfoKind::kTuple: return "a Tuple";
    case StructInfoKind::kFunc: return "a function";
  }
  return "a value";
}

template <typename Node>
const Node& ArgAs(const CallNode& call, int index) {
  const StructInfo& sinfo = ArgSI(call, index);
  if (const auto* node = sinfo->As<Node>()) return *node;
  OpError(call, StrCat(DescribeArg(call, index), " must be ", StructInfoKindName(Node::kKind), ", got ",
                       StructInfoKindName(sinfo->kind)));
}

// The attribute as given on the call, or the op's default for it.
const AttrValue& AttrOf(const CallNode& call, const std::string& name) {
  if (const AttrValue* value = call.attrs.Find(name)) return *value;
  const OpDef* op = AsOp(call.callee);
  const AttrSpec* spec = op != nullptr ? op->FindAttr(name) : nullptr;
  RXT_CHECK(spec != nullptr, "op has no attribute '", name, "'");
  if (spec->required) OpError(call, StrCat("missing required attribute ", name));
  return spec->default_value;
}

[[noreturn]] void AttrKindError(const CallNode& call, const std::string& name, const char* expected,
                                const AttrValue& got) {
  OpError(call, StrCat("attribute ", name, " must be ", expected, ", got ", got.KindName()));
}

}  // namespace

// ---- Arguments

const StructInfo& ArgSI(const CallNode& call, int index) {
  RXT_CHECK(index >= 0 && static_cast<size_t>(index) < call.args.size(), "argument ", index, " of ", call.args.size());
  return GetStructInfo(call.args[index]);
}

const TensorSINode& TensorArg(const CallNode& call, int index) { return ArgAs<TensorSINode>(call, index); }
const TupleSINode& TupleArg(const CallNode& call, int index) { return ArgAs<TupleSINode>(call, index); }
const ShapeSINode& ShapeArg(const CallNode& call, int index) { return ArgAs<ShapeSINode>(call, index); }
const PrimSINode& PrimArg(const CallNode& call, int index) { return ArgAs<PrimSINode>(call, index); }

std::string ArgName(const CallNode& call, int index) {
  const OpDef* op = AsOp(call.callee);
  if (op != nullptr && index >= 0 && static_cast<size_t>(index) < op->inputs().size()) return op->inputs()[index].name;
  return StrCat("#", index);
}

std::string DescribeField(const CallNode& call, int arg, int field) {
  const TupleSINode& tuple = TupleArg(call, arg);
  return StrCat("field ", field, " (", ToString(tuple.fields.at(field)), ") of argument ", ArgName(call, arg));
}

const TensorSINode& TensorField(const CallNode& call, int arg, int field) {
  const TupleSINode& tuple = TupleArg(call, arg);
  RXT_CHECK(field >= 0 && static_cast<size_t>(field) < tuple.fields.size());
  const StructInfo& sinfo = tuple.fields[field];
  if (const auto* t = sinfo->As<TensorSINode>()) return *t;
  OpError(call, StrCat(DescribeField(call, arg, field), " must be a Tensor, got ", StructInfoKindName(sinfo->kind)));
}

void CheckArgCount(const CallNode& call, size_t min, size_t max) {
  size_t n = call.args.size();
  if (n >= min && n <= max) return;
  if (min == max) OpError(call, StrCat("takes ", min, " argument(s), got ", n));
  OpError(call, StrCat("takes ", min, " to ", max, " arguments, got ", n));
}

// ---- Attributes

int64_t IntAttr(const CallNode& call, const std::string& name) {
  const AttrValue& v = AttrOf(call, name);
  if (!v.is<int64_t>()) AttrKindError(call, name, "an int", v);
  return v.get<int64_t>();
}

double FloatAttr(const CallNode& call, const std::string& name) {
  const AttrValue& v = AttrOf(call, name);
  if (v.is<double>()) return v.get<double>();
  if (v.is<int64_t>()) return static_cast<double>(v.get<int64_t>());
  AttrKindError(call, name, "a float", v);
}

bool BoolAttr(const CallNode& call, const std::string& name) {
  const AttrValue& v = AttrOf(call, name);
  if (!v.is<bool>()) AttrKindError(call, name, "a bool", v);
  return v.get<bool>();
}

std::string StringAttr(const CallNode& call, const std::string& name) {
  const AttrValue& v = AttrOf(call, name);
  if (!v.is<std::string>()) AttrKindError(call, name, "a string", v);
  return v.get<std::string>();
}

DType DTypeAttr(const CallNode& call, const std::string& name) {
  const AttrValue& v = AttrOf(call, name);
  if (!v.is<DType>()) AttrKindError(call, name, "a dtype", v);
  return v.get<DType>();
}

std::vector<int64_t> IntListAttr(const CallNode& call, const std::string& name) {
  const AttrValue& v = AttrOf(call, name);
  std::optional<std::vector<int64_t>> list = v.AsIntList();
  if (!list) AttrKindError(call, name, "a list of ints", v);
  return *list;
}

std::optional<int64_t> OptionalIntAttr(const CallNode& call, const std::string& name) {
  const AttrValue& v = AttrOf(call, name);
  if (v.is_none()) return std::nullopt;
  if (!v.is<int64_t>()) AttrKindError(call, name, "none or an int", v);
  return v.get<int64_t>();
}

std::optional<std::vector<int64_t>> OptionalIntListAttr(const CallNode& call, const std::string& name) {
  const AttrValue& v = AttrOf(call, name);
  if (v.is_none()) return std::nullopt;
  std::optional<std::vector<int64_t>> list = v.AsIntList();
  if (!list) AttrKindError(call, name, "none or a list of ints", v);
  return list;
}

std::string ChoiceAttr(const CallNode& call, const std::string& name, const std::vector<std::string>& allowed) {
  std::string value = StringAttr(call, name);
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return value;
  std::string choices;
  for (const std::string& a : allowed) choices += StrCat(choices.empty() ? "" : ", ", "\"", a, "\"");
  OpError(call, StrCat("attribute ", name, " must be one of ", choices, ", got \"", value, "\""));
}

// ---- DTypes

DType CommonDType(const CallNode& call, const std::vector<int>& args) {
  DType common = DType::kUnknown;
  int common_arg = -1;
  for (int arg : args) {
    DType t = TensorArg(call, arg).dtype;
    if (t == DType::kUnknown) continue;
    if (common == DType::kUnknown) {
      common = t;
      common_arg = arg;
    } else if (t != common) {
      OpError(call, StrCat("dtype mismatch: ", DescribeArg(call, common_arg), " and ", DescribeArg(call, arg),
                           " must have the same dtype"));
    }
  }
  return common;
}

void RequireFloat(const CallNode& call, int arg) {
  DType t = TensorArg(call, arg).dtype;
  if (t != DType::kUnknown && !IsFloat(t)) {
    OpError(call, StrCat(DescribeArg(call, arg), " must have a floating-point dtype, got ", DTypeName(t)));
  }
}

void RequireInt(const CallNode& call, int arg) {
  DType t = TensorArg(call, arg).dtype;
  if (t != DType::kUnknown && !IsInt(t)) {
    OpError(call, StrCat(DescribeArg(call, arg), " must have an integer dtype, got ", DTypeName(t)));
  }
}

void RequireBool(const CallNode& call, int arg) {
  DType t = TensorArg(call, arg).dtype;
  if (t != DType::kUnknown && t != DType::kBool) {
    OpError(call, StrCat(DescribeArg(call, arg), " must have dtype bool, got ", DTypeName(t)));
  }
}

// ---- Shapes

StructInfo MakeTensorSI(DType dtype, int ndim, const std::optional<Dims>& shape) {
  if (shape) return TensorSI(*shape, dtype);
  return TensorSI(dtype, ndim);
}

std::optional<int64_t> StaticDim(const PrimExpr& dim) {
  int64_t value = 0;
  if (dim != nullptr && GetConstInt(dim, &value)) return value;
  return std::nullopt;
}

std::optional<Dims> BroadcastDims(const CallNode& call, const std::vector<BroadcastOperand>& operands) {
  size_t ndim = 0;
  for (const BroadcastOperand& op : operands) ndim = std::max(ndim, op.dims.size());
  Dims out(ndim);
  bool related = true;
  for (size_t k = 0; k < ndim; ++k) {    // k counts from the right
    std::optional<int64_t> static_size;  // the static size other than 1, if any
    int static_arg = -1;
    PrimExpr symbolic;
    bool unrelated = false;
    for (const BroadcastOperand& op : operands) {
      if (k >= op.dims.size()) continue;
      const PrimExpr& dim = op.dims[op.dims.size() - 1 - k];
      if (std::optional<int64_t> s = StaticDim(dim)) {
        if (*s == 1) continue;
        if (static_size && *static_size != *s) {
          OpError(call, StrCat("incompatible shapes for broadcasting: ", DescribeArg(call, static_arg), " has ",
                               *static_size, " and ", DescribeArg(call, op.arg), " has ", *s, " at axis -", k + 1));
        }
        static_size = s;
        static_arg = op.arg;
      } else if (symbolic == nullptr) {
        symbolic = dim;
      } else if (!ProvablyEqual(symbolic, dim)) {
        unrelated = true;
      }
    }
    if (unrelated || (static_size && symbolic != nullptr)) {
      related = false;  // keep going: a later axis may still be provably incompatible
      continue;
    }
    out[ndim - 1 - k] = static_size ? IntImm(*static_size) : symbolic != nullptr ? symbolic : IntImm(1);
  }
  if (!related) return std::nullopt;
  return out;
}

BroadcastShape BroadcastArgs(const CallNode& call, const std::vector<int>& args) {
  BroadcastShape result;
  bool ndim_known = true, shape_known = true;
  int ndim = 0;
  std::vector<BroadcastOperand> operands;
  for (int arg : args) {
    const TensorSINode& t = TensorArg(call, arg);
    if (t.ndim < 0) {
      ndim_known = false;
      continue;
    }
    ndim = std::max(ndim, t.ndim);
    if (t.shape) {
      operands.push_back({arg, *t.shape});
    } else {
      shape_known = false;
    }
  }
  std::optional<Dims> dims = BroadcastDims(call, operands);  // also finds static mismatches
  if (!ndim_known) return result;
  result.ndim = ndim;
  if (shape_known) result.shape = std::move(dims);
  return result;
}

int NormalizeAxis(const CallNode& call, int arg, int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    OpError(call, StrCat("axis ", axis, " is out of range [", -ndim, ", ", ndim, ") for ", DescribeArg(call, arg)));
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<int> NormalizeAxes(const CallNode& call, int arg, const std::vector<int64_t>& axes, int ndim) {
  std::vector<int> result;
  for (int64_t axis : axes) {
    int a = NormalizeAxis(call, arg, axis, ndim);
    if (std::find(result.begin(), result.end(), a) != result.end()) {
      OpError(call, StrCat("axis ", axis, " repeats in axes ", IntListToString(axes), " for ", DescribeArg(call, arg)));
    }
    result.push_back(a);
  }
  return result;
}

std::string IntListToString(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += StrCat(i ? ", " : "", values[i]);
  return s + "]";
}

// ---- Dimension arithmetic

PrimExpr AddConst(const PrimExpr& dim, int64_t c) {
  if (c == 0) return dim;
  if (std::optional<int64_t> s = StaticDim(dim)) return IntImm(*s + c, dim->dtype);
  if (const auto* bin = dim->As<BinaryNode>()) {
    std::optional<int64_t> rhs = StaticDim(bin->b);
    if (rhs && bin->op == BinaryOp::kAdd) return AddConst(bin->a, *rhs + c);
    if (rhs && bin->op == BinaryOp::kSub) return AddConst(bin->a, c - *rhs);
  }
  if (c > 0) return MakeBinary(BinaryOp::kAdd, dim, IntImm(c, dim->dtype));
  return MakeBinary(BinaryOp::kSub, dim, IntImm(-c, dim->dtype));
}

PrimExpr MulDims(const PrimExpr& a, const PrimExpr& b) { return MakeBinary(BinaryOp::kMul, a, b); }

PrimExpr Product(const Dims& dims) {
  PrimExpr result = IntImm(1);
  for (const PrimExpr& d : dims) result = MulDims(result, d);
  return result;
}

PrimExpr FloorDivConst(const PrimExpr& dim, int64_t c) {
  return MakeBinary(BinaryOp::kFloorDiv, dim, IntImm(c, dim->dtype));
}

namespace {
void FactorizeInto(const PrimExpr& dim, Factors& f) {
  if (std::optional<int64_t> s = StaticDim(dim)) {
    f.overflow = f.overflow || __builtin_mul_overflow(f.constant, *s, &f.constant);
  } else if (const auto* bin = dim->As<BinaryNode>(); bin != nullptr && bin->op == BinaryOp::kMul) {
    FactorizeInto(bin->a, f);
    FactorizeInto(bin->b, f);
  } else {
    f.symbols.push_back(dim);
  }
}
}  // namespace

Factors Factorize(const Dims& dims) {
  Factors f;
  for (const PrimExpr& d : dims) FactorizeInto(d, f);
  return f;
}

void CancelCommonFactors(Factors& a, Factors& b) {
  for (auto it = a.symbols.begin(); it != a.symbols.end();) {
    auto match =
        std::find_if(b.symbols.begin(), b.symbols.end(), [&](const PrimExpr& s) { return ProvablyEqual(*it, s); });
    if (match == b.symbols.end()) {
      ++it;
    } else {
      b.symbols.erase(match);
      it = a.symbols.erase(it);
    }
  }
}

}  // namespace rxt::infer
