#include "function_inliner.h"

#include <unordered_map>
#include <unordered_set>

#include "rxt/ir/builder.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"

namespace rxt::training {
namespace {

/// Copies IR, defining a fresh variable wherever one is defined and replacing the seeded
/// variables (the callee's parameters) by their values.
class BodyCopier : public ExprMutator {
 public:
  BodyCopier(const IRModule* module, const PrimVarMap& symbols) : ExprMutator(module), symbols_(symbols) {}

  void Seed(const Var& var, const Expr& value) { var_remap_[var.get()] = value; }

  Var VisitVarDef(const Var& var) override {
    StructInfo sinfo = VisitStructInfo(var->struct_info);
    Var fresh = var->is_dataflow ? MakeDataflowVar(var->name, sinfo, var->span) : MakeVar(var->name, sinfo, var->span);
    var_remap_[var.get()] = fresh;
    return fresh;
  }

  PrimExpr VisitPrimExpr(const PrimExpr& e) override { return symbols_.empty() ? e : Substitute(e, symbols_); }

 private:
  const PrimVarMap& symbols_;
};

/// The value a variable is bound to in |blocks| (null if none or a match_cast).
Expr BoundValue(const std::vector<BindingBlock>& blocks, const Expr& var) {
  if (var->kind != ExprKind::kVar) return nullptr;
  for (const BindingBlock& block : blocks) {
    for (const Binding& b : block.bindings) {
      if (b.var.get() == var.get()) return b.is_match_cast() ? nullptr : b.value;
    }
  }
  return nullptr;
}

/// Every variable an expression uses (nested blocks included).
class UseCollector : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override { used.insert(var.get()); }
  std::unordered_set<const VarNode*> used;
};

/// Redefines the given variables (and rewrites their uses).
class VarReplacer : public ExprMutator {
 public:
  VarReplacer(const IRModule* module, const std::unordered_map<const VarNode*, Var>& replacements)
      : ExprMutator(module), replacements_(replacements) {
    for (const auto& [old, fresh] : replacements) var_remap_[old] = fresh;
  }
  Var VisitVarDef(const Var& var) override {
    auto it = replacements_.find(var.get());
    return it != replacements_.end() ? it->second : ExprMutator::VisitVarDef(var);
  }

 private:
  const std::unordered_map<const VarNode*, Var>& replacements_;
};

/// The symbolic variables a function names anywhere (signature and body).
class SymbolCollector : public ExprVisitor {
 public:
  void VisitPrimExpr(const PrimExpr& e) override { prim_vars_.VisitPrimExpr(e); }
  std::vector<PrimVar> symbols;

 private:
  struct PrimVarCollector : PrimExprVisitor {
    explicit PrimVarCollector(std::vector<PrimVar>* out) : out(out) {}
    void VisitPrimVar(const PrimVar& var) override {
      for (const PrimVar& known : *out) {
        if (known == var) return;
      }
      out->push_back(var);
    }
    std::vector<PrimVar>* out;
  };
  PrimVarCollector prim_vars_{&symbols};
};

/// Replaces symbolic variables everywhere in a function.
class SymbolReplacer : public ExprMutator {
 public:
  SymbolReplacer(const IRModule* module, PrimVarMap map) : ExprMutator(module), map_(std::move(map)) {}
  PrimExpr VisitPrimExpr(const PrimExpr& e) override { return Substitute(e, map_); }

 private:
  PrimVarMap map_;
};

/// |f| with symbolic variables of its own: a function naming another's (its callee's batch n)
/// would not survive printing and parsing, where each function defines its own.
Function WithOwnSymbols(const Function& f, const IRModule* module) {
  SymbolCollector collector;
  collector.VisitFunction(*f);
  if (collector.symbols.empty()) return f;
  PrimVarMap map;
  for (const PrimVar& s : collector.symbols) map[s.get()] = MakePrimVar(s->name, s->dtype);
  return SymbolReplacer(module, std::move(map)).VisitFunction(f);
}

}  // namespace

InlinedBody InlineBody(const Function& callee, const std::vector<Expr>& args, const IRModule* module,
                       const PrimVarMap& symbols) {
  RXT_CHECK(args.size() == callee->params.size(), "one argument per parameter when inlining");
  BodyCopier copier(module, symbols);
  for (size_t i = 0; i < args.size(); ++i) copier.Seed(callee->params[i], args[i]);
  SeqExpr copy = copier.VisitSeqExpr(callee->body);
  return InlinedBody{copy->blocks, copy->body};
}

void MatchSymbols(const StructInfo& declared, const StructInfo& actual, PrimVarMap& symbols) {
  const auto* d = declared->As<TensorSINode>();
  const auto* a = actual->As<TensorSINode>();
  if (d == nullptr || a == nullptr || !d->shape || !a->shape || d->shape->size() != a->shape->size()) return;
  for (size_t i = 0; i < d->shape->size(); ++i) {
    if (const auto* var = (*d->shape)[i]->As<PrimVarNode>()) symbols.emplace(var, (*a->shape)[i]);
  }
}

void AppendBlocks(std::vector<BindingBlock>& into, const std::vector<BindingBlock>& blocks) {
  for (const BindingBlock& block : blocks) {
    if (block.bindings.empty()) continue;
    if (!into.empty() && into.back().is_dataflow && block.is_dataflow) {
      into.back().bindings.insert(into.back().bindings.end(), block.bindings.begin(), block.bindings.end());
    } else {
      into.push_back(block);
    }
  }
}

Expr TupleField(std::vector<BindingBlock>& blocks, const Expr& value, int index, const std::string& name) {
  Expr tuple = value;
  if (Expr bound = BoundValue(blocks, value); bound != nullptr && bound->As<TupleNode>() != nullptr) tuple = bound;
  if (const auto* literal = tuple->As<TupleNode>()) return literal->fields.at(index);
  if (blocks.empty()) blocks.push_back(BindingBlock{{}, /*is_dataflow=*/true});
  Expr item = MakeTupleGetItem(value, index);
  InferStructInfo(item, nullptr);
  BindingBlock& block = blocks.back();
  Var var = block.is_dataflow ? MakeDataflowVar(name, item->struct_info) : MakeVar(name, item->struct_info);
  block.bindings.push_back(Binding{var, item, nullptr});
  return var;
}

std::vector<Expr> Fields(std::vector<BindingBlock>& blocks, const Expr& value, const std::string& name) {
  const auto* tuple = GetStructInfo(value)->As<TupleSINode>();
  if (tuple == nullptr) return {value};
  std::vector<Expr> fields;
  for (size_t i = 0; i < tuple->fields.size(); ++i) {
    fields.push_back(TupleField(blocks, value, static_cast<int>(i), name + std::to_string(i)));
  }
  return fields;
}

Var FreshParam(const Var& var, const std::string& name) {
  return MakeVar(name.empty() ? var->name : name, var->struct_info, var->span);
}

}  // namespace rxt::training

namespace rxt::training {

Expr BindResult(std::vector<BindingBlock>& blocks, const Expr& value, const std::string& name) {
  if (const auto* var = value->As<VarNode>(); var != nullptr && !var->is_dataflow) return value;
  if (value->kind == ExprKind::kConstant) return value;
  if (blocks.empty()) blocks.push_back(BindingBlock{{}, /*is_dataflow=*/true});
  Var result = MakeVar(name, GetStructInfo(value));
  blocks.back().bindings.push_back(Binding{result, value, nullptr});
  return result;
}

Var BindLocal(std::vector<BindingBlock>& blocks, const Expr& value, const std::string& name) {
  if (blocks.empty()) blocks.push_back(BindingBlock{{}, /*is_dataflow=*/true});
  Var var = blocks.back().is_dataflow ? MakeDataflowVar(name, GetStructInfo(value)) : MakeVar(name, GetStructInfo(value));
  blocks.back().bindings.push_back(Binding{var, value, nullptr});
  return var;
}

Function MakeInlinedFunction(std::vector<Var> params, std::vector<BindingBlock> blocks, Expr result, bool is_pure,
                             const IRModule* module) {
  // Where each top-level variable is defined, and which are used outside that block.
  std::unordered_map<const VarNode*, size_t> defined_in;
  for (size_t i = 0; i < blocks.size(); ++i) {
    for (const Binding& b : blocks[i].bindings) defined_in[b.var.get()] = i;
  }
  std::unordered_set<const VarNode*> escaping;
  for (size_t i = 0; i < blocks.size(); ++i) {
    for (const Binding& b : blocks[i].bindings) {
      UseCollector uses;
      uses.VisitExpr(b.value);
      for (const VarNode* v : uses.used) {
        auto it = defined_in.find(v);
        if (it != defined_in.end() && it->second != i) escaping.insert(v);
      }
    }
  }
  UseCollector result_uses;
  result_uses.VisitExpr(result);
  escaping.insert(result_uses.used.begin(), result_uses.used.end());

  std::unordered_map<const VarNode*, Var> narrowed;
  for (const BindingBlock& block : blocks) {
    if (!block.is_dataflow) continue;
    for (const Binding& b : block.bindings) {
      if (!b.var->is_dataflow && !escaping.count(b.var.get())) {
        narrowed[b.var.get()] = MakeDataflowVar(b.var->name, b.var->struct_info, b.var->span);
      }
    }
  }
  SeqExpr body = MakeSeqFromBlocks(std::move(blocks), result);
  if (!narrowed.empty()) body = VarReplacer(module, narrowed).VisitSeqExpr(body);
  StructInfo ret = GetStructInfo(body->body);
  return WithOwnSymbols(MakeFunction(std::move(params), std::move(body), std::move(ret), {}, is_pure), module);
}

Expr MakeTupleOf(std::vector<Expr> fields) {
  Expr tuple = MakeTuple(std::move(fields));
  InferStructInfo(tuple, nullptr);
  return tuple;
}

}  // namespace rxt::training
