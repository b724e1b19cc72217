/// ScheduleCollectives: inside each dataflow block, moves each start of a split allreduce
/// (ccl.allreduce_start, or the call_extern of "ccl.allreduce_start_*" it legalizes to) to just
/// after the last binding it reads. A training step's gradients come out one after another
/// during the backward pass; a bucket's communication then starts as soon as its last gradient
/// exists and runs while the rest of the backward pass computes (docs/distributed.md). The
/// starts keep their order among themselves, so every rank starts the same requests in the same
/// order. Dataflow blocks are pure, so the order of their bindings is free within their
/// dependencies; results are the same bits.
#include <string>
#include <unordered_map>
#include <vector>

#include "rxt/ir/op.h"
#include "rxt/transform/passes.h"
#include "block_reorder.h"

namespace rxt {
namespace {

bool IsAllReduceStart(const Binding& binding) {
  if (binding.is_match_cast()) return false;
  const auto* call = binding.value->As<CallNode>();
  const OpDef* op = call != nullptr ? AsOp(call->callee) : nullptr;
  if (op == nullptr) return false;
  if (op->name() == "ccl.allreduce_start") return true;
  if (op->name() != "call_extern" || call->args.empty()) return false;
  const auto* name = call->args[0]->As<StringImmNode>();
  return name != nullptr && name->value.rfind("ccl.allreduce_start_", 0) == 0;
}

/// |bindings| in their new order (the same vector when nothing moves).
std::vector<Binding> Schedule(const std::vector<Binding>& bindings) {
  constexpr size_t kFront = BindingMoves::kFront;
  std::unordered_map<const VarNode*, size_t> defined_at;
  BindingMoves moves;
  // A match_cast may define the symbolic dims later struct info names, and a start moved above
  // an earlier start would change their order: nothing moves above either.
  size_t barrier = kFront;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding& binding = bindings[i];
    defined_at[binding.var.get()] = i;
    if (binding.is_match_cast()) barrier = i;
    if (!IsAllReduceStart(binding)) continue;
    size_t after = barrier;
    for (const VarNode* var : VarsRead(binding.value)) {
      auto def = defined_at.find(var);
      if (def == defined_at.end() || def->second >= i) continue;  // a parameter, or from an earlier block
      if (after == kFront || def->second > after) after = def->second;
    }
    // The next start goes no higher than where this one lands (after it, when in one place).
    if ((after == kFront && i == 0) || (after != kFront && after + 1 >= i)) {
      barrier = i;
      continue;
    }
    barrier = after;
    moves.Move(i, after);
  }
  return moves.Apply(bindings);
}

IRModule ScheduleModule(IRModule module) {
  const IRModule input = module;
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.function) continue;
    Function rewritten =
        ReorderDataflowBlocks(entry.function, [](const BindingBlock& block) { return Schedule(block.bindings); });
    if (rewritten != entry.function) module.Add(entry.name, rewritten);
  }
  return module;
}

}  // namespace

Pass ScheduleCollectives() { return CreateModulePass(ScheduleModule, "ScheduleCollectives", 0); }

}  // namespace rxt
