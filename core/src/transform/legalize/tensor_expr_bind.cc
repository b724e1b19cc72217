/// Gives a built kernel its own symbolic variables and makes sure every one of them is bound
/// by a parameter's shape (see tensor_expr_bind.h).
#include "tensor_expr_bind.h"

#include <unordered_map>

#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"

namespace rxt {
namespace {

using VarSet = std::unordered_set<const PrimVarNode*>;

/// Scalar variables used but not in |bound|, in order of first use.
class FreeVarCollector : public StmtVisitor {
 public:
  explicit FreeVarCollector(const VarSet& bound) : bound_(bound) {}
  void VisitPrimVar(const PrimVar& var) override {
    if (!bound_.count(var.get()) && seen_.insert(var.get()).second) free.push_back(var);
  }
  std::vector<PrimVar> free;

 private:
  const VarSet& bound_;
  VarSet seen_;
};

/// Every variable an expression reads.
class VarCollector : public PrimExprVisitor {
 public:
  void VisitPrimVar(const PrimVar& var) override { vars.insert(var.get()); }
  VarSet vars;
};

class VarReplacer : public StmtMutator {
 public:
  explicit VarReplacer(std::unordered_map<const PrimVarNode*, PrimExpr> map) : map_(std::move(map)) {}
  PrimExpr VisitPrimVar(const PrimVar& var) override {
    auto it = map_.find(var.get());
    return it == map_.end() ? var : it->second;
  }

 private:
  std::unordered_map<const PrimVarNode*, PrimExpr> map_;
};

/// Replaces every occurrence of an expression (compared structurally) by another.
class ExprReplacer : public StmtMutator {
 public:
  ExprReplacer(PrimExpr target, PrimExpr replacement) : target_(std::move(target)), replacement_(std::move(replacement)) {}
  PrimExpr VisitPrimExpr(const PrimExpr& e) override {
    if (ProvablyEqual(e, target_)) return replacement_;
    return StmtMutator::VisitPrimExpr(e);
  }

 private:
  PrimExpr target_, replacement_;
};

/// Free variables of |kernel| that no parameter binds (as a bare dim of its shape).
std::vector<PrimVar> UnboundVars(const KernelFunction& kernel, const VarSet& bound) {
  FreeVarCollector collector(bound);
  collector.VisitKernel(*kernel);
  VarSet bare_dims;
  for (const KernelParam& param : kernel->params) {
    if (!param.buffer) continue;
    for (const PrimExpr& dim : param.buffer->shape) {
      if (dim->kind == PrimKind::kVar) bare_dims.insert(static_cast<const PrimVarNode*>(dim.get()));
    }
  }
  std::vector<PrimVar> unbound;
  for (const PrimVar& var : collector.free) {
    if (!bare_dims.count(var.get())) unbound.push_back(var);
  }
  return unbound;
}

/// The first composite parameter dim (e.g. n * 2) that reads one of |unbound|; null if none.
PrimExpr FirstDimReading(const KernelFunction& kernel, const std::vector<PrimVar>& unbound) {
  for (const KernelParam& param : kernel->params) {
    if (!param.buffer) continue;
    for (const PrimExpr& dim : param.buffer->shape) {
      if (dim->kind == PrimKind::kVar || dim->kind == PrimKind::kIntImm) continue;
      VarCollector reads;
      reads.VisitPrimExpr(dim);
      for (const PrimVar& var : unbound) {
        if (reads.vars.count(var.get())) return dim;
      }
    }
  }
  return nullptr;
}

}  // namespace

KernelFunction BindSymbolicDims(const KernelFunction& kernel, const VarSet& bound) {
  FreeVarCollector collector(bound);
  collector.VisitKernel(*kernel);
  std::unordered_map<const PrimVarNode*, PrimExpr> own;
  for (const PrimVar& var : collector.free) own[var.get()] = MakePrimVar(var->name, var->dtype);
  KernelFunction local = own.empty() ? kernel : VarReplacer(std::move(own)).VisitKernel(kernel);

  // Each round turns one composite parameter dim into a bare one, so this ends.
  for (int fresh = 0;; ++fresh) {
    std::vector<PrimVar> unbound = UnboundVars(local, bound);
    if (unbound.empty()) return local;
    PrimExpr dim = FirstDimReading(local, unbound);
    if (dim == nullptr) {
      std::string names;
      for (const PrimVar& var : unbound) names += StrCat(names.empty() ? "" : ", ", var->name);
      Throw(ErrorCode::kUnimplemented, "the symbolic dim(s) ", names,
            " cannot be bound from the shapes of the kernel's parameters");
    }
    local = ExprReplacer(dim, MakePrimVar(StrCat("dim", fresh))).VisitKernel(local);
  }
}

}  // namespace rxt
