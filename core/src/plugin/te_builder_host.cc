// TEBuilderHost and the C functions of rxt_te_api_t. Every function catches rxt::Error and
// records it: no exception crosses into the plugin.
#include "te_builder_host.h"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <unordered_set>

#include "rxt/ir/mutator.h"

namespace rxt {
namespace {

// binary() casts rxt_te_binary_t to BinaryOp: the two list the operations in the same order.
static_assert(static_cast<int>(BinaryOp::kAdd) == RXT_TE_ADD && static_cast<int>(BinaryOp::kMin) == RXT_TE_MIN &&
              static_cast<int>(BinaryOp::kMax) == RXT_TE_MAX && static_cast<int>(BinaryOp::kEq) == RXT_TE_EQ &&
              static_cast<int>(BinaryOp::kOr) == RXT_TE_OR);

TEBuilderHost& Host(rxt_te_builder_t* kb) { return *kb->host; }

/// A C enum from a plugin as the int it holds: in C++ a value outside the enum's list is
/// undefined behaviour, and a plugin may pass any number.
template <typename Enum>
int RawEnum(const Enum& value) {
  int raw = 0;
  static_assert(sizeof(raw) == sizeof(value));
  std::memcpy(&raw, &value, sizeof raw);
  return raw;
}

/// Runs |body| (returning a handle) unless an operand is missing or an error is recorded;
/// records the error it throws. |what| names the function in messages.
template <typename Handle, typename Fn>
Handle Guard(rxt_te_builder_t* kb, const char* what, Fn&& body) {
  if (kb == nullptr) return nullptr;
  TEBuilderHost& host = Host(kb);
  if (host.failed()) return nullptr;
  try {
    return body(host);
  } catch (const std::exception& e) {
    host.Fail(StrCat(what, ": ", e.what()));
  }
  return nullptr;
}

PrimExpr Operand(TEBuilderHost& host, rxt_te_expr_t e, const char* name) {
  PrimExpr value = host.Unwrap(e);
  if (value == nullptr) Throw(ErrorCode::kInvalidArgument, name, " is NULL or not an expression of this builder");
  return value;
}

TensorRef TensorOperand(TEBuilderHost& host, rxt_te_tensor_t t) {
  TensorRef tensor = host.UnwrapTensor(t);
  if (!tensor.defined()) Throw(ErrorCode::kInvalidArgument, "the tensor is NULL or not a tensor of this builder");
  return tensor;
}

DType DTypeOperand(const char* name) {
  std::optional<DType> dtype = name ? ParseDType(name) : std::nullopt;
  if (!dtype || *dtype == DType::kUnknown) Throw(ErrorCode::kInvalidArgument, "unknown dtype '", name ? name : "(null)", "'");
  return *dtype;
}

void CheckNdim(int ndim) {
  if (ndim < 0 || ndim > RXT_TE_MAX_NDIM) {
    Throw(ErrorCode::kInvalidArgument, "ndim ", ndim, " is outside [0, ", RXT_TE_MAX_NDIM, "]");
  }
}

std::vector<PrimExpr> Operands(TEBuilderHost& host, const rxt_te_expr_t* list, int count, const char* name,
                               bool int64) {
  CheckNdim(count);
  if (count > 0 && list == nullptr) Throw(ErrorCode::kInvalidArgument, name, " is NULL");
  std::vector<PrimExpr> values;
  for (int i = 0; i < count; ++i) {
    PrimExpr v = Operand(host, list[i], name);
    if (int64 && v->dtype != DType::kInt64) {
      Throw(ErrorCode::kInvalidArgument, name, "[", i, "] must be int64, got ", DTypeName(v->dtype));
    }
    values.push_back(std::move(v));
  }
  return values;
}

/// The variables |vars| stands for: each an axis made by axes(), none twice.
std::vector<const PrimVarNode*> AxisVars(TEBuilderHost& host, const rxt_te_expr_t* vars, int count, const char* name) {
  std::vector<const PrimVarNode*> axes;
  for (const PrimExpr& v : Operands(host, vars, count, name, true)) {
    const auto* var = v->As<PrimVarNode>();
    if (var == nullptr || !host.IsAxis(var)) Throw(ErrorCode::kInvalidArgument, name, " must be variables from axes()");
    for (const PrimVarNode* seen : axes) {
      if (seen == var) Throw(ErrorCode::kInvalidArgument, name, " names one axis twice");
    }
    axes.push_back(var);
  }
  return axes;
}

/// Finds an axis variable of the host left in an expression after substitution: a value that
/// uses the axes of another stage.
class StrayAxisFinder : public PrimExprMutator {
 public:
  explicit StrayAxisFinder(const TEBuilderHost& host) : host_(host) {}
  bool found = false;
  PrimExpr VisitPrimVar(const PrimVar& var) override {
    found = found || host_.IsAxis(var.get());
    return var;
  }

 private:
  const TEBuilderHost& host_;
};

PrimExpr Bind(const TEBuilderHost& host, const PrimExpr& value, const std::vector<const PrimVarNode*>& axes,
              const Index& index) {
  PrimVarMap map;
  for (size_t d = 0; d < axes.size(); ++d) map[axes[d]] = index[d];
  PrimExpr bound = Substitute(value, map);
  StrayAxisFinder finder(host);
  finder.VisitPrimExpr(bound);
  if (finder.found) Throw(ErrorCode::kInvalidArgument, "the value uses an axis that is not one of this stage's");
  return bound;
}

std::string StageName(const char* name) {
  std::string text = name != nullptr ? name : "";
  if (text.empty()) Throw(ErrorCode::kInvalidArgument, "a stage needs a name");
  return text;
}

// ---- The table's functions.

rxt_te_tensor_t Input(rxt_te_builder_t* kb, int index) {
  return Guard<rxt_te_tensor_t>(kb, "input", [&](TEBuilderHost& h) { return h.WrapTensor(h.Input(index)); });
}

int Ndim(rxt_te_builder_t* kb, rxt_te_tensor_t t) {
  if (kb == nullptr) return -1;
  TensorRef tensor = Host(kb).UnwrapTensor(t);
  return tensor.defined() ? tensor.ndim() : -1;
}

const char* DTypeOf(rxt_te_builder_t* kb, rxt_te_tensor_t t) {
  if (kb == nullptr) return nullptr;
  TensorRef tensor = Host(kb).UnwrapTensor(t);
  return tensor.defined() ? DTypeName(tensor.dtype()) : nullptr;
}

rxt_te_expr_t Dim(rxt_te_builder_t* kb, rxt_te_tensor_t t, int axis) {
  return Guard<rxt_te_expr_t>(kb, "dim", [&](TEBuilderHost& h) {
    TensorRef tensor = TensorOperand(h, t);
    if (axis < -tensor.ndim() || axis >= tensor.ndim()) {
      Throw(ErrorCode::kInvalidArgument, "axis ", axis, " is out of range for a ", tensor.ndim(), "-d tensor");
    }
    return h.Wrap(tensor.dim(axis));
  });
}

rxt_te_expr_t Load(rxt_te_builder_t* kb, rxt_te_tensor_t t, const rxt_te_expr_t* index, int ndim) {
  return Guard<rxt_te_expr_t>(kb, "load", [&](TEBuilderHost& h) {
    TensorRef tensor = TensorOperand(h, t);
    Index i = Operands(h, index, ndim, "index", true);
    if (static_cast<int>(i.size()) != tensor.ndim()) {
      Throw(ErrorCode::kInvalidArgument, ndim, " indices for a ", tensor.ndim(), "-d tensor");
    }
    return h.Wrap(tensor(i));
  });
}

rxt_te_expr_t Constant(rxt_te_builder_t* kb, double value, const char* dtype) {
  return Guard<rxt_te_expr_t>(kb, "constant", [&](TEBuilderHost& h) { return h.Wrap(te::Const(value, DTypeOperand(dtype))); });
}

rxt_te_expr_t Binary(rxt_te_builder_t* kb, rxt_te_binary_t op, rxt_te_expr_t a, rxt_te_expr_t b) {
  return Guard<rxt_te_expr_t>(kb, "binary", [&](TEBuilderHost& h) {
    int code = RawEnum(op);
    if (code < RXT_TE_ADD || code > RXT_TE_OR) Throw(ErrorCode::kInvalidArgument, "unknown operation ", code);
    // rxt_te_binary_t lists the operations in BinaryOp's order.
    return h.Wrap(MakeBinary(static_cast<BinaryOp>(code), Operand(h, a, "a"), Operand(h, b, "b")));
  });
}

rxt_te_expr_t CallIntrinsic(rxt_te_builder_t* kb, const char* intrinsic, rxt_te_expr_t x) {
  return Guard<rxt_te_expr_t>(kb, "call", [&](TEBuilderHost& h) {
    static const std::unordered_set<std::string> kUnary = {
        "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf",  "abs",  "neg",   "floor", "ceil", "round",
        "sin", "cos", "tan",  "asin",  "acos", "atan",    "sinh", "cosh", "asinh", "acosh", "atanh"};
    std::string name = intrinsic != nullptr ? intrinsic : "";
    if (!kUnary.count(name)) Throw(ErrorCode::kInvalidArgument, "unknown intrinsic '", name, "'");
    PrimExpr value = Operand(h, x, "x");
    if (!IsFloat(value->dtype)) {
      Throw(ErrorCode::kInvalidArgument, name, " takes a float, got ", DTypeName(value->dtype));
    }
    return h.Wrap(te::Call(name, value));
  });
}

rxt_te_expr_t Select(rxt_te_builder_t* kb, rxt_te_expr_t cond, rxt_te_expr_t a, rxt_te_expr_t b) {
  return Guard<rxt_te_expr_t>(kb, "select", [&](TEBuilderHost& h) {
    return h.Wrap(te::Select(Operand(h, cond, "cond"), Operand(h, a, "a"), Operand(h, b, "b")));
  });
}

rxt_te_expr_t Cast(rxt_te_builder_t* kb, const char* dtype, rxt_te_expr_t x) {
  return Guard<rxt_te_expr_t>(kb, "cast", [&](TEBuilderHost& h) { return h.Wrap(te::Cast(DTypeOperand(dtype), Operand(h, x, "x"))); });
}

rxt_code_t Axes(rxt_te_builder_t* kb, int count, rxt_te_expr_t* vars) {
  bool ok = Guard<rxt_te_expr_t>(kb, "axes", [&](TEBuilderHost& h) -> rxt_te_expr_t {
    CheckNdim(count);
    if (count > 0 && vars == nullptr) Throw(ErrorCode::kInvalidArgument, "vars is NULL");
    for (int i = 0; i < count; ++i) vars[i] = h.NewAxis();
    return reinterpret_cast<rxt_te_expr_t>(uintptr_t{1});  // success marker, not a handle
  }) != nullptr;
  return ok ? RXT_OK : RXT_INVALID_ARGUMENT;
}

rxt_te_tensor_t Compute(rxt_te_builder_t* kb, const char* name, const rxt_te_expr_t* shape, int ndim,
                        const rxt_te_expr_t* vars, rxt_te_expr_t value) {
  return Guard<rxt_te_tensor_t>(kb, "compute", [&](TEBuilderHost& h) {
    std::string stage = StageName(name);
    std::vector<PrimExpr> dims = Operands(h, shape, ndim, "shape", true);
    std::vector<const PrimVarNode*> axes = AxisVars(h, vars, ndim, "vars");
    PrimExpr body = Operand(h, value, "value");
    return h.WrapTensor(h.builder().Compute(stage, dims, [&](const Index& i) { return Bind(h, body, axes, i); }));
  });
}

rxt_te_tensor_t Reduce(rxt_te_builder_t* kb, const char* name, const rxt_te_expr_t* shape, int ndim,
                       const rxt_te_expr_t* vars, const rxt_te_expr_t* extents, int num_reduce,
                       const rxt_te_expr_t* reduce_vars, rxt_te_reduce_t kind, rxt_te_expr_t value, rxt_te_expr_t init) {
  return Guard<rxt_te_tensor_t>(kb, "reduce", [&](TEBuilderHost& h) {
    std::string stage = StageName(name);
    int reduction = RawEnum(kind);
    if (reduction < RXT_TE_REDUCE_SUM || reduction > RXT_TE_REDUCE_PROD) {
      Throw(ErrorCode::kInvalidArgument, "unknown reduction ", reduction);
    }
    std::vector<PrimExpr> dims = Operands(h, shape, ndim, "shape", true);
    std::vector<const PrimVarNode*> axes = AxisVars(h, vars, ndim, "vars");
    std::vector<PrimExpr> reduce_extents = Operands(h, extents, num_reduce, "extents", true);
    std::vector<const PrimVarNode*> reduce_axes = AxisVars(h, reduce_vars, num_reduce, "reduce_vars");
    for (const PrimVarNode* r : reduce_axes) {
      for (const PrimVarNode* a : axes) {
        if (r == a) Throw(ErrorCode::kInvalidArgument, "an axis is both a stage axis and a reduction axis");
      }
    }
    PrimExpr body = Operand(h, value, "value");
    PrimExpr start = init != nullptr ? Operand(h, init, "init") : nullptr;
    if (start && start->dtype != body->dtype) {
      Throw(ErrorCode::kInvalidArgument, "init is ", DTypeName(start->dtype), " but the value ", DTypeName(body->dtype));
    }
    std::vector<const PrimVarNode*> all = axes;
    all.insert(all.end(), reduce_axes.begin(), reduce_axes.end());
    auto fn = [&](const Index& i, const Index& k) {
      Index both = i;
      both.insert(both.end(), k.begin(), k.end());
      return Bind(h, body, all, both);
    };
    // rxt_te_reduce_t's values in order; both only grow at their end.
    static constexpr ReduceKind kKinds[] = {ReduceKind::kSum, ReduceKind::kMax, ReduceKind::kMin, ReduceKind::kProd};
    static_assert(std::size(kKinds) == RXT_TE_REDUCE_PROD + 1);
    return h.WrapTensor(h.builder().Reduce(stage, dims, reduce_extents, kKinds[reduction], fn, start));
  });
}

rxt_code_t Output(rxt_te_builder_t* kb, rxt_te_tensor_t stage) {
  bool ok = Guard<rxt_te_tensor_t>(kb, "output", [&](TEBuilderHost& h) {
    h.AddOutput(TensorOperand(h, stage));
    return stage;
  }) != nullptr;
  return ok ? RXT_OK : RXT_INVALID_ARGUMENT;
}

const char* ErrorOf(rxt_te_builder_t* kb) {
  if (kb == nullptr || !Host(kb).failed()) return nullptr;
  return Host(kb).error().c_str();
}

rxt_te_expr_t FailWith(rxt_te_builder_t* kb, const char* message) {
  if (kb != nullptr) Host(kb).Fail(message != nullptr ? message : "");
  return nullptr;
}

rxt_te_api_t MakeApi() {
  rxt_te_api_t api{};
  api.struct_size = sizeof(rxt_te_api_t);
  api.input = &Input;
  api.ndim = &Ndim;
  api.dtype = &DTypeOf;
  api.dim = &Dim;
  api.load = &Load;
  api.constant = &Constant;
  api.binary = &Binary;
  api.call = &CallIntrinsic;
  api.select = &Select;
  api.cast = &Cast;
  api.axes = &Axes;
  api.compute = &Compute;
  api.reduce = &Reduce;
  api.output = &Output;
  api.error = &ErrorOf;
  api.fail = &FailWith;
  return api;
}

}  // namespace

const rxt_te_api_t* TEBuilderHost::Api() {
  static const rxt_te_api_t api = MakeApi();
  return &api;
}

void TEBuilderHost::Fail(const std::string& message) {
  if (error_.empty()) error_ = message.empty() ? "failed (no message)" : message;
}

rxt_te_expr_t TEBuilderHost::Wrap(PrimExpr e) {
  if (e == nullptr) return nullptr;
  exprs_.push_back(std::move(e));
  return reinterpret_cast<rxt_te_expr_t>(static_cast<uintptr_t>(exprs_.size()));
}

PrimExpr TEBuilderHost::Unwrap(rxt_te_expr_t handle) const {
  auto index = reinterpret_cast<uintptr_t>(handle);
  if (index == 0 || index > exprs_.size()) return nullptr;
  return exprs_[index - 1];
}

rxt_te_tensor_t TEBuilderHost::WrapTensor(TensorRef t) {
  if (!t.defined()) return nullptr;
  tensors_.push_back(std::move(t));
  return reinterpret_cast<rxt_te_tensor_t>(static_cast<uintptr_t>(tensors_.size()));
}

TensorRef TEBuilderHost::UnwrapTensor(rxt_te_tensor_t handle) const {
  auto index = reinterpret_cast<uintptr_t>(handle);
  if (index == 0 || index > tensors_.size()) return TensorRef();
  return tensors_[index - 1];
}

rxt_te_expr_t TEBuilderHost::NewAxis() {
  PrimVar var = MakePrimVar(StrCat("axis", axes_.size()));
  axes_.insert(var.get());
  return Wrap(var);
}

TensorRef TEBuilderHost::Input(int index) {
  if (index < 0 || index >= static_cast<int>(call_.args.size())) {
    Throw(ErrorCode::kInvalidArgument, "argument ", index, " does not exist: the call has ", call_.args.size());
  }
  for (const auto& [arg, tensor] : inputs_) {
    if (arg == index) return tensor;
  }
  const auto* t = call_.args[index]->struct_info->As<TensorSINode>();
  if (t == nullptr) Throw(ErrorCode::kInvalidArgument, DescribeArg(call_, index), " is not a tensor");
  TensorRef tensor = kernel_.Tensor(index);
  inputs_.emplace_back(index, tensor);
  return tensor;
}

Expr TEBuilderHost::Finish(LegalizeContext& context) {
  if (failed()) Throw(ErrorCode::kInvalidArgument, error_);
  std::vector<StructInfo> fields;
  if (const auto* tuple = call_.struct_info->As<TupleSINode>()) {
    fields = tuple->fields;
  } else {
    fields = {call_.struct_info};
  }
  if (outputs_.size() != fields.size()) {
    Throw(ErrorCode::kInvalidArgument, "the kernel has ", outputs_.size(), " output(s) (output()), the call's result ",
          fields.size());
  }
  for (size_t k = 0; k < fields.size(); ++k) {
    const auto* t = fields[k]->As<TensorSINode>();
    const TensorRef& out = outputs_[k];
    if (t == nullptr || t->dtype != out.dtype() || t->ndim != out.ndim()) {
      Throw(ErrorCode::kInvalidArgument, "output ", k, " is ", out.ndim(), "-d ", DTypeName(out.dtype()),
            " but the call's result is ", ToString(fields[k]));
    }
    for (int d = 0; t->shape && d < out.ndim(); ++d) {
      int64_t expected, built;
      if (GetConstInt((*t->shape)[d], &expected) && GetConstInt(out.dim(d), &built) && expected != built) {
        Throw(ErrorCode::kInvalidArgument, "output ", k, " has dim ", d, " = ", built, " but the call's result is ",
              ToString(fields[k]));
      }
    }
  }
  return kernel_.Finish(context, outputs_);
}

}  // namespace rxt
