/// BindingMoves and ReorderDataflowBlocks (block_reorder.h).
#include "block_reorder.h"

#include "rxt/ir/visitor.h"

namespace rxt {
namespace {

class ReadVars : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override { vars.push_back(var.get()); }
  std::vector<const VarNode*> vars;
};

}  // namespace

std::vector<const VarNode*> VarsRead(const Expr& expr) {
  ReadVars reads;
  reads.VisitExpr(expr);
  return reads.vars;
}

void BindingMoves::Move(size_t index, size_t after) {
  after_[after].push_back(index);
  moved_[index] = true;
}

std::vector<Binding> BindingMoves::Apply(const std::vector<Binding>& bindings) const {
  if (moved_.empty()) return bindings;
  std::vector<Binding> order;
  order.reserve(bindings.size());
  auto emit_moved = [&](size_t after) {
    auto it = after_.find(after);
    if (it == after_.end()) return;
    for (size_t j : it->second) order.push_back(bindings[j]);
  };
  emit_moved(kFront);
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (!moved_.count(i)) order.push_back(bindings[i]);
    emit_moved(i);
  }
  return order;
}

Function ReorderDataflowBlocks(const Function& function,
                               const std::function<std::vector<Binding>(const BindingBlock&)>& reorder) {
  std::vector<BindingBlock> blocks;
  bool changed = false;
  for (const BindingBlock& block : function->body->blocks) {
    if (!block.is_dataflow) {
      blocks.push_back(block);
      continue;
    }
    std::vector<Binding> order = reorder(block);
    for (size_t i = 0; !changed && i < order.size(); ++i) changed = order[i].var != block.bindings[i].var;
    blocks.push_back(BindingBlock{std::move(order), true});
  }
  if (!changed) return function;
  return MakeFunction(function->params, MakeSeqExpr(std::move(blocks), function->body->body), function->ret_sinfo,
                      function->attrs, function->is_pure, function->span);
}

}  // namespace rxt
