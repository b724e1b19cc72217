// The Gradient pass's analyses (analysis.h): relevance, missing rules, checkpoint segments.
#include "analysis.h"

#include <algorithm>

#include "rxt/ir/visitor.h"
#include "rxt/ir/op.h"

namespace rxt::gradient {
namespace {

/// Collects used and defined variables in first-appearance order.
class VarCollector : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override {
    if (seen_.insert(var.get()).second) used.push_back(var);
  }
  void VisitVarDef(const Var& var) override {
    defined.insert(var.get());
    ExprVisitor::VisitVarDef(var);
  }
  std::vector<Var> used;
  VarSet defined;

 private:
  VarSet seen_;
};

bool UsesAny(const Expr& e, const VarSet& set) {
  for (const Var& v : FreeVars(e)) {
    if (set.count(v.get())) return true;
  }
  return false;
}

bool IsOpCall(const Expr& value, const char* name) {
  const auto* call = value->As<CallNode>();
  const OpDef* op = call ? AsOp(call->callee) : nullptr;
  return op != nullptr && op->name() == name;
}

// ---- Relevance: forward dependence on the required parameters, backward reach from the target.

void MarkDependents(const SeqExprNode& seq, VarSet& depends) {
  for (const BindingBlock& block : seq.blocks) {
    for (const Binding& b : block.bindings) {
      bool depends_now = false;
      if (const auto* branch = b.value->As<IfNode>()) {
        MarkDependents(*branch->then_branch, depends);
        MarkDependents(*branch->else_branch, depends);
        depends_now = UsesAny(branch->then_branch->body, depends) || UsesAny(branch->else_branch->body, depends);
      } else {
        depends_now = UsesAny(b.value, depends);
      }
      if (depends_now && IsDifferentiable(b.var->struct_info)) depends.insert(b.var.get());
    }
  }
}

void MarkReached(const SeqExprNode& seq, bool seed_body, VarSet& reached) {
  if (seed_body) {
    for (const Var& v : FreeVars(seq.body)) reached.insert(v.get());
  }
  for (auto block = seq.blocks.rbegin(); block != seq.blocks.rend(); ++block) {
    for (auto b = block->bindings.rbegin(); b != block->bindings.rend(); ++b) {
      if (!reached.count(b->var.get())) continue;
      if (const auto* branch = b->value->As<IfNode>()) {
        MarkReached(*branch->then_branch, true, reached);
        MarkReached(*branch->else_branch, true, reached);
      } else {
        for (const Var& v : FreeVars(b->value)) reached.insert(v.get());
      }
    }
  }
}

// ---- Missing rules.

struct MissingRule {
  std::string what;
  std::vector<std::string> places;
};

void CollectMissing(const SeqExprNode& seq, const VarSet& relevant, const RuleTable& rules,
                    std::vector<MissingRule>* missing) {
  auto report = [&](const std::string& what, const Var& var) {
    auto it = std::find_if(missing->begin(), missing->end(), [&](const MissingRule& m) { return m.what == what; });
    if (it == missing->end()) it = missing->insert(missing->end(), MissingRule{what, {}});
    it->places.push_back("%" + var->name);
  };
  for (const BindingBlock& block : seq.blocks) {
    for (const Binding& b : block.bindings) {
      if (!relevant.count(b.var.get())) continue;
      if (const auto* branch = b.value->As<IfNode>()) {
        CollectMissing(*branch->then_branch, relevant, rules, missing);
        CollectMissing(*branch->else_branch, relevant, rules, missing);
        continue;
      }
      const auto* call = b.value->As<CallNode>();
      if (call == nullptr || b.is_match_cast()) continue;
      if (const OpDef* op = AsOp(call->callee)) {
        if (IsCheckpointStart(b.value) || IsCheckpointEnd(b.value)) continue;
        auto rule = rules.find(op->name());
        if (rule == rules.end()) {
          report(op->name(), b.var);
        } else if (!rule->second.emit) {
          report(StrCat(op->name(), " (the rule of plugin ", rule->second.plugin, " ", rule->second.unusable, ")"),
                 b.var);
        }
      } else if (const auto* gv = call->callee->As<GlobalVarNode>()) {
        report(StrCat("@", gv->name, " (calls of module functions are not differentiated)"), b.var);
      } else if (const auto* ext = call->callee->As<ExternFuncNode>()) {
        report(StrCat("extern \"", ext->name, "\" (external functions are not differentiated)"), b.var);
      } else {
        report("a call of a function value (not differentiated)", b.var);
      }
    }
  }
}

/// Values the backward pass can compute again from their operands.
bool IsRecomputable(const Binding& b) {
  if (b.is_match_cast()) return false;
  switch (b.value->kind) {
    case ExprKind::kTuple:
    case ExprKind::kTupleGetItem:
    case ExprKind::kVar:
      return true;
    case ExprKind::kCall: {
      const OpDef* op = AsOp(b.value->As<CallNode>()->callee);
      return op != nullptr && op->pure();
    }
    default:
      return false;
  }
}

}  // namespace

bool IsDifferentiable(const StructInfo& sinfo) {
  if (sinfo == nullptr) return false;
  if (const auto* t = sinfo->As<TensorSINode>()) return t->dtype == DType::kUnknown || IsFloat(t->dtype);
  if (const auto* tuple = sinfo->As<TupleSINode>()) {
    return std::any_of(tuple->fields.begin(), tuple->fields.end(), [](const StructInfo& f) { return IsDifferentiable(f); });
  }
  return false;
}

std::vector<Var> FreeVars(const Expr& e) {
  VarCollector collector;
  collector.VisitExpr(e);
  std::vector<Var> free;
  for (const Var& v : collector.used) {
    if (!collector.defined.count(v.get())) free.push_back(v);
  }
  return free;
}

bool IsCheckpointStart(const Expr& value) { return IsOpCall(value, "checkpoint_start"); }
bool IsCheckpointEnd(const Expr& value) { return IsOpCall(value, "checkpoint_end"); }

VarSet FindRelevantVars(const SeqExprNode& body, const std::vector<Var>& required, const Var& target) {
  VarSet depends;
  for (const Var& p : required) depends.insert(p.get());
  MarkDependents(body, depends);
  VarSet reached = {target.get()};
  MarkReached(body, /*seed_body=*/false, reached);
  VarSet relevant;
  for (const VarNode* v : depends) {
    if (reached.count(v)) relevant.insert(v);
  }
  return relevant;
}

std::vector<std::string> FindMissingRules(const SeqExprNode& body, const VarSet& relevant, const RuleTable& rules,
                                          const std::string& function) {
  std::vector<MissingRule> missing;
  CollectMissing(body, relevant, rules, &missing);
  std::vector<std::string> lines;
  for (const MissingRule& m : missing) {
    std::string places;
    for (const std::string& p : m.places) places += (places.empty() ? "" : ", ") + p;
    lines.push_back(StrCat(m.what, ": at ", places, " in @", function));
  }
  return lines;
}

std::unordered_map<const VarNode*, const Binding*> FindCheckpointedBindings(const SeqExprNode& body,
                                                                           const std::string& function) {
  std::unordered_map<const VarNode*, const Binding*> inside;
  const Binding* open = nullptr;  // the checkpoint_start of the open segment
  for (const BindingBlock& block : body.blocks) {
    for (const Binding& b : block.bindings) {
      if (IsCheckpointStart(b.value)) {
        if (open == nullptr) open = &b;
        continue;
      }
      if (IsCheckpointEnd(b.value)) {
        if (open == nullptr) {
          Throw(ErrorCode::kInvalidArgument, "Gradient: @", function, ": checkpoint_end at %", b.var->name,
                " has no checkpoint_start before it");
        }
        open = nullptr;
        continue;
      }
      if (open != nullptr && IsRecomputable(b)) inside.emplace(b.var.get(), &b);
    }
  }
  if (open != nullptr) {
    Throw(ErrorCode::kInvalidArgument, "Gradient: @", function, ": the checkpoint segment starting at %",
          open->var->name, " has no checkpoint_end");
  }
  return inside;
}

void CollectBranchBindings(const SeqExprNode& body, std::unordered_map<const VarNode*, const Binding*>* out) {
  for (const BindingBlock& block : body.blocks) {
    for (const Binding& b : block.bindings) {
      const auto* branch = b.value->As<IfNode>();
      if (branch == nullptr) continue;
      for (const SeqExpr& seq : {branch->then_branch, branch->else_branch}) {
        for (const BindingBlock& inner : seq->blocks) {
          for (const Binding& ib : inner.bindings) out->emplace(ib.var.get(), &ib);
        }
        CollectBranchBindings(*seq, out);
      }
    }
  }
}

void PruneUnused(std::vector<BindingBlock>& blocks, size_t first_block, size_t first_binding, const Expr& result) {
  VarSet used;
  for (const Var& v : FreeVars(result)) used.insert(v.get());
  for (size_t k = blocks.size(); k-- > first_block;) {
    auto& bindings = blocks[k].bindings;
    size_t start = k == first_block ? first_binding : 0;
    for (size_t j = bindings.size(); j-- > start;) {
      if (!used.count(bindings[j].var.get())) {
        bindings.erase(bindings.begin() + static_cast<std::ptrdiff_t>(j));
        continue;
      }
      for (const Var& v : FreeVars(bindings[j].value)) used.insert(v.get());
    }
  }
}

}  // namespace rxt::gradient
