#include "rxt/ir/builder.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "rxt/ir/op.h"

namespace rxt {
namespace {

// Leaves may appear directly as call arguments; anything else is bound to a variable first.
bool IsLeaf(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kVar:
    case ExprKind::kConstant:
    case ExprKind::kShapeExpr:
    case ExprKind::kPrimValue:
    case ExprKind::kStringImm:
    case ExprKind::kGlobalVar:
    case ExprKind::kExternFunc:
    case ExprKind::kOp:
      return true;
    case ExprKind::kTuple:
      for (const auto& f : e->As<TupleNode>()->fields) {
        if (!IsLeaf(f)) return false;
      }
      return true;
    default:
      return false;
  }
}

std::string Where(const Span& span) { return span.known() ? span.ToString() + ": " : std::string(); }

// Substitutes symbolic variables in struct info (used to instantiate a callee's signature).
using SymbolMap = std::map<const PrimVarNode*, PrimExpr>;

PrimExpr Substitute(const PrimExpr& e, const SymbolMap& map) {
  if (!e) return e;
  if (const auto* v = e->As<PrimVarNode>()) {
    auto it = map.find(v);
    return it == map.end() ? e : it->second;
  }
  if (const auto* b = e->As<BinaryNode>()) return MakeBinary(b->op, Substitute(b->a, map), Substitute(b->b, map));
  return e;  // other kinds do not appear in shapes
}

std::optional<std::vector<PrimExpr>> Substitute(const std::optional<std::vector<PrimExpr>>& dims,
                                                const SymbolMap& map) {
  if (!dims) return dims;
  std::vector<PrimExpr> out;
  for (const auto& d : *dims) out.push_back(Substitute(d, map));
  return out;
}

/// |done| maps the tuples already rewritten to their results: struct info shared as a DAG
/// stays a DAG (of the same size) instead of unfolding into a tree.
StructInfo Substitute(const StructInfo& s, const SymbolMap& map,
                      std::unordered_map<const StructInfoNode*, StructInfo>& done) {
  if (map.empty()) return s;
  switch (s->kind) {
    case StructInfoKind::kTensor: {
      const auto* t = s->As<TensorSINode>();
      return std::make_shared<TensorSINode>(t->dtype, t->ndim, Substitute(t->shape, map));
    }
    case StructInfoKind::kShape: {
      const auto* t = s->As<ShapeSINode>();
      return std::make_shared<ShapeSINode>(t->ndim, Substitute(t->values, map));
    }
    case StructInfoKind::kPrim: {
      const auto* t = s->As<PrimSINode>();
      return PrimSI(t->dtype, Substitute(t->value, map));
    }
    case StructInfoKind::kTuple: {
      if (auto it = done.find(s.get()); it != done.end()) return it->second;
      std::vector<StructInfo> fields;
      for (const auto& f : s->As<TupleSINode>()->fields) fields.push_back(Substitute(f, map, done));
      return done[s.get()] = TupleSI(std::move(fields));
    }
    default:
      return s;
  }
}

// Binds the callee's symbolic dims (bare variables in its parameter shapes) to the
// caller's dims, so that calling f(x: (n, 4)) with (8, 4) returns a result sized by 8.
void MatchSymbols(const StructInfo& param, const StructInfo& arg, SymbolMap* map,
                  std::unordered_set<const StructInfoNode*>& matched_tuples) {
  auto match_dims = [&](const std::optional<std::vector<PrimExpr>>& p, const std::optional<std::vector<PrimExpr>>& a) {
    if (!p || !a || p->size() != a->size()) return;
    for (size_t i = 0; i < p->size(); ++i) {
      if (const auto* v = (*p)[i]->As<PrimVarNode>()) map->emplace(v, (*a)[i]);
    }
  };
  if (param->kind != arg->kind) return;
  if (const auto* p = param->As<TensorSINode>()) match_dims(p->shape, arg->As<TensorSINode>()->shape);
  if (const auto* p = param->As<ShapeSINode>()) match_dims(p->values, arg->As<ShapeSINode>()->values);
  if (const auto* p = param->As<TupleSINode>()) {
    // The first match of a variable wins, so a tuple met again adds nothing.
    if (!matched_tuples.insert(param.get()).second) return;
    const auto* a = arg->As<TupleSINode>();
    for (size_t i = 0; i < p->fields.size() && i < a->fields.size(); ++i) {
      MatchSymbols(p->fields[i], a->fields[i], map, matched_tuples);
    }
  }
}

StructInfo InferCallToFunction(const CallNode& call, const GlobalVarNode& gv, const IRModule* module) {
  std::string where = Where(call.span);
  if (module == nullptr) Throw(ErrorCode::kInvalidArgument, where, "call to @", gv.name, " outside a module");
  if (module->FindKernel(gv.name)) {
    Throw(ErrorCode::kInvalidArgument, where, "@", gv.name, " is a kernel function: call it with call_kernel");
  }
  Function f = module->FindFunction(gv.name);
  if (!f) Throw(ErrorCode::kInvalidArgument, where, "call to unknown function @", gv.name);
  if (f->params.size() != call.args.size()) {
    Throw(ErrorCode::kInvalidArgument, where, "@", gv.name, " takes ", f->params.size(), " argument(s), got ",
          call.args.size());
  }
  SymbolMap symbols;
  std::unordered_set<const StructInfoNode*> matched_tuples;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const StructInfo& param = f->params[i]->struct_info;
    const StructInfo& arg = GetStructInfo(call.args[i]);
    if (!IsBaseOf(param, arg, /*assume_unknown_equal=*/true)) {
      Throw(ErrorCode::kInvalidArgument, where, "@", gv.name, ": argument ", i, " (%", f->params[i]->name,
            ") expects ", ToString(param), ", got ", ToString(arg));
    }
    MatchSymbols(param, arg, &symbols, matched_tuples);
  }
  std::unordered_map<const StructInfoNode*, StructInfo> substituted;
  return Substitute(f->ret_sinfo, symbols, substituted);
}

StructInfo InferCall(const CallNode& call, const IRModule* module) {
  if (const OpDef* op = AsOp(call.callee)) {
    size_t required = 0;
    for (const InputSpec& in : op->inputs()) required += in.optional ? 0 : 1;
    size_t count = call.args.size();
    if (!op->variadic() && (count < required || count > op->inputs().size())) {
      std::string names, expected = std::to_string(required);
      for (const auto& in : op->inputs()) names += (names.empty() ? "" : ", ") + in.name + (in.optional ? " (optional)" : "");
      if (required != op->inputs().size()) expected = StrCat(required, " to ", op->inputs().size());
      OpError(call, StrCat("expects ", expected, " argument(s) (", names, "), got ", count));
    }
    const auto* infer = op->Get<FInferStructInfo>();
    if (infer == nullptr) OpError(call, "has no struct-info inference");
    StructInfo result = (*infer)(call);
    RXT_CHECK(result != nullptr, "inference of ", op->name(), " returned null");
    return result;
  }
  if (const auto* gv = call.callee->As<GlobalVarNode>()) return InferCallToFunction(call, *gv, module);
  if (call.callee->As<ExternFuncNode>()) {
    if (call.sinfo_args.size() == 1) return call.sinfo_args[0];
    if (call.sinfo_args.empty()) return ObjectSI();
    return TupleSI(call.sinfo_args);
  }
  const StructInfo& callee_sinfo = GetStructInfo(call.callee);
  if (const auto* f = callee_sinfo->As<FuncSINode>()) return f->ret;
  Throw(ErrorCode::kInvalidArgument, Where(call.span), "callee is not callable: ", ToString(callee_sinfo));
}

}  // namespace

StructInfo InferStructInfo(const Expr& e, const IRModule* module) {
  RXT_CHECK(e != nullptr, "null expression");
  StructInfo result;
  switch (e->kind) {
    case ExprKind::kVar:
    case ExprKind::kConstant:
    case ExprKind::kShapeExpr:
    case ExprKind::kPrimValue:
    case ExprKind::kStringImm:
    case ExprKind::kExternFunc:
      result = GetStructInfo(e);
      break;
    case ExprKind::kOp:
      result = ObjectSI();
      break;
    case ExprKind::kGlobalVar: {
      Function f = module ? module->FindFunction(e->As<GlobalVarNode>()->name) : nullptr;
      result = f ? f->Signature() : ObjectSI();
      break;
    }
    case ExprKind::kTuple: {
      std::vector<StructInfo> fields;
      for (const auto& f : e->As<TupleNode>()->fields) fields.push_back(GetStructInfo(f));
      result = TupleSI(std::move(fields));
      break;
    }
    case ExprKind::kTupleGetItem: {
      const auto* item = e->As<TupleGetItemNode>();
      const StructInfo& tuple = GetStructInfo(item->tuple);
      if (tuple->kind == StructInfoKind::kObject) {
        result = ObjectSI();
        break;
      }
      const auto* t = tuple->As<TupleSINode>();
      if (t == nullptr) {
        Throw(ErrorCode::kInvalidArgument, Where(e->span), "indexing [", item->index, "] a value that is not a tuple: ",
              ToString(tuple));
      }
      if (item->index < 0 || item->index >= static_cast<int>(t->fields.size())) {
        Throw(ErrorCode::kInvalidArgument, Where(e->span), "tuple index ", item->index, " is out of range for ",
              ToString(tuple));
      }
      result = t->fields[item->index];
      break;
    }
    case ExprKind::kCall:
      result = InferCall(*e->As<CallNode>(), module);
      break;
    case ExprKind::kIf: {
      const auto* node = e->As<IfNode>();
      const StructInfo& cond = GetStructInfo(node->cond);
      const auto* t = cond->As<TensorSINode>();
      const auto* p = cond->As<PrimSINode>();
      bool ok = (t && t->dtype == DType::kBool && (t->ndim == 0 || t->ndim == -1)) || (p && p->dtype == DType::kBool);
      if (!ok) {
        Throw(ErrorCode::kInvalidArgument, Where(e->span), "if: condition must be a bool scalar, got ", ToString(cond));
      }
      result = Unify(GetStructInfo(node->then_branch->body), GetStructInfo(node->else_branch->body));
      break;
    }
  }
  e->struct_info = result;
  return result;
}

void BlockBuilder::BeginDataflowBlock() { blocks_.push_back(BindingBlock{{}, true}); }
void BlockBuilder::BeginBindingBlock() { blocks_.push_back(BindingBlock{{}, false}); }

BindingBlock BlockBuilder::EndBlock() {
  RXT_CHECK(!blocks_.empty(), "EndBlock without an open block");
  BindingBlock block = std::move(blocks_.back());
  blocks_.pop_back();
  return block;
}

bool BlockBuilder::InDataflowBlock() const { return !blocks_.empty() && blocks_.back().is_dataflow; }

Expr BlockBuilder::NormalizeArgument(const Expr& arg) {
  Expr normalized = Normalize(arg);
  if (IsLeaf(normalized)) return normalized;
  return Emit(normalized, "lv");
}

Expr BlockBuilder::Normalize(const Expr& e) {
  RXT_CHECK(e != nullptr, "null expression");
  switch (e->kind) {
    case ExprKind::kTuple: {
      const auto* t = e->As<TupleNode>();
      std::vector<Expr> fields;
      bool changed = false;
      for (const auto& f : t->fields) {
        fields.push_back(NormalizeArgument(f));
        changed |= fields.back() != f;
      }
      Expr out = changed ? MakeTuple(std::move(fields), e->span) : e;
      if (changed || !out->struct_info) InferStructInfo(out, module_);
      return out;
    }
    case ExprKind::kTupleGetItem: {
      const auto* item = e->As<TupleGetItemNode>();
      Expr tuple = NormalizeArgument(item->tuple);
      Expr out = tuple != item->tuple ? MakeTupleGetItem(tuple, item->index, e->span) : e;
      if (out != e || !out->struct_info) InferStructInfo(out, module_);
      return out;
    }
    case ExprKind::kCall: {
      const auto* call = e->As<CallNode>();
      std::vector<Expr> args;
      bool changed = false;
      for (const auto& a : call->args) {
        args.push_back(NormalizeArgument(a));
        changed |= args.back() != a;
      }
      Expr out = changed ? MakeCall(call->callee, std::move(args), call->attrs, call->sinfo_args, e->span) : e;
      if (changed || !out->struct_info) InferStructInfo(out, module_);
      return out;
    }
    case ExprKind::kIf: {
      const auto* node = e->As<IfNode>();
      Expr cond = NormalizeArgument(node->cond);
      Expr out = cond != node->cond ? MakeIf(cond, node->then_branch, node->else_branch, e->span) : e;
      if (out != e || !out->struct_info) InferStructInfo(out, module_);
      return out;
    }
    default:
      if (!e->struct_info) InferStructInfo(e, module_);
      return e;
  }
}

Var BlockBuilder::EmitImpl(const Expr& value, const std::string& name_hint, StructInfo annotation, bool as_output,
                           Span span) {
  RXT_CHECK(!blocks_.empty(), "emit outside a block");
  Expr normalized = Normalize(value);
  StructInfo inferred = GetStructInfo(normalized);
  StructInfo sinfo = inferred;
  if (annotation) {
    if (!IsBaseOf(annotation, inferred, /*assume_unknown_equal=*/true)) {
      Throw(ErrorCode::kInvalidArgument, Where(span), "type error: %", name_hint, " is annotated ",
            ToString(annotation), " but its value is ", ToString(inferred));
    }
    sinfo = annotation;
  }
  bool dataflow = InDataflowBlock() && !as_output;
  Var var = dataflow ? MakeDataflowVar(name_hint, sinfo, span) : MakeVar(name_hint, sinfo, span);
  blocks_.back().bindings.push_back(Binding{var, normalized, nullptr});
  return var;
}

Var BlockBuilder::Emit(const Expr& value, const std::string& name_hint, StructInfo annotation, Span span) {
  return EmitImpl(value, name_hint, std::move(annotation), false, std::move(span));
}

Var BlockBuilder::EmitOutput(const Expr& value, const std::string& name_hint, StructInfo annotation, Span span) {
  return EmitImpl(value, name_hint, std::move(annotation), true, std::move(span));
}

Var BlockBuilder::EmitMatchCast(const Expr& value, StructInfo sinfo, const std::string& name_hint, bool as_output,
                                Span span) {
  RXT_CHECK(!blocks_.empty(), "emit outside a block");
  RXT_CHECK(sinfo != nullptr, "match_cast without a struct info");
  Expr normalized = Normalize(value);
  const StructInfo& from = GetStructInfo(normalized);
  // A cast may refine (Tensor(ndim=2) -> Tensor((n, 4))) but never change kind or dtype.
  if (!IsBaseOf(from, sinfo, true) && !IsBaseOf(sinfo, from, true)) {
    Throw(ErrorCode::kInvalidArgument, Where(span), "match_cast: a value of ", ToString(from),
          " can never match ", ToString(sinfo));
  }
  bool dataflow = InDataflowBlock() && !as_output;
  Var var = dataflow ? MakeDataflowVar(name_hint, sinfo, span) : MakeVar(name_hint, sinfo, span);
  blocks_.back().bindings.push_back(Binding{var, normalized, sinfo});
  return var;
}

void BlockBuilder::AddBinding(Binding binding) {
  RXT_CHECK(!blocks_.empty(), "binding outside a block");
  RXT_CHECK(binding.var && binding.value && binding.value->struct_info, "binding is not normalized");
  blocks_.back().bindings.push_back(std::move(binding));
}

void BlockBuilder::EmitBinding(const Var& var, const Expr& value, Span span) {
  RXT_CHECK(!blocks_.empty(), "binding outside a block");
  Expr normalized = Normalize(value);
  const StructInfo& inferred = GetStructInfo(normalized);
  if (!IsBaseOf(GetStructInfo(var), inferred, /*assume_unknown_equal=*/true)) {
    Throw(ErrorCode::kInvalidArgument, Where(span), "type error: %", var->name, " is annotated ",
          ToString(GetStructInfo(var)), " but its value is ", ToString(inferred));
  }
  blocks_.back().bindings.push_back(Binding{var, normalized, nullptr});
}

SeqExpr MakeSeqFromBlocks(std::vector<BindingBlock> blocks, Expr body) {
  std::vector<BindingBlock> kept;
  for (auto& b : blocks) {
    if (!b.bindings.empty()) kept.push_back(std::move(b));
  }
  return MakeSeqExpr(std::move(kept), std::move(body));
}

}  // namespace rxt
