// The backward pass (adjoint_emitter.h).
#include "adjoint_emitter.h"

#include "fresh_copy.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/op.h"
#include "rxt/ir/op.h"

namespace rxt::gradient {
namespace {

std::vector<const Binding*> Flatten(const SeqExprNode& seq) {
  std::vector<const Binding*> out;
  for (const BindingBlock& block : seq.blocks) {
    for (const Binding& b : block.bindings) out.push_back(&b);
  }
  return out;
}

Attrs DTypeAttr(DType dtype) {
  Attrs attrs;
  attrs.Set("dtype", AttrValue(dtype));
  return attrs;
}

}  // namespace

AdjointEmitter::AdjointEmitter(BlockBuilder& builder, EmitterSetup setup, std::vector<BindingBlock>* finished)
    : builder_(builder), setup_(std::move(setup)), finished_(finished), adjoint_scopes_(1), primal_scopes_(1) {}

// ---- Emitting

Var AdjointEmitter::Bind(const Expr& value, const std::string& name_hint) {
  return setup_.bind_outputs ? builder_.EmitOutput(value, name_hint) : builder_.Emit(value, name_hint);
}

Var AdjointEmitter::EmitIf(const Expr& value, const std::string& name_hint) {
  if (!builder_.InDataflowBlock()) return builder_.Emit(value, name_hint);
  // An If stays out of dataflow blocks: close the current one, bind it alone, open a new one.
  RXT_CHECK(finished_ != nullptr, "an If in the backward pass needs a multi-block adjoint function");
  finished_->push_back(builder_.EndBlock());
  builder_.BeginBindingBlock();
  Var var = builder_.Emit(value, name_hint);
  finished_->push_back(builder_.EndBlock());
  builder_.BeginDataflowBlock();
  return var;
}

Expr AdjointEmitter::Ones(DType dtype) {
  return Bind(MakeOpCall("ones", {MakeShapeExpr({})}, DTypeAttr(dtype)), "ones");
}

// ---- Forward values

Expr AdjointEmitter::Primal(const Var& var) {
  for (auto scope = primal_scopes_.rbegin(); scope != primal_scopes_.rend(); ++scope) {
    if (auto it = scope->find(var.get()); it != scope->end()) return it->second;
  }
  auto it = setup_.recompute.find(var.get());
  if (it == setup_.recompute.end()) return var;
  Expr value = Recompute(*it->second);
  primal_scopes_.back()[var.get()] = value;
  return value;
}

Expr AdjointEmitter::SubstituteLeaf(const Expr& e) {
  if (e->kind == ExprKind::kVar) return Primal(std::static_pointer_cast<const VarNode>(e));
  if (const auto* tuple = e->As<TupleNode>()) {
    std::vector<Expr> fields;
    bool changed = false;
    for (const Expr& f : tuple->fields) {
      fields.push_back(SubstituteLeaf(f));
      changed |= fields.back() != f;
    }
    return changed ? builder_.Normalize(MakeTuple(std::move(fields))) : e;
  }
  return e;
}

Expr AdjointEmitter::SubstituteCall(const Expr& call) {
  const auto* node = call->As<CallNode>();
  std::vector<Expr> args;
  bool changed = false;
  for (const Expr& a : node->args) {
    args.push_back(SubstituteLeaf(a));
    changed |= args.back() != a;
  }
  if (!changed) return call;
  return builder_.Normalize(MakeCall(node->callee, std::move(args), node->attrs, node->sinfo_args, node->span));
}

Expr AdjointEmitter::Recompute(const Binding& b) {
  const std::string& name = b.var->name;
  if (b.is_match_cast()) {
    return builder_.EmitMatchCast(SubstituteLeaf(b.value), b.match_sinfo, name, setup_.bind_outputs);
  }
  switch (b.value->kind) {
    case ExprKind::kVar:
    case ExprKind::kTuple:
      return SubstituteLeaf(b.value);
    case ExprKind::kTupleGetItem: {
      const auto* item = b.value->As<TupleGetItemNode>();
      Expr tuple = SubstituteLeaf(item->tuple);
      if (const auto* literal = tuple->As<TupleNode>()) return literal->fields[item->index];
      return Bind(MakeTupleGetItem(tuple, item->index), name);
    }
    case ExprKind::kCall:
      return Bind(SubstituteCall(b.value), name);
    case ExprKind::kIf: {
      std::unordered_map<const VarNode*, Expr> values;
      for (const Var& v : FreeVars(b.value)) values[v.get()] = Primal(v);
      return EmitIf(CopyWithFreshVars(b.value, values, setup_.module), name);
    }
    default:
      return b.value;  // constants, shapes, prim values: leaves
  }
}

// ---- Adjoint values

Adjoint AdjointEmitter::FieldOf(const Adjoint& a, int index) {
  if (a.value) {
    if (const auto* literal = a.value->As<TupleNode>()) return Adjoint{literal->fields[index], {}};
    return Adjoint{Bind(MakeTupleGetItem(a.value, index), "adjoint_item"), {}};
  }
  if (index < static_cast<int>(a.fields.size())) return a.fields[index];
  return Adjoint{};
}

Adjoint AdjointEmitter::Sum(const Adjoint& a, const Adjoint& b, const StructInfo& sinfo, const std::string& name) {
  if (a.IsZero()) return b;
  if (b.IsZero()) return a;
  if (const auto* tuple = sinfo->As<TupleSINode>()) {
    Adjoint sum;
    for (size_t i = 0; i < tuple->fields.size(); ++i) {
      sum.fields.push_back(Sum(FieldOf(a, static_cast<int>(i)), FieldOf(b, static_cast<int>(i)), tuple->fields[i], name));
    }
    return sum;
  }
  return Adjoint{Bind(MakeOpCall("add", {a.value, b.value}), name), {}};
}

Expr AdjointEmitter::Zeros(const StructInfo& sinfo, const std::function<Expr()>& primal) {
  const auto* tensor = sinfo->As<TensorSINode>();
  if (tensor == nullptr) {
    Throw(ErrorCode::kInvalidArgument, "Gradient: ", setup_.function, ": cannot make a zero adjoint for a value of ",
          ToString(sinfo));
  }
  if (tensor->shape && tensor->dtype != DType::kUnknown) {
    return Bind(MakeOpCall("zeros", {MakeShapeExpr(*tensor->shape)}, DTypeAttr(tensor->dtype)), "zeros");
  }
  return Bind(MakeOpCall("zeros_like", {primal()}), "zeros");
}

Expr AdjointEmitter::Materialize(const Adjoint& a, const StructInfo& sinfo, const std::function<Expr()>& primal) {
  if (a.value) return a.value;
  if (const auto* tuple = sinfo->As<TupleSINode>()) {
    std::vector<Expr> fields;
    for (size_t i = 0; i < tuple->fields.size(); ++i) {
      int index = static_cast<int>(i);
      auto field_primal = [&, index]() -> Expr {
        Expr whole = primal();
        if (const auto* literal = whole->As<TupleNode>()) return literal->fields[index];
        return Bind(MakeTupleGetItem(whole, index), "item");
      };
      fields.push_back(Materialize(FieldOf(a, index), tuple->fields[i], field_primal));
    }
    return builder_.Normalize(MakeTuple(std::move(fields)));
  }
  return Zeros(sinfo, primal);
}

void AdjointEmitter::AddAdjoint(const Var& var, Adjoint adjoint) {
  if (adjoint.IsZero()) return;
  Adjoint& slot = adjoint_scopes_.back()[var.get()];
  const VarNode* before = slot.value ? slot.value->As<VarNode>() : nullptr;
  slot = Sum(slot, adjoint, var->struct_info, var->name + "_adjoint");
  const VarNode* after = slot.value ? slot.value->As<VarNode>() : nullptr;
  // The name goes to the whole adjoint; a partial sum it replaced gives its name back.
  if (before != nullptr && before != after && named_for_[before] == var.get()) names_.erase(before);
  if (after != nullptr && names_.emplace(after, var->name + "_adjoint").second) named_for_[after] = var.get();
}

Expr AdjointEmitter::AdjointOf(const Var& var) {
  Adjoint a = adjoint_scopes_.back()[var.get()];
  Expr value = Materialize(a, var->struct_info, [&] { return Primal(var); });
  if (const auto* made = a.IsZero() ? value->As<VarNode>() : nullptr) names_.emplace(made, var->name + "_adjoint");
  return value;
}

void AdjointEmitter::Distribute(const Expr& target, const Adjoint& adjoint) {
  if (adjoint.IsZero()) return;
  if (target->kind == ExprKind::kVar) {
    Var var = std::static_pointer_cast<const VarNode>(target);
    if (IsRelevant(var.get())) AddAdjoint(var, adjoint);
    return;
  }
  if (const auto* tuple = target->As<TupleNode>()) {
    for (size_t i = 0; i < tuple->fields.size(); ++i) Distribute(tuple->fields[i], FieldOf(adjoint, static_cast<int>(i)));
  }
  // Constants, shapes, prim values: no adjoint.
}

// ---- The backward pass

void AdjointEmitter::Backprop(const std::vector<const Binding*>& bindings) {
  for (auto it = bindings.rbegin(); it != bindings.rend(); ++it) {
    const Binding& b = **it;
    if (!IsRelevant(b.var.get())) continue;
    auto slot = adjoint_scopes_.back().find(b.var.get());
    if (slot == adjoint_scopes_.back().end() || slot->second.IsZero()) continue;
    BackpropBinding(b, slot->second);
  }
}

void AdjointEmitter::BackpropBinding(const Binding& b, const Adjoint& adjoint) {
  if (b.is_match_cast()) {
    Distribute(b.value, adjoint);
    return;
  }
  switch (b.value->kind) {
    case ExprKind::kVar:
    case ExprKind::kTuple:
      Distribute(b.value, adjoint);
      return;
    case ExprKind::kTupleGetItem: {
      const auto* item = b.value->As<TupleGetItemNode>();
      if (const auto* literal = item->tuple->As<TupleNode>()) {
        Distribute(literal->fields[item->index], adjoint);
        return;
      }
      const auto* tuple = GetStructInfo(item->tuple)->As<TupleSINode>();
      if (tuple == nullptr) return;  // an Object: nothing to give an adjoint to
      Adjoint partial;
      partial.fields.resize(tuple->fields.size());
      partial.fields[item->index] = adjoint;
      Distribute(item->tuple, partial);
      return;
    }
    case ExprKind::kCall:
      BackpropCall(b, *b.value->As<CallNode>(), adjoint);
      return;
    case ExprKind::kIf:
      BackpropIf(b, *b.value->As<IfNode>(), adjoint);
      return;
    default:
      return;  // constants and other leaves take no adjoint
  }
}

void AdjointEmitter::BackpropCall(const Binding& b, const CallNode& call, const Adjoint& adjoint) {
  const OpDef* op = AsOp(call.callee);
  RXT_CHECK(op != nullptr, "FindMissingRules reports calls of functions");
  if (IsCheckpointStart(b.value) || IsCheckpointEnd(b.value)) {  // identities
    Distribute(call.args[0], adjoint);
    return;
  }
  const FGradient& rule = setup_.rules->at(op->name());
  Expr call_value = SubstituteCall(b.value);
  Expr output = Primal(b.var);
  Expr output_grad = Materialize(adjoint, b.var->struct_info, [&] { return output; });
  std::vector<Expr> grads;
  try {
    grads = rule.emit(builder_, call_value, output, output_grad, setup_.bind_outputs);
  } catch (const Error& e) {
    Throw(e.code(), "Gradient: ", setup_.function, ": at %", b.var->name, " = ", op->name(), "(...): ", e.what());
  }
  const std::vector<Expr>& args = IRCallArgs(call);
  for (size_t i = 0; i < args.size() && i < grads.size(); ++i) {
    if (grads[i]) Distribute(args[i], Adjoint{grads[i], {}});
  }
}

void AdjointEmitter::BackpropIf(const Binding& b, const IfNode& node, const Adjoint& adjoint) {
  // The outer variables the If reads that need an adjoint; each branch yields one per variable.
  std::vector<Var> wanted;
  for (const Var& v : FreeVars(b.value)) {
    if (IsRelevant(v.get())) wanted.push_back(v);
  }
  if (wanted.empty()) return;
  Expr result_grad = Materialize(adjoint, b.var->struct_info, [&] { return Primal(b.var); });
  Expr cond = SubstituteLeaf(node.cond);
  SeqExpr branches[2];
  const SeqExpr* forward[2] = {&node.then_branch, &node.else_branch};
  for (int k = 0; k < 2; ++k) {
    const SeqExprNode& seq = **forward[k];
    builder_.BeginBindingBlock();
    primal_scopes_.emplace_back();
    adjoint_scopes_.emplace_back();
    Distribute(seq.body, Adjoint{result_grad, {}});
    Backprop(Flatten(seq));
    std::vector<Expr> yields;
    for (const Var& v : wanted) yields.push_back(AdjointOf(v));
    Expr yield = builder_.Normalize(MakeTuple(std::move(yields)));
    std::vector<BindingBlock> blocks = {builder_.EndBlock()};
    adjoint_scopes_.pop_back();
    primal_scopes_.pop_back();
    PruneUnused(blocks, 0, 0, yield);  // recomputed values no rule read
    branches[k] = MakeSeqFromBlocks(std::move(blocks), yield);
  }
  Var grads = EmitIf(MakeIf(cond, branches[0], branches[1]), b.var->name + "_branch_adjoints");
  for (size_t i = 0; i < wanted.size(); ++i) {
    AddAdjoint(wanted[i], Adjoint{Bind(MakeTupleGetItem(grads, static_cast<int>(i)), "adjoint_item"), {}});
  }
}

}  // namespace rxt::gradient
