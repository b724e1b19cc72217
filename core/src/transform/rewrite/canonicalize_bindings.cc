/// CanonicalizeBindings: a variable bound to an alias of another variable is replaced by
/// that variable everywhere, and its binding is dropped. Aliases are
///   %y = %x                              (a variable)
///   %y = %t[i]  where %t = (.., %x, ..)  (a field of a tuple literal)
///   %y = match_cast(%x, S)               where %x is already known to be S
/// One case needs care: a dataflow block's output bound to a dataflow variable
/// (`%lv = f(..); %gv = %lv`, then %gv used after the block) cannot become %lv outside the
/// block; there, %lv's own binding binds %gv instead (`%gv = f(..)`) and %lv's uses inside
/// the block become %gv. Bindings that become unused (e.g. the tuple) are left to
/// DeadCodeElimination.
#include <unordered_map>
#include <unordered_set>

#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

/// Where every variable of a function is bound, and what it aliases.
class AliasAnalysis : public ExprVisitor {
 public:
  explicit AliasAnalysis(const FunctionNode& function) { VisitFunction(function); }

  void VisitBindingBlock(const BindingBlock& block) override {
    for (const Binding& binding : block.bindings) {
      bindings_[binding.var.get()] = &binding;
      blocks_[binding.var.get()] = &block;
    }
    ExprVisitor::VisitBindingBlock(block);
  }

  /// The variable |binding| merely aliases, or null.
  Var AliasSource(const Binding& binding) const {
    const Expr& value = binding.value;
    if (binding.is_match_cast()) {
      bool refines_nothing =
          value->kind == ExprKind::kVar && value->struct_info && IsBaseOf(binding.match_sinfo, value->struct_info);
      return refines_nothing ? std::static_pointer_cast<const VarNode>(value) : nullptr;
    }
    if (value->kind == ExprKind::kVar) return std::static_pointer_cast<const VarNode>(value);
    if (auto* item = value->As<TupleGetItemNode>(); item && item->tuple->kind == ExprKind::kVar) {
      Var tuple = Root(std::static_pointer_cast<const VarNode>(item->tuple));
      const Binding* tuple_binding = BindingOf(tuple.get());
      auto* literal = tuple_binding ? tuple_binding->value->As<TupleNode>() : nullptr;
      if (literal && !tuple_binding->is_match_cast() && item->index >= 0 &&
          item->index < static_cast<int>(literal->fields.size()) &&
          literal->fields[item->index]->kind == ExprKind::kVar) {
        return std::static_pointer_cast<const VarNode>(literal->fields[item->index]);
      }
    }
    return nullptr;
  }

  /// The variable at the end of |var|'s alias chain (|var| itself if it aliases nothing).
  Var Root(Var var) const {
    for (size_t steps = 0; steps <= bindings_.size(); ++steps) {
      const Binding* binding = BindingOf(var.get());
      Var source = binding ? AliasSource(*binding) : nullptr;
      if (!source) return var;
      var = source;
    }
    return var;  // a cycle: ill-formed input, leave it
  }

  const Binding* BindingOf(const VarNode* var) const {
    auto it = bindings_.find(var);
    return it == bindings_.end() ? nullptr : it->second;
  }
  const BindingBlock* BlockOf(const VarNode* var) const {
    auto it = blocks_.find(var);
    return it == blocks_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<const VarNode*, const Binding*> bindings_;
  std::unordered_map<const VarNode*, const BindingBlock*> blocks_;
};

class BindingCanonicalizer : public ExprMutator {
 public:
  BindingCanonicalizer(const IRModule& module, const FunctionNode& function)
      : ExprMutator(&module), aliases_(function) {}

  SeqExpr VisitSeqExpr(const SeqExpr& seq) override {
    PlanOutputRenames(*seq);
    return ExprMutator::VisitSeqExpr(seq);
  }

  void VisitBinding(const Binding& binding) override {
    if (absorbed_outputs_.count(binding.var.get())) return;  // bound where its source was
    if (auto it = renamed_.find(binding.var.get()); it != renamed_.end()) { return EmitRenamed(binding, it->second); }
    if (Var source = aliases_.AliasSource(binding)) {
      Expr target = VisitExpr(source);
      bool target_is_dataflow = target->kind == ExprKind::kVar && target->As<VarNode>()->is_dataflow;
      if (binding.var->is_dataflow || !target_is_dataflow) {
        var_remap_[binding.var.get()] = target;
        return;
      }
    }
    ExprMutator::VisitBinding(binding);
  }

 private:
  /// In each dataflow block of |seq|: `%gv = <alias of %lv>` with %lv a dataflow variable
  /// bound earlier in the same block (and as precisely typed) => bind %gv in %lv's place.
  void PlanOutputRenames(const SeqExprNode& seq) {
    for (const BindingBlock& block : seq.blocks) {
      if (!block.is_dataflow) continue;
      for (const Binding& binding : block.bindings) {
        if (binding.var->is_dataflow) continue;
        Var source = aliases_.AliasSource(binding);
        if (!source) continue;
        Var root = aliases_.Root(source);
        if (!root->is_dataflow || aliases_.BlockOf(root.get()) != &block || renamed_.count(root.get())) continue;
        const StructInfo& output = binding.var->struct_info;
        if (!output || !root->struct_info || !IsBaseOf(root->struct_info, output)) continue;
        renamed_[root.get()] = binding.var;
        absorbed_outputs_.insert(binding.var.get());
      }
    }
  }

  void EmitRenamed(const Binding& binding, Var output) {
    Expr value = VisitExpr(binding.value);
    StructInfo match = binding.is_match_cast() ? VisitStructInfo(binding.match_sinfo) : nullptr;
    const StructInfo& produced = match ? match : GetStructInfo(value);
    if (!IsBaseOf(output->struct_info, produced)) {
      Var retyped = CopyVarWithStructInfo(output, produced);
      var_remap_[output.get()] = retyped;
      output = retyped;
    }
    var_remap_[binding.var.get()] = output;
    builder_.AddBinding(Binding{output, value, match});
  }

  AliasAnalysis aliases_;
  std::unordered_map<const VarNode*, Var> renamed_;  // dataflow variable -> the output bound in its place
  std::unordered_set<const VarNode*> absorbed_outputs_;
};

IRModule CanonicalizeModuleBindings(IRModule module) {
  const IRModule input = module;
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.function) continue;
    Function rewritten = BindingCanonicalizer(module, *entry.function).VisitFunction(entry.function);
    if (rewritten != entry.function) module.Add(entry.name, rewritten);
  }
  return module;
}

}  // namespace

Pass CanonicalizeBindings() { return CreateModulePass(CanonicalizeModuleBindings, "CanonicalizeBindings", 1); }

}  // namespace rxt
