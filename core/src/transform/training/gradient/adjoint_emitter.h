// The backward pass of the Gradient pass: walks the bindings of a function in reverse and
// writes the adjoint of every relevant variable into a BlockBuilder, calling the ops' gradient
// rules (the ops' FGradient attributes, transform/training/providers.h).
//
// Forward values the rules read come from Primal(): the variable itself, or — for bindings
// inside a checkpoint segment or an If branch — a copy computed again in the backward pass
// (once per scope, on first use).
//
// An If binding gets a backward If on the same condition: each branch recomputes what it needs
// of its forward branch, runs the backward pass over it, and yields the adjoints of the outer
// variables the If uses (zeros where a branch does not use one).
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis.h"
#include "rxt/ir/builder.h"

namespace rxt::gradient {

/// A value's adjoint: zero (nothing set), one expression, or the adjoints of a tuple's fields
/// (a zero Adjoint where a field has none).
struct Adjoint {
  Expr value;
  std::vector<Adjoint> fields;
  bool IsZero() const { return value == nullptr && fields.empty(); }
};

struct EmitterSetup {
  const IRModule* module = nullptr;
  std::string function;  // for messages: "@main"
  const RuleTable* rules = nullptr;
  const VarSet* relevant = nullptr;
  /// Bindings the backward pass recomputes instead of reading (checkpointed, inside branches).
  std::unordered_map<const VarNode*, const Binding*> recompute;
  /// Bind to ordinary variables inside dataflow blocks (the adjoint function has several
  /// blocks, so values must be visible after theirs).
  bool bind_outputs = false;
};

class AdjointEmitter {
 public:
  /// |builder| has an open block. |finished| receives the blocks the emitter closes when it
  /// must put an If binding outside a dataflow block (may be null if there is none).
  AdjointEmitter(BlockBuilder& builder, EmitterSetup setup, std::vector<BindingBlock>* finished);

  /// Adds |adjoint| to the adjoint of |var| (emitting the sum if it has one already).
  void AddAdjoint(const Var& var, Adjoint adjoint);
  /// The backward pass over |bindings| (in program order; processed last to first).
  void Backprop(const std::vector<const Binding*>& bindings);
  /// The adjoint of |var| as one expression: zeros of its shape if none flowed.
  Expr AdjointOf(const Var& var);
  /// A 0-d tensor of ones of |dtype| (the target's adjoint).
  Expr Ones(DType dtype);

  /// The names adjoint variables should carry ("lv3_adjoint"), by variable.
  const std::unordered_map<const VarNode*, std::string>& adjoint_names() const { return names_; }

 private:
  using Scope = std::unordered_map<const VarNode*, Expr>;

  Var Bind(const Expr& value, const std::string& name_hint);
  Var EmitIf(const Expr& value, const std::string& name_hint);

  // Forward values.
  Expr Primal(const Var& var);
  Expr Recompute(const Binding& binding);
  /// A leaf (variable, tuple of leaves, constant...) with every variable replaced by Primal().
  Expr SubstituteLeaf(const Expr& e);
  Expr SubstituteCall(const Expr& call);

  // Adjoint values.
  Adjoint Sum(const Adjoint& a, const Adjoint& b, const StructInfo& sinfo, const std::string& name);
  Adjoint FieldOf(const Adjoint& a, int index);
  Expr Materialize(const Adjoint& a, const StructInfo& sinfo, const std::function<Expr()>& primal);
  Expr Zeros(const StructInfo& sinfo, const std::function<Expr()>& primal);
  /// Gives |adjoint| to the variables of |target| (a variable or a tuple of leaves).
  void Distribute(const Expr& target, const Adjoint& adjoint);

  // One binding each.
  void BackpropBinding(const Binding& binding, const Adjoint& adjoint);
  void BackpropCall(const Binding& binding, const CallNode& call, const Adjoint& adjoint);
  void BackpropIf(const Binding& binding, const IfNode& node, const Adjoint& adjoint);

  bool IsRelevant(const VarNode* var) const { return setup_.relevant->count(var) > 0; }

  BlockBuilder& builder_;
  EmitterSetup setup_;
  std::vector<BindingBlock>* finished_;
  std::vector<std::unordered_map<const VarNode*, Adjoint>> adjoint_scopes_;
  std::vector<Scope> primal_scopes_;
  std::unordered_map<const VarNode*, std::string> names_;
  std::unordered_map<const VarNode*, const VarNode*> named_for_;  // adjoint variable -> whose adjoint
};

}  // namespace rxt::gradient
