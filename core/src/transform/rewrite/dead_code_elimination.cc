/// DeadCodeElimination: removes bindings whose variable is never used and whose value has no
/// side effects (see purity.h), including those only removed bindings used (one sweep from
/// the end: removing one binding can leave the bindings it used unused), then drops the
/// blocks left empty. Functions are kept,
/// even unused ones. A match_cast that defines new symbolic dims stays: later struct info may
/// name them. With the option DeadCodeElimination.remove_unused_kernels, kernels that no
/// Relax function names (call_kernel or otherwise) are removed as well.
#include <unordered_map>
#include <unordered_set>

#include "transform/analysis/purity.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

/// Counts the uses of every variable in a function.
class UseCounter : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override { ++uses[var.get()]; }
  std::unordered_map<const VarNode*, int> uses;
};

/// The symbolic variables named in struct info (e.g. of a function's parameters, which
/// define them).
class SymbolCollector : public ExprVisitor {
 public:
  void VisitPrimExpr(const PrimExpr& e) override { prim_vars_.VisitPrimExpr(e); }
  std::unordered_set<const PrimVarNode*> symbols;

 private:
  struct PrimVarCollector : PrimExprVisitor {
    explicit PrimVarCollector(std::unordered_set<const PrimVarNode*>* out) : out(out) {}
    void VisitPrimVar(const PrimVar& var) override { out->insert(var.get()); }
    std::unordered_set<const PrimVarNode*>* out;
  };
  PrimVarCollector prim_vars_{&symbols};
};

/// Whether every symbolic variable of |sinfo| is in |known|.
bool NamesOnlyKnownSymbols(const StructInfo& sinfo, const std::unordered_set<const PrimVarNode*>& known) {
  SymbolCollector collector;
  collector.VisitStructInfo(sinfo);
  for (const PrimVarNode* s : collector.symbols) {
    if (!known.count(s)) return false;
  }
  return true;
}

/// Finds the bindings that go, in one sweep from the last binding back: a binding goes when
/// nothing left uses its variable and it is removable; then what its value used is used once
/// less. Uses follow definitions, so this finds what removing unused bindings until none is
/// left would, in time linear in the function (not once per link of a dead chain).
class DeadBindingFinder {
 public:
  DeadBindingFinder(const IRModule& module, std::unordered_map<const VarNode*, int> uses,
                    const std::unordered_set<const PrimVarNode*>& signature_symbols)
      : module_(module), uses_(std::move(uses)), signature_symbols_(signature_symbols) {}

  void Sweep(const SeqExprNode& seq) {
    for (auto block = seq.blocks.rbegin(); block != seq.blocks.rend(); ++block) {
      for (auto binding = block->bindings.rbegin(); binding != block->bindings.rend(); ++binding) {
        if (IsRemovable(*binding)) {
          dead.insert(binding->var.get());
          UseCounter counter;
          counter.VisitExpr(binding->value);
          for (const auto& [var, count] : counter.uses) {
            if ((uses_[var] -= count) <= 0) uses_.erase(var);
          }
        } else if (const auto* branch = binding->value->As<IfNode>()) {
          Sweep(*branch->then_branch);  // later than the bindings before the If
          Sweep(*branch->else_branch);
        }
      }
    }
  }

  std::unordered_set<const VarNode*> dead;

 private:
  bool IsRemovable(const Binding& binding) const {
    if (uses_.count(binding.var.get())) return false;
    if (binding.is_match_cast() && !NamesOnlyKnownSymbols(binding.match_sinfo, signature_symbols_)) return false;
    return IsPure(binding.value, module_);
  }

  const IRModule& module_;
  std::unordered_map<const VarNode*, int> uses_;
  const std::unordered_set<const PrimVarNode*>& signature_symbols_;
};

class DeadBindingRemover : public ExprMutator {
 public:
  DeadBindingRemover(const IRModule& module, const std::unordered_set<const VarNode*>& dead)
      : ExprMutator(&module), dead_(dead) {}

  void VisitBinding(const Binding& binding) override {
    if (dead_.count(binding.var.get())) return;
    ExprMutator::VisitBinding(binding);
  }

 private:
  const std::unordered_set<const VarNode*>& dead_;
};

Function EliminateDeadBindings(const Function& function, const IRModule& module) {
  SymbolCollector signature;
  for (const Var& param : function->params) signature.VisitStructInfo(param->struct_info);
  UseCounter counter;
  counter.VisitFunction(*function);
  DeadBindingFinder finder(module, std::move(counter.uses), signature.symbols);
  finder.Sweep(*function->body);
  return DeadBindingRemover(module, finder.dead).VisitFunction(function);  // may differ: empty blocks dropped
}

/// Names of the module entries that some Relax function refers to (@name).
class GlobalRefCollector : public ExprVisitor {
 public:
  void VisitGlobalVar(const GlobalVarNode& node) override { names.insert(node.name); }
  std::unordered_set<std::string> names;
};

IRModule EliminateDeadCode(IRModule module, const PassContext& context) {
  const IRModule input = module;
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.function) continue;
    Function rewritten = EliminateDeadBindings(entry.function, module);
    if (rewritten != entry.function) module.Add(entry.name, rewritten);
  }
  if (context.GetOption<bool>("DeadCodeElimination.remove_unused_kernels", false)) {
    GlobalRefCollector refs;
    for (const IRModule::Entry& entry : module.entries()) {
      if (entry.function) refs.VisitFunction(*entry.function);
    }
    module.RemoveIf([&](const IRModule::Entry& entry) { return entry.kernel && !refs.names.count(entry.name); });
  }
  return module;
}

}  // namespace

Pass DeadCodeElimination() { return CreateModulePass(EliminateDeadCode, "DeadCodeElimination", 1); }

}  // namespace rxt
