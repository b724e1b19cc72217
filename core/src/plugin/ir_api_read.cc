// The reading half of rxt_ir_api_t: op calls (op, arguments, attributes) and struct info.
// Reading never records an error: a handle that is not what the function reads gives the
// documented "nothing" value (NULL, -1, 0, RXT_NOT_FOUND).
#include "ir_api_internal.h"
#include "rxt/ir/op.h"
#include "rxt/ir/printer.h"
#include "rxt/runtime/dlpack.h"

namespace rxt::ir_api {
namespace {

/// The op call behind |handle|, or null.
const CallNode* OpCall(IRBuilderHost& host, rxt_ir_expr_t handle) {
  Expr e = host.Unwrap(handle);
  const CallNode* call = e ? e->As<CallNode>() : nullptr;
  return call != nullptr && AsOp(call->callee) != nullptr ? call : nullptr;
}

StructInfo SInfoOf(IRBuilderHost& host, rxt_ir_expr_t handle) {
  Expr e = host.Unwrap(handle);
  return e ? e->struct_info : nullptr;
}

const TensorSINode* TensorOf(IRBuilderHost& host, rxt_ir_expr_t handle) {
  StructInfo s = SInfoOf(host, handle);
  return s ? s->As<TensorSINode>() : nullptr;
}

/// The value of attribute |name| of an op call: RXT_OK with *out set, or RXT_NOT_FOUND (no
/// such call or attribute, or an optional attribute left unset).
rxt_code_t FindAttr(IRBuilderHost& host, rxt_ir_expr_t call_handle, const char* name, const AttrValue** out) {
  const CallNode* call = OpCall(host, call_handle);
  if (call == nullptr || name == nullptr) return RXT_NOT_FOUND;
  const AttrValue* value = call->attrs.Find(name);
  if (value == nullptr || value->is_none()) return RXT_NOT_FOUND;
  if (value->is<DType>() && value->get<DType>() == DType::kUnknown) return RXT_NOT_FOUND;
  *out = value;
  return RXT_OK;
}

const char* OpName(rxt_ir_builder_t* b, rxt_ir_expr_t call) {
  return Guard<const char*>(b, nullptr, [&](IRBuilderHost& host) -> const char* {
    const CallNode* c = OpCall(host, call);
    return c ? AsOp(c->callee)->name().c_str() : nullptr;
  });
}

int NumArgs(rxt_ir_builder_t* b, rxt_ir_expr_t call) {
  return Guard(b, -1, [&](IRBuilderHost& host) {
    const CallNode* c = OpCall(host, call);
    return c ? static_cast<int>(CallArgs(*c).size()) : -1;
  });
}

rxt_ir_expr_t Arg(rxt_ir_builder_t* b, rxt_ir_expr_t call, int index) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) -> rxt_ir_expr_t {
    const CallNode* c = OpCall(host, call);
    if (c == nullptr || index < 0 || index >= static_cast<int>(CallArgs(*c).size())) return nullptr;
    return host.Wrap(CallArgs(*c)[index]);
  });
}

rxt_code_t AttrInt(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name, int64_t* out) {
  return Guard(b, RXT_INTERNAL, [&](IRBuilderHost& host) {
    const AttrValue* v = nullptr;
    if (rxt_code_t code = FindAttr(host, call, name, &v); code != RXT_OK) return code;
    if (!v->is<int64_t>() || out == nullptr) return RXT_INVALID_ARGUMENT;
    *out = v->get<int64_t>();
    return RXT_OK;
  });
}

rxt_code_t AttrFloat(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name, double* out) {
  return Guard(b, RXT_INTERNAL, [&](IRBuilderHost& host) {
    const AttrValue* v = nullptr;
    if (rxt_code_t code = FindAttr(host, call, name, &v); code != RXT_OK) return code;
    if (out == nullptr) return RXT_INVALID_ARGUMENT;
    if (v->is<double>()) {
      *out = v->get<double>();
    } else if (v->is<int64_t>()) {
      *out = static_cast<double>(v->get<int64_t>());
    } else {
      return RXT_INVALID_ARGUMENT;
    }
    return RXT_OK;
  });
}

rxt_code_t AttrBool(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name, int* out) {
  return Guard(b, RXT_INTERNAL, [&](IRBuilderHost& host) {
    const AttrValue* v = nullptr;
    if (rxt_code_t code = FindAttr(host, call, name, &v); code != RXT_OK) return code;
    if (!v->is<bool>() || out == nullptr) return RXT_INVALID_ARGUMENT;
    *out = v->get<bool>() ? 1 : 0;
    return RXT_OK;
  });
}

rxt_code_t AttrString(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name, const char** out) {
  return Guard(b, RXT_INTERNAL, [&](IRBuilderHost& host) {
    const AttrValue* v = nullptr;
    if (rxt_code_t code = FindAttr(host, call, name, &v); code != RXT_OK) return code;
    if (out == nullptr) return RXT_INVALID_ARGUMENT;
    if (v->is<std::string>()) {
      *out = v->get<std::string>().c_str();  // owned by the call, which the arena holds
    } else if (v->is<DType>()) {
      *out = DTypeName(v->get<DType>());
    } else {
      return RXT_INVALID_ARGUMENT;
    }
    return RXT_OK;
  });
}

rxt_code_t AttrInts(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name, const int64_t** values, int* count) {
  return Guard(b, RXT_INTERNAL, [&](IRBuilderHost& host) {
    const AttrValue* v = nullptr;
    if (rxt_code_t code = FindAttr(host, call, name, &v); code != RXT_OK) return code;
    if (values == nullptr || count == nullptr) return RXT_INVALID_ARGUMENT;
    std::optional<std::vector<int64_t>> list =
        v->is<int64_t>() ? std::optional<std::vector<int64_t>>(std::vector<int64_t>{v->get<int64_t>()}) : v->AsIntList();
    if (!list) return RXT_INVALID_ARGUMENT;
    *count = static_cast<int>(list->size());
    *values = host.Keep(std::move(*list));
    return RXT_OK;
  });
}

const char* AttrText(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name) {
  return Guard<const char*>(b, nullptr, [&](IRBuilderHost& host) -> const char* {
    const CallNode* c = OpCall(host, call);
    const AttrValue* v = c != nullptr && name != nullptr ? c->attrs.Find(name) : nullptr;
    return v ? host.Keep(PrintAttrValue(*v)) : nullptr;
  });
}

int IsTensor(rxt_ir_builder_t* b, rxt_ir_expr_t e) {
  return Guard(b, 0, [&](IRBuilderHost& host) { return TensorOf(host, e) != nullptr ? 1 : 0; });
}

int NDim(rxt_ir_builder_t* b, rxt_ir_expr_t e) {
  return Guard(b, -1, [&](IRBuilderHost& host) {
    const TensorSINode* t = TensorOf(host, e);
    return t ? t->ndim : -1;
  });
}

const char* DTypeOf(rxt_ir_builder_t* b, rxt_ir_expr_t e) {
  return Guard<const char*>(b, "", [&](IRBuilderHost& host) -> const char* {
    StructInfo s = SInfoOf(host, e);
    DType dtype = DType::kUnknown;
    if (const auto* t = s ? s->As<TensorSINode>() : nullptr) dtype = t->dtype;
    if (const auto* p = s ? s->As<PrimSINode>() : nullptr) dtype = p->dtype;
    return dtype == DType::kUnknown ? "" : DTypeName(dtype);
  });
}

/// Dim |axis| of a tensor's shape, or null.
PrimExpr DimOf(IRBuilderHost& host, rxt_ir_expr_t e, int axis) {
  const TensorSINode* t = TensorOf(host, e);
  if (t == nullptr || !t->shape || axis < 0 || axis >= static_cast<int>(t->shape->size())) return nullptr;
  return (*t->shape)[axis];
}

int Dim(rxt_ir_builder_t* b, rxt_ir_expr_t e, int axis, int64_t* value) {
  return Guard(b, 0, [&](IRBuilderHost& host) {
    PrimExpr d = DimOf(host, e, axis);
    const auto* imm = d ? d->As<IntImmNode>() : nullptr;
    if (imm == nullptr) return 0;
    if (value != nullptr) *value = imm->value;
    return 1;
  });
}

const char* DimText(rxt_ir_builder_t* b, rxt_ir_expr_t e, int axis) {
  return Guard<const char*>(b, nullptr, [&](IRBuilderHost& host) -> const char* {
    PrimExpr d = DimOf(host, e, axis);
    return d ? host.Keep(ToString(d)) : nullptr;
  });
}

int TupleSize(rxt_ir_builder_t* b, rxt_ir_expr_t e) {
  return Guard(b, -1, [&](IRBuilderHost& host) {
    StructInfo s = SInfoOf(host, e);
    const auto* tuple = s ? s->As<TupleSINode>() : nullptr;
    return tuple ? static_cast<int>(tuple->fields.size()) : -1;
  });
}

const char* StructInfoText(rxt_ir_builder_t* b, rxt_ir_expr_t e) {
  return Guard<const char*>(b, nullptr, [&](IRBuilderHost& host) -> const char* {
    StructInfo s = SInfoOf(host, e);
    return s ? host.Keep(PrintStructInfo(s)) : nullptr;  // whole: a plugin may parse it
  });
}

int ConstantValue(rxt_ir_builder_t* b, rxt_ir_expr_t e, double* value) {
  return Guard(b, 0, [&](IRBuilderHost& host) {
    Expr expr = host.Unwrap(e);
    const ConstantNode* c = expr ? expr->As<ConstantNode>() : nullptr;
    if (c == nullptr || c->data.numel() != 1 || c->data.dtype() == DType::kBool) return 0;
    if (value != nullptr) *value = c->data.GetAsDouble(0);
    return 1;
  });
}

// ---- Whole expressions (exporters read a function's bindings with these).

int ExprKindOf(rxt_ir_builder_t* b, rxt_ir_expr_t e) {
  return Guard(b, static_cast<int>(RXT_IR_OTHER), [&](IRBuilderHost& host) -> int {
    Expr expr = host.Unwrap(e);
    if (expr == nullptr) return RXT_IR_OTHER;
    switch (expr->kind) {
      case ExprKind::kVar: return RXT_IR_VAR;
      case ExprKind::kConstant: return RXT_IR_CONSTANT;
      case ExprKind::kTuple: return RXT_IR_TUPLE;
      case ExprKind::kTupleGetItem: return RXT_IR_TUPLE_ITEM;
      case ExprKind::kCall: return OpCall(host, e) != nullptr ? RXT_IR_OP_CALL : RXT_IR_CALL;
      case ExprKind::kShapeExpr: return RXT_IR_SHAPE;
      case ExprKind::kPrimValue: return RXT_IR_PRIM_VALUE;
      case ExprKind::kStringImm: return RXT_IR_STRING;
      default: return RXT_IR_OTHER;
    }
  });
}

const char* VarName(rxt_ir_builder_t* b, rxt_ir_expr_t e) {
  return Guard<const char*>(b, nullptr, [&](IRBuilderHost& host) -> const char* {
    Expr expr = host.Unwrap(e);
    const auto* var = expr ? expr->As<VarNode>() : nullptr;
    return var ? var->name.c_str() : nullptr;  // the node is held by the host's arena
  });
}

rxt_code_t ConstantTensor(rxt_ir_builder_t* b, rxt_ir_expr_t e, DLTensor* out) {
  return Guard(b, RXT_INTERNAL, [&](IRBuilderHost& host) -> rxt_code_t {
    Expr expr = host.Unwrap(e);
    const auto* c = expr ? expr->As<ConstantNode>() : nullptr;
    if (c == nullptr) return RXT_NOT_FOUND;
    if (out == nullptr) return RXT_INVALID_ARGUMENT;
    const Tensor& data = c->data;
    *out = DLTensor{};
    out->data = const_cast<void*>(data.data());
    out->device = {kDLCPU, 0};
    out->ndim = static_cast<int32_t>(data.shape().size());
    out->dtype = ToDLDataType(data.dtype());
    out->shape = const_cast<int64_t*>(data.shape().data());
    return RXT_OK;
  });
}

int NumFields(rxt_ir_builder_t* b, rxt_ir_expr_t e) {
  return Guard(b, -1, [&](IRBuilderHost& host) {
    Expr expr = host.Unwrap(e);
    const auto* tuple = expr ? expr->As<TupleNode>() : nullptr;
    return tuple ? static_cast<int>(tuple->fields.size()) : -1;
  });
}

rxt_ir_expr_t Field(rxt_ir_builder_t* b, rxt_ir_expr_t e, int index) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) -> rxt_ir_expr_t {
    Expr expr = host.Unwrap(e);
    const auto* tuple = expr ? expr->As<TupleNode>() : nullptr;
    if (tuple == nullptr || index < 0 || index >= static_cast<int>(tuple->fields.size())) return nullptr;
    return host.Wrap(tuple->fields[index]);
  });
}

rxt_ir_expr_t ItemOf(rxt_ir_builder_t* b, rxt_ir_expr_t e, int* index) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) -> rxt_ir_expr_t {
    Expr expr = host.Unwrap(e);
    const auto* item = expr ? expr->As<TupleGetItemNode>() : nullptr;
    if (item == nullptr) return nullptr;
    if (index != nullptr) *index = item->index;
    return host.Wrap(item->tuple);
  });
}

/// The dims of a shape value: a shape expression's, or those a shape struct info knows.
const std::vector<PrimExpr>* ShapeValues(IRBuilderHost& host, rxt_ir_expr_t e) {
  Expr expr = host.Unwrap(e);
  if (expr == nullptr) return nullptr;
  if (const auto* shape = expr->As<ShapeExprNode>()) return &shape->values;
  const auto* sinfo = expr->struct_info ? expr->struct_info->As<ShapeSINode>() : nullptr;
  return sinfo != nullptr && sinfo->values ? &*sinfo->values : nullptr;
}

int ShapeNDim(rxt_ir_builder_t* b, rxt_ir_expr_t e) {
  return Guard(b, -1, [&](IRBuilderHost& host) {
    const std::vector<PrimExpr>* values = ShapeValues(host, e);
    return values ? static_cast<int>(values->size()) : -1;
  });
}

PrimExpr ShapeDimOf(IRBuilderHost& host, rxt_ir_expr_t e, int axis) {
  const std::vector<PrimExpr>* values = ShapeValues(host, e);
  if (values == nullptr || axis < 0 || axis >= static_cast<int>(values->size())) return nullptr;
  return (*values)[axis];
}

int ShapeDim(rxt_ir_builder_t* b, rxt_ir_expr_t e, int axis, int64_t* value) {
  return Guard(b, 0, [&](IRBuilderHost& host) {
    PrimExpr d = ShapeDimOf(host, e, axis);
    const auto* imm = d ? d->As<IntImmNode>() : nullptr;
    if (imm == nullptr) return 0;
    if (value != nullptr) *value = imm->value;
    return 1;
  });
}

const char* ShapeDimText(rxt_ir_builder_t* b, rxt_ir_expr_t e, int axis) {
  return Guard<const char*>(b, nullptr, [&](IRBuilderHost& host) -> const char* {
    PrimExpr d = ShapeDimOf(host, e, axis);
    return d ? host.Keep(ToString(d)) : nullptr;
  });
}

int PrimValue(rxt_ir_builder_t* b, rxt_ir_expr_t e, double* value) {
  return Guard(b, 0, [&](IRBuilderHost& host) {
    Expr expr = host.Unwrap(e);
    const auto* prim = expr ? expr->As<PrimValueNode>() : nullptr;
    if (prim == nullptr || prim->value == nullptr) return 0;
    double v = 0;
    if (const auto* i = prim->value->As<IntImmNode>()) {
      v = static_cast<double>(i->value);
    } else if (const auto* f = prim->value->As<FloatImmNode>()) {
      v = f->value;
    } else {
      return 0;
    }
    if (value != nullptr) *value = v;
    return 1;
  });
}

}  // namespace

void FillReadFunctions(rxt_ir_api_t& api) {
  api.op_name = &OpName;
  api.num_args = &NumArgs;
  api.arg = &Arg;
  api.attr_int = &AttrInt;
  api.attr_float = &AttrFloat;
  api.attr_bool = &AttrBool;
  api.attr_string = &AttrString;
  api.attr_ints = &AttrInts;
  api.attr_text = &AttrText;
  api.is_tensor = &IsTensor;
  api.ndim = &NDim;
  api.dtype = &DTypeOf;
  api.dim = &Dim;
  api.tuple_size = &TupleSize;
  api.struct_info_text = &StructInfoText;
  api.dim_text = &DimText;
  api.constant_value = &ConstantValue;
  api.expr_kind = &ExprKindOf;
  api.var_name = &VarName;
  api.constant_tensor = &ConstantTensor;
  api.num_fields = &NumFields;
  api.field = &Field;
  api.item_of = &ItemOf;
  api.shape_ndim = &ShapeNDim;
  api.shape_dim = &ShapeDim;
  api.shape_dim_text = &ShapeDimText;
  api.prim_value = &PrimValue;
}

}  // namespace rxt::ir_api
