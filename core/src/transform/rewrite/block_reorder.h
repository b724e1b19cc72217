// What the passes that reorder a dataflow block's bindings share (ReorderForMemory,
// ScheduleCollectives): the moves of a block's bindings, and a function rebuilt with its
// dataflow blocks in a new order.
#pragma once

#include <cstddef>
#include <functional>
#include <unordered_map>
#include <vector>

#include "rxt/ir/expr.h"

namespace rxt {

/// The variables |expr| reads (each time it reads one).
std::vector<const VarNode*> VarsRead(const Expr& expr);

/// Bindings of one block moved up: each to just after another binding, or to the front.
class BindingMoves {
 public:
  static constexpr size_t kFront = static_cast<size_t>(-1);

  /// Binding |index| goes right after binding |after| (kFront: at the block's front), after
  /// the bindings already moved there.
  void Move(size_t index, size_t after);
  bool empty() const { return moved_.empty(); }
  /// |bindings| with the moves made.
  std::vector<Binding> Apply(const std::vector<Binding>& bindings) const;

 private:
  std::unordered_map<size_t, std::vector<size_t>> after_;
  std::unordered_map<size_t, bool> moved_;
};

/// |function| with each dataflow block's bindings in the order |reorder| gives (the same
/// bindings), or |function| itself when no block's order changed. Other blocks stay.
Function ReorderDataflowBlocks(const Function& function,
                               const std::function<std::vector<Binding>(const BindingBlock&)>& reorder);

}  // namespace rxt
