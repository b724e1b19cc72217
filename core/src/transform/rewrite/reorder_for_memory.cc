/// ReorderForMemory: inside each dataflow block, moves a call whose results only reach the
/// function's result (through tuples and tuple items) to just after the bindings it reads,
/// when it is the last reader of a tensor computed in the block. The VM's memory plan gives a
/// tensor its place for the span from its definition to its last reader (docs/vm.md), so the
/// tensor's memory is free for what follows sooner, and nothing is held longer: the moved
/// call's own results escape (they are allocated per call, outside the plan). The case it is
/// for: a training step computes every gradient, then runs the optimizer over all of them,
/// so every gradient is alive at once (resnet18: 44.7 MB); moved, each parameter's update runs
/// as soon as its gradient is computed and the gradients' memory is shared. Dataflow blocks
/// are pure, so the order of their bindings is free within their dependencies; results are
/// the same bits.
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "rxt/ir/mutator.h"
#include "rxt/transform/passes.h"
#include "block_reorder.h"

namespace rxt {
namespace {

bool IsTensor(const VarNode* var) {
  return var->struct_info != nullptr && var->struct_info->kind == StructInfoKind::kTensor;
}

/// Which variables of a function only reach its result: every reader is the function's body
/// expression or a tuple / tuple item binding whose variable only reaches it too.
class ResultOnly {
 public:
  explicit ResultOnly(const FunctionNode& function) {
    std::vector<const Binding*> bindings;
    for (const BindingBlock& block : function.body->blocks) {
      for (const Binding& binding : block.bindings) bindings.push_back(&binding);
    }
    // Who reads each variable: a binding, or null for the body (and anything not a binding).
    std::unordered_map<const VarNode*, std::vector<const Binding*>> readers;
    for (const Binding* binding : bindings) {
      for (const VarNode* var : VarsRead(binding->value)) readers[var].push_back(binding);
    }
    for (const VarNode* var : VarsRead(function.body->body)) readers[var].push_back(nullptr);
    // Readers come after definitions: from the last binding back, a reader's answer is known.
    for (auto it = bindings.rbegin(); it != bindings.rend(); ++it) {
      const VarNode* var = (*it)->var.get();
      bool only = true;
      for (const Binding* reader : readers[var]) {
        if (reader == nullptr) continue;
        ExprKind kind = reader->value->kind;
        bool forwards = !reader->is_match_cast() && (kind == ExprKind::kTuple || kind == ExprKind::kTupleGetItem);
        if (!forwards || !result_only_.count(reader->var.get())) {
          only = false;
          break;
        }
      }
      if (only && !readers[var].empty()) result_only_.insert(var);
    }
  }

  bool Contains(const VarNode* var) const { return result_only_.count(var) > 0; }

 private:
  std::unordered_set<const VarNode*> result_only_;
};

/// |block|'s bindings in their new order (the same vector when nothing moves).
std::vector<Binding> Reorder(const BindingBlock& block, const ResultOnly& result_only) {
  const std::vector<Binding>& bindings = block.bindings;
  std::unordered_map<const VarNode*, size_t> defined_at;
  std::unordered_map<const VarNode*, size_t> last_read_at;
  std::vector<std::vector<const VarNode*>> reads(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    reads[i] = VarsRead(bindings[i].value);
    for (const VarNode* var : reads[i]) last_read_at[var] = i;
    defined_at[bindings[i].var.get()] = i;
  }
  constexpr size_t kFront = BindingMoves::kFront;
  BindingMoves moves;
  // A match_cast may define the symbolic dims later struct info names: nothing moves above it.
  size_t barrier = kFront;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding& binding = bindings[i];
    if (binding.is_match_cast()) barrier = i;
    if (binding.is_match_cast() || binding.value->kind != ExprKind::kCall) continue;
    if (!result_only.Contains(binding.var.get())) continue;
    size_t after = kFront;
    bool frees = false;
    for (const VarNode* var : reads[i]) {
      auto def = defined_at.find(var);
      if (def == defined_at.end() || def->second >= i) continue;  // a parameter, or from an earlier block
      if (after == kFront || def->second > after) after = def->second;
      frees = frees || (IsTensor(var) && last_read_at[var] == i);
    }
    if (barrier != kFront && (after == kFront || barrier > after)) after = barrier;
    // Only where it frees a tensor sooner, and only forwards.
    if (!frees || (after != kFront && after + 1 >= i) || (after == kFront && i == 0)) continue;
    moves.Move(i, after);
  }
  return moves.Apply(bindings);
}

IRModule ReorderModule(IRModule module) {
  const IRModule input = module;
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.function) continue;
    ResultOnly result_only(*entry.function);
    Function rewritten = ReorderDataflowBlocks(
        entry.function, [&](const BindingBlock& block) { return Reorder(block, result_only); });
    if (rewritten != entry.function) module.Add(entry.name, rewritten);
  }
  return module;
}

}  // namespace

Pass ReorderForMemory() { return CreateModulePass(ReorderModule, "ReorderForMemory", 1); }

}  // namespace rxt
