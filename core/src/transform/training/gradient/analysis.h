// What the Gradient pass learns about a function before it writes anything: which variables
// carry adjoints, which op calls need a gradient rule, which bindings the backward pass
// recomputes (checkpoint segments and If branches), and the variables an expression uses.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "rxt/ir/expr.h"
#include "rxt/transform/training/providers.h"

namespace rxt::gradient {

using VarSet = std::unordered_set<const VarNode*>;

/// Whether adjoints flow through a value of |sinfo|: a float (or unknown-dtype) tensor, or a
/// tuple holding one.
bool IsDifferentiable(const StructInfo& sinfo);

/// The variables |e| uses (all of them, also inside If branches), excluding those it defines
/// itself (bindings inside branches), in first-use order.
std::vector<Var> FreeVars(const Expr& e);

/// The checkpoint markers (op "checkpoint_start" / "checkpoint_end"), or false.
bool IsCheckpointStart(const Expr& value);
bool IsCheckpointEnd(const Expr& value);

/// The variables that need an adjoint: those that depend on a required parameter and that the
/// target depends on, with a differentiable struct info. Covers If branches (their local
/// variables too).
VarSet FindRelevantVars(const SeqExprNode& body, const std::vector<Var>& required, const Var& target);

/// The gradient rules available (the FGradient attributes of one provider), by op name.
using RuleTable = std::map<std::string, FGradient>;

/// Every relevant binding whose value cannot be differentiated (an op without a usable rule,
/// a call of a module or external function) as one line each, "exp: at %lv3, %lv5 in @main";
/// empty if there is none.
std::vector<std::string> FindMissingRules(const SeqExprNode& body, const VarSet& relevant, const RuleTable& rules,
                                          const std::string& function);

/// The bindings of the top level of |body| inside checkpoint segments (from a checkpoint_start
/// binding to the next checkpoint_end binding, in program order), markers excluded, whose
/// value can be recomputed (calls, tuples, tuple items, aliases). Throws kInvalidArgument for
/// a checkpoint_end outside a segment or a segment never closed.
std::unordered_map<const VarNode*, const Binding*> FindCheckpointedBindings(const SeqExprNode& body,
                                                                           const std::string& function);

/// Every binding inside the branches of the If bindings of |body| (at any depth), by variable.
void CollectBranchBindings(const SeqExprNode& body, std::unordered_map<const VarNode*, const Binding*>* out);

/// Removes the bindings from (first_block, first_binding) on that neither a later binding nor
/// |result| uses (for the backward pass's bindings, which are pure).
void PruneUnused(std::vector<BindingBlock>& blocks, size_t first_block, size_t first_binding, const Expr& result);

}  // namespace rxt::gradient
