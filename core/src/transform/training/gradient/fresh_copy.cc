// Copies with fresh variables (fresh_copy.h): an ExprMutator that defines a new variable for
// every variable it meets at its definition.
#include "fresh_copy.h"

#include "rxt/ir/mutator.h"

namespace rxt::gradient {
namespace {

/// Maps every symbolic variable it meets to a fresh one of the same name (memoized).
class FreshSymbols : public PrimExprMutator {
 public:
  PrimExpr VisitPrimVar(const PrimVar& var) override {
    auto [it, inserted] = fresh_.emplace(var.get(), nullptr);
    if (inserted) it->second = MakePrimVar(var->name, var->dtype);
    return it->second;
  }

 private:
  std::unordered_map<const PrimVarNode*, PrimExpr> fresh_;
};

class FreshVarCopier : public ExprMutator {
 public:
  FreshVarCopier(const IRModule* module, bool keep_dataflow_vars, bool fresh_symbols)
      : ExprMutator(module), keep_dataflow_vars_(keep_dataflow_vars), fresh_symbols_(fresh_symbols) {}

  PrimExpr VisitPrimExpr(const PrimExpr& e) override { return fresh_symbols_ ? symbols_.VisitPrimExpr(e) : e; }

  Var VisitVarDef(const Var& var) override {
    StructInfo sinfo = VisitStructInfo(var->struct_info);
    Var fresh = keep_dataflow_vars_ && var->is_dataflow ? MakeDataflowVar(var->name, sinfo, var->span)
                                                        : MakeVar(var->name, sinfo, var->span);
    var_remap_[var.get()] = fresh;
    return fresh;
  }

  void Seed(const VarNode* var, const Expr& value) { var_remap_[var] = value; }

 private:
  bool keep_dataflow_vars_;
  bool fresh_symbols_;
  FreshSymbols symbols_;
};

}  // namespace

Function CopyWithFreshVars(const Function& function, const IRModule* module, bool keep_dataflow_vars) {
  return FreshVarCopier(module, keep_dataflow_vars, /*fresh_symbols=*/true).VisitFunction(function);
}

Expr CopyWithFreshVars(const Expr& e, const std::unordered_map<const VarNode*, Expr>& values, const IRModule* module) {
  FreshVarCopier copier(module, /*keep_dataflow_vars=*/true, /*fresh_symbols=*/false);
  for (const auto& [var, value] : values) copier.Seed(var, value);
  return copier.VisitExpr(e);
}

}  // namespace rxt::gradient
