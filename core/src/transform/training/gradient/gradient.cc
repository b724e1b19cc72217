/// Gradient: reverse-mode automatic differentiation by source transformation. For @f it adds
/// @f_adjoint, a copy of @f (fresh variables) followed by the backward pass, returning
/// (original result, (adjoint of each required parameter)).
///
/// Steps: check the request (function, require_grads, target) -> find the relevant variables
/// (depend on a required parameter, reach the target) -> report every relevant op without a
/// gradient rule at once -> copy the forward bindings -> seed the target's adjoint with ones ->
/// walk the bindings backwards (adjoint_emitter.h) -> prune backward bindings nothing uses ->
/// name adjoints after their variables ("lv3_adjoint").
///
/// Layout: a function made of one dataflow block (the seed's case) gives one dataflow block,
/// forward then backward, as in TVM. Any other function (several blocks, If) keeps its blocks
/// with ordinary variables (the backward pass reads them after their block) and appends the
/// backward pass as dataflow blocks of ordinary variables, with each backward If in a block of
/// its own.
#include <algorithm>
#include <set>

#include "adjoint_emitter.h"
#include "analysis.h"
#include "fresh_copy.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/op.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/visitor.h"
#include "rxt/support/message_text.h"
#include "rxt/transform/training/gradient.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace gradient {
namespace {

/// The value differentiated: a tensor variable, or field |field| of a tuple variable.
struct Target {
  Var var;
  int field = -1;
  StructInfo sinfo;  // of the target value itself
};

std::string Describe(const Var& v) { return StrCat("%", v->name, " (", ToString(v->struct_info), ")"); }

/// The binding of each variable at the top level of |body|.
std::unordered_map<const VarNode*, const Binding*> TopLevelBindings(const SeqExprNode& body) {
  std::unordered_map<const VarNode*, const Binding*> out;
  for (const BindingBlock& block : body.blocks) {
    for (const Binding& b : block.bindings) out.emplace(b.var.get(), &b);
  }
  return out;
}

/// Finds the target, following tuple literals (a body `(%loss, %out)` or `%gv` bound to one)
/// so that only the selected field is differentiated.
Target FindTarget(const Function& f, const std::string& name, int target_index) {
  auto bindings = TopLevelBindings(*f->body);
  Expr value = f->body->body;
  const StructInfo& result = GetStructInfo(value);
  auto fail = [&](const std::string& why) {
    Throw(ErrorCode::kInvalidArgument, "Gradient: the target of @", name, " ", why);
  };
  if (result->As<TupleSINode>() == nullptr && target_index != 0) {
    fail(StrCat("is its result, ", ToString(result), ", which is not a tuple: target_index must be 0, got ",
                target_index));
  }
  int field = -1;
  if (const auto* tuple = result->As<TupleSINode>()) {
    if (target_index < 0 || target_index >= static_cast<int>(tuple->fields.size())) {
      fail(StrCat("is field target_index of its result ", ToString(result), ", but target_index ", target_index,
                  " is out of range"));
    }
    field = target_index;
  }
  // Follow tuple literals down to a variable.
  while (field >= 0) {
    if (const auto* literal = value->As<TupleNode>()) {
      value = literal->fields[field];
      field = -1;
    } else if (value->kind == ExprKind::kVar) {
      auto it = bindings.find(static_cast<const VarNode*>(value.get()));
      if (it == bindings.end() || it->second->is_match_cast() || it->second->value->As<TupleNode>() == nullptr) break;
      value = it->second->value;
    } else {
      break;
    }
  }
  if (value->kind != ExprKind::kVar) fail(StrCat("is ", PrintExpr(value), ", not a variable: nothing to differentiate"));
  Target target{std::static_pointer_cast<const VarNode>(value), field, nullptr};
  target.sinfo = field < 0 ? target.var->struct_info : target.var->struct_info->As<TupleSINode>()->fields[field];
  const auto* tensor = target.sinfo->As<TensorSINode>();
  if (tensor == nullptr || tensor->ndim != 0 || !IsFloat(tensor->dtype)) {
    std::string which = result->As<TupleSINode>() ? StrCat(" (field ", target_index, " of its result)") : "";
    fail(StrCat("must be a 0-d float tensor (a scalar loss); it is ", ToString(target.sinfo), which));
  }
  return target;
}

/// The required parameters, checked: in range, no duplicates, float tensors.
std::vector<int> CheckRequired(const Function& f, const std::string& name, const std::optional<std::vector<int>>& given) {
  const int num_params = static_cast<int>(f->params.size());
  std::vector<int> indices;
  if (given) {
    indices = *given;
  } else {
    // By default every float tensor parameter; the others (labels, ...) are left out, and the
    // adjoint says which (its attribute gradient_skipped).
    for (int i = 0; i < num_params; ++i) {
      const auto* tensor = f->params[i]->struct_info->As<TensorSINode>();
      if (tensor != nullptr && IsFloat(tensor->dtype)) indices.push_back(i);
    }
    if (indices.empty()) {
      Throw(ErrorCode::kInvalidArgument, "Gradient: @", name, " has no float tensor parameter to differentiate");
    }
  }
  std::set<int> seen;
  for (int i : indices) {
    if (i < 0 || i >= num_params) {
      Throw(ErrorCode::kInvalidArgument, "Gradient: require_grads index ", i, " is out of range: @", name, " has ",
            num_params, " parameter(s)");
    }
    if (!seen.insert(i).second) {
      Throw(ErrorCode::kInvalidArgument, "Gradient: require_grads lists parameter ", i, " (%", f->params[i]->name,
            ") twice");
    }
    const Var& p = f->params[i];
    const auto* tensor = p->struct_info->As<TensorSINode>();
    if (tensor == nullptr || !IsFloat(tensor->dtype)) {
      std::string why = tensor == nullptr ? "it is not a tensor" : "only float tensors have adjoints";
      Throw(ErrorCode::kInvalidArgument, "Gradient: parameter ", i, " of @", name, ", ", Describe(p),
            ", takes no gradient (", why, ")",
            given ? "; leave it out of require_grads" : "; list the parameters to differentiate in require_grads");
    }
  }
  return indices;
}

RuleTable LoadedRules(const TrainingProvider& provider) {
  RuleTable rules;
  for (const OpDef* op : OpRegistry::Global().List()) {
    if (std::optional<FGradient> rule = op->GetOwned<FGradient>(provider.gradient_owner())) {
      rules.emplace(op->name(), std::move(*rule));
    }
  }
  return rules;
}

void ReportMissingRules(const std::vector<std::string>& lines, const RuleTable& rules, const std::string& name) {
  std::string hint = rules.empty()
                         ? "no gradient rules are loaded: load plugins/grad_std (rxt_grad_std.so), e.g. with --plugin "
                           "or RXT_PLUGIN_PATH"
                         : "no loaded plugin provides a usable rule for them; plugins/grad_std (rxt_grad_std.so) "
                           "has the standard ones";
  std::string message = StrCat("Gradient: cannot differentiate @", name, ": ", lines.size(),
                               lines.size() == 1 ? " op has" : " ops have", " no gradient rule (", hint, "): ",
                               JoinForMessage(lines));
  Throw(ErrorCode::kUnimplemented, message);
}

/// Whether the function is the seed's shape: one dataflow block, no If.
bool IsSingleDataflowBlock(const Function& f) {
  if (f->body->blocks.size() != 1 || !f->body->blocks[0].is_dataflow) return false;
  for (const Binding& b : f->body->blocks[0].bindings) {
    if (b.value->kind == ExprKind::kIf) return false;
  }
  return true;
}

/// Every variable of |f| (parameters, bindings at any depth).
class VarDefCollector : public ExprVisitor {
 public:
  void VisitVarDef(const Var& var) override { defs.insert(var.get()); }
  VarSet defs;
};

/// The ordinary variables bound in dataflow blocks that nothing after their block uses: they
/// can be dataflow variables (the multi-block layout binds every value to an ordinary one first).
VarSet LocalToTheirBlock(const std::vector<BindingBlock>& blocks, const Expr& result) {
  VarSet used_later;
  for (const Var& v : FreeVars(result)) used_later.insert(v.get());
  VarSet local;
  for (size_t k = blocks.size(); k-- > 0;) {
    if (blocks[k].is_dataflow) {
      for (const Binding& b : blocks[k].bindings) {
        if (!b.var->is_dataflow && !used_later.count(b.var.get())) local.insert(b.var.get());
      }
    }
    for (const Binding& b : blocks[k].bindings) {
      for (const Var& v : FreeVars(b.value)) used_later.insert(v.get());
    }
  }
  return local;
}

/// Renames variables and turns some into dataflow variables (new nodes; uses follow).
class VarRenamer : public ExprMutator {
 public:
  VarRenamer(const IRModule* module, const std::unordered_map<const VarNode*, std::string>& names,
             const VarSet& to_dataflow)
      : ExprMutator(module), names_(names), to_dataflow_(to_dataflow) {}
  Var VisitVarDef(const Var& var) override {
    auto it = names_.find(var.get());
    bool dataflow = var->is_dataflow || to_dataflow_.count(var.get());
    if (it == names_.end() && dataflow == var->is_dataflow) return ExprMutator::VisitVarDef(var);
    const std::string& name = it != names_.end() ? it->second : var->name;
    Var renamed = dataflow ? MakeDataflowVar(name, var->struct_info, var->span) : MakeVar(name, var->struct_info, var->span);
    var_remap_[var.get()] = renamed;
    return renamed;
  }

 private:
  const std::unordered_map<const VarNode*, std::string>& names_;
  const VarSet& to_dataflow_;
};

Function BuildAdjoint(const IRModule& module, const Function& original, const std::string& name,
                      const std::optional<std::vector<int>>& require_grads, int target_index,
                      const TrainingProvider& provider) {
  std::vector<int> required_indices = CheckRequired(original, name, require_grads);
  const bool single_block = IsSingleDataflowBlock(original);
  Function f = CopyWithFreshVars(original, &module, /*keep_dataflow_vars=*/single_block);
  Target target = FindTarget(f, name, target_index);
  std::vector<Var> required;
  for (int i : required_indices) required.push_back(f->params[i]);

  VarSet relevant = FindRelevantVars(*f->body, required, target.var);
  RuleTable rules = LoadedRules(provider);
  if (std::vector<std::string> missing = FindMissingRules(*f->body, relevant, rules, name); !missing.empty()) {
    ReportMissingRules(missing, rules, name);
  }
  EmitterSetup setup;
  setup.module = &module;
  setup.function = "@" + name;
  setup.rules = &rules;
  setup.relevant = &relevant;
  setup.recompute = FindCheckpointedBindings(*f->body, name);
  CollectBranchBindings(*f->body, &setup.recompute);
  setup.bind_outputs = !single_block;

  // The forward pass, as it is.
  BlockBuilder builder(&module);
  std::vector<BindingBlock> blocks;
  std::vector<const Binding*> forward;
  if (single_block) {
    builder.BeginDataflowBlock();
    for (const Binding& b : f->body->blocks[0].bindings) builder.AddBinding(b);
  } else {
    blocks = f->body->blocks;
    builder.BeginDataflowBlock();
  }
  for (const BindingBlock& block : f->body->blocks) {
    for (const Binding& b : block.bindings) forward.push_back(&b);
  }
  const size_t backward_block = blocks.size();
  const size_t backward_binding = single_block ? f->body->blocks[0].bindings.size() : 0;

  // The backward pass.
  AdjointEmitter emitter(builder, std::move(setup), &blocks);
  if (relevant.count(target.var.get())) {
    Expr ones = emitter.Ones(target.sinfo->As<TensorSINode>()->dtype);
    if (target.field < 0) {
      emitter.AddAdjoint(target.var, Adjoint{ones, {}});
    } else {
      Adjoint partial;
      partial.fields.resize(target.var->struct_info->As<TupleSINode>()->fields.size());
      partial.fields[target.field] = Adjoint{ones, {}};
      emitter.AddAdjoint(target.var, std::move(partial));
    }
  }
  emitter.Backprop(forward);
  std::vector<Expr> adjoints;
  for (const Var& p : required) adjoints.push_back(emitter.AdjointOf(p));
  Var result = builder.EmitOutput(MakeTuple({f->body->body, MakeTuple(std::move(adjoints))}), "gv");
  blocks.push_back(builder.EndBlock());

  PruneUnused(blocks, backward_block, backward_binding, result);
  VarSet to_dataflow = single_block ? VarSet() : LocalToTheirBlock(blocks, result);
  Attrs attrs = original->attrs;
  if (!require_grads) {
    AttrArray skipped;
    for (size_t i = 0; i < original->params.size(); ++i) {
      if (std::find(required_indices.begin(), required_indices.end(), static_cast<int>(i)) == required_indices.end()) {
        skipped.emplace_back(original->params[i]->name);
      }
    }
    if (!skipped.empty()) attrs.Set("gradient_skipped", AttrValue(std::move(skipped)));
  }
  Function adjoint = MakeFunction(f->params, MakeSeqFromBlocks(std::move(blocks), result), GetStructInfo(result),
                                  std::move(attrs), original->is_pure, original->span);

  // Adjoints are named after their variables; forward variables keep their names.
  VarDefCollector forward_vars;
  forward_vars.VisitFunction(*f);
  std::unordered_map<const VarNode*, std::string> names;
  for (const auto& [var, new_name] : emitter.adjoint_names()) {
    if (!forward_vars.defs.count(var)) names.emplace(var, new_name);
  }
  return VarRenamer(&module, names, to_dataflow).VisitFunction(adjoint);
}

}  // namespace
}  // namespace gradient

IRModule Gradient(IRModule module, const std::string& func, std::optional<std::vector<int>> require_grads,
                  int target_index, const TrainingProvider* rules) {
  Function f = module.FindFunction(func);
  if (f == nullptr) {
    std::string known;
    for (const IRModule::Entry& e : module.entries()) {
      if (e.function) known += StrCat(known.empty() ? "" : ", ", "@", e.name);
    }
    Throw(ErrorCode::kNotFound, "Gradient: the module has no function @", func,
          known.empty() ? std::string(" (it has none)") : StrCat(" (functions: ", known, ")"));
  }
  Function adjoint = gradient::BuildAdjoint(module, f, func, require_grads, target_index,
                                            rules != nullptr ? *rules : DefaultTrainingProvider());
  module.Add(func + "_adjoint", std::move(adjoint));
  return module;
}

Pass Gradient(std::string func_name, std::optional<std::vector<int>> require_grads, int target_index) {
  auto run = [func_name, require_grads, target_index](IRModule module) {
    return Gradient(std::move(module), func_name, require_grads, target_index);
  };
  return CreateModulePass(run, "Gradient");
}

}  // namespace rxt
