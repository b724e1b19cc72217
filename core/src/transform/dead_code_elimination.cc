/// DeadCodeElimination: removes bindings whose variable is never used and whose value has no
/// side effects (see purity.h), repeating until nothing more goes (removing one binding can
/// leave the bindings it used unused), then drops the blocks left empty. Functions are kept,
/// even unused ones. A match_cast that defines new symbolic dims stays: later struct info may
/// name them. With the option DeadCodeElimination.remove_unused_kernels, kernels that no
/// Relax function names (call_kernel or otherwise) are removed as well.
#include <unordered_map>
#include <unordered_set>

#include "purity.h"
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

class UnusedBindingRemover : public ExprMutator {
 public:
  UnusedBindingRemover(const IRModule& module, const std::unordered_map<const VarNode*, int>& uses,
                       const std::unordered_set<const PrimVarNode*>& signature_symbols)
      : ExprMutator(&module), module_(module), uses_(uses), signature_symbols_(signature_symbols) {}

  void VisitBinding(const Binding& binding) override {
    if (IsRemovable(binding)) {
      ++removed;
      return;
    }
    ExprMutator::VisitBinding(binding);
  }

  int removed = 0;

 private:
  bool IsRemovable(const Binding& binding) const {
    if (uses_.count(binding.var.get())) return false;
    if (binding.is_match_cast() && !NamesOnlyKnownSymbols(binding.match_sinfo, signature_symbols_)) return false;
    return IsPure(binding.value, module_);
  }

  const IRModule& module_;
  const std::unordered_map<const VarNode*, int>& uses_;
  const std::unordered_set<const PrimVarNode*>& signature_symbols_;
};

Function EliminateDeadBindings(Function function, const IRModule& module) {
  SymbolCollector signature;
  for (const Var& param : function->params) signature.VisitStructInfo(param->struct_info);
  while (true) {
    UseCounter counter;
    counter.VisitFunction(*function);
    UnusedBindingRemover remover(module, counter.uses, signature.symbols);
    Function rewritten = remover.VisitFunction(function);
    if (remover.removed == 0) return rewritten;  // may still differ: empty blocks dropped
    function = rewritten;
  }
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
    const IRModule before = module;
    for (const IRModule::Entry& entry : before.entries()) {
      if (entry.kernel && !refs.names.count(entry.name)) module.Remove(entry.name);
    }
  }
  return module;
}

}  // namespace

Pass DeadCodeElimination() { return CreateModulePass(EliminateDeadCode, "DeadCodeElimination", 1); }

}  // namespace rxt
