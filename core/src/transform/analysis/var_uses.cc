#include "var_uses.h"

#include "rxt/ir/visitor.h"

namespace rxt {
namespace {

class UseCounter : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override { ++uses[var.get()]; }
  VarUses uses;
};

}  // namespace

VarUses CountVarUses(const FunctionNode& function) {
  UseCounter counter;
  counter.VisitFunction(function);
  return std::move(counter.uses);
}

int UsesOf(const VarUses& uses, const Expr& e) {
  if (e == nullptr || e->kind != ExprKind::kVar) return 0;
  auto it = uses.find(static_cast<const VarNode*>(e.get()));
  return it == uses.end() ? 0 : it->second;
}

}  // namespace rxt
