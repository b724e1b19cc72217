/// The matching engine of LegalizeLibraryCalls (library_match.h).
#include "library_match.h"

#include <algorithm>
#include <set>

#include "rxt/ir/op.h"

namespace rxt::library_match {
namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// The variables a binding's value reads.
std::set<const ExprNode*> Reads(const Expr& value) {
  UseCounter counter;
  counter.VisitExpr(value);
  std::set<const ExprNode*> vars;
  for (const auto& [var, count] : counter.uses) vars.insert(var);
  return vars;
}

/// The call bound at |at| with, per argument, the call that binds it when |pattern| may absorb
/// it: a call of one of its input_ops, bound earlier in the block, read only by this call.
/// |producers_at| gets where each producer is bound.
LibraryCall CallAt(const BlockView& view, size_t at, const LibraryPattern& pattern, const std::vector<bool>& taken,
                   std::vector<std::optional<size_t>>& producers_at) {
  const Binding& binding = view.bindings()[at];
  const CallNode* call = view.OpCallAt(at);
  LibraryCall c{binding.value, binding.var, std::vector<Expr>(call->args.size())};
  producers_at.assign(call->args.size(), std::nullopt);
  for (size_t i = 0; i < call->args.size(); ++i) {
    std::optional<size_t> p = view.BindingOf(call->args[i]);
    std::string op;
    if (!p || *p >= at || taken[*p] || view.OpCallAt(*p, &op) == nullptr || !Contains(pattern.input_ops, op)) continue;
    if (view.SoleUser(view.bindings()[*p].var, *p) != at) continue;
    c.producers[i] = view.bindings()[*p].value;
    producers_at[i] = p;
  }
  return c;
}

}  // namespace

BlockView::BlockView(const BindingBlock& block, const std::unordered_map<const ExprNode*, int>& uses)
    : block_(block), uses_(uses) {
  for (size_t i = 0; i < block.bindings.size(); ++i) index_of_[block.bindings[i].var.get()] = i;
}

const CallNode* BlockView::OpCallAt(size_t index, std::string* op_name) const {
  const Binding& binding = block_.bindings[index];
  if (binding.is_match_cast()) return nullptr;
  const CallNode* call = binding.value->As<CallNode>();
  const OpDef* op = call != nullptr ? AsOp(call->callee) : nullptr;
  if (op == nullptr) return nullptr;
  if (op_name != nullptr) *op_name = op->name();
  return call;
}

std::optional<size_t> BlockView::SoleUser(const Var& var, size_t after) const {
  auto it = uses_.find(var.get());
  if (it == uses_.end() || it->second != 1) return std::nullopt;
  for (size_t i = after + 1; i < block_.bindings.size(); ++i) {
    if (Reads(block_.bindings[i].value).count(var.get()) != 0) {
      return block_.bindings[i].is_match_cast() ? std::nullopt : std::optional<size_t>(i);
    }
  }
  return std::nullopt;
}

std::optional<size_t> BlockView::BindingOf(const ExprNode* e) const {
  auto it = index_of_.find(e);
  if (it == index_of_.end()) return std::nullopt;
  return it->second;
}

Candidate MatchAt(const BlockView& view, size_t anchor, const LibraryPattern& pattern, const std::vector<bool>& taken) {
  Candidate c;
  c.call_at.push_back(anchor);
  // The epilogue: each op in turn, when the sole reader of the chain so far calls it.
  size_t current = anchor;
  for (const std::string& op : pattern.epilogue) {
    std::optional<size_t> user = view.SoleUser(view.bindings()[current].var, current);
    std::string user_op;
    if (!user || taken[*user] || view.OpCallAt(*user, &user_op) == nullptr || user_op != op) continue;
    c.call_at.push_back(*user);
    current = *user;
  }
  for (size_t at : c.call_at) {
    c.match.calls.push_back(CallAt(view, at, pattern, taken, c.call_producers_at.emplace_back()));
  }
  // Siblings: calls of sibling_ops anywhere in the block whose first argument the anchor reads.
  if (!pattern.sibling_ops.empty()) {
    const CallNode* call = view.OpCallAt(anchor);
    for (size_t i = 0; i < view.bindings().size(); ++i) {
      std::string op;
      const CallNode* sibling = i != anchor && !taken[i] ? view.OpCallAt(i, &op) : nullptr;
      if (sibling == nullptr || sibling->args.empty() || !Contains(pattern.sibling_ops, op)) continue;
      if (std::find(call->args.begin(), call->args.end(), sibling->args[0]) == call->args.end()) continue;
      if (std::find(c.call_at.begin(), c.call_at.end(), i) != c.call_at.end()) continue;
      c.sibling_at.push_back(i);
      c.match.siblings.push_back(CallAt(view, i, pattern, taken, c.sibling_producers_at.emplace_back()));
    }
  }
  return c;
}

std::optional<Replacement> Place(const BlockView& view, const Candidate& candidate, const LibraryRewrite& rewrite,
                                 const BindingBlock& built, const std::vector<bool>& dropped,
                                 const std::string& origin, BlockBuilder& builder) {
  const std::vector<Binding>& bindings = view.bindings();
  if (built.bindings.empty() || built.bindings.back().var != rewrite.value) {
    Throw(ErrorCode::kInvalidArgument, origin, ": the replacement is not the last variable the rewrite bound");
  }
  size_t last = candidate.call_at[rewrite.num_calls - 1];
  std::optional<size_t> sibling;
  if (rewrite.sibling >= 0) sibling = candidate.sibling_at[rewrite.sibling];
  // Its type must fit what it replaces.
  const Var& result = bindings[last].var;
  StructInfo expected = result->struct_info;
  if (sibling) expected = TupleSI({result->struct_info, bindings[*sibling].var->struct_info});
  if (!IsBaseOf(expected, rewrite.value->struct_info, /*assume_unknown_equal=*/true)) {
    Throw(ErrorCode::kInvalidArgument, origin, ": the replacement is ", ToString(rewrite.value->struct_info),
          " but replaces ", ToString(expected));
  }

  Replacement r;
  r.insert_at = sibling ? std::min(last, *sibling) : last;
  // What the built bindings read of this block must be bound before them, and stay.
  std::set<const ExprNode*> reads;
  for (const Binding& b : built.bindings) {
    for (const ExprNode* var : Reads(b.value)) reads.insert(var);
  }
  for (const ExprNode* var : reads) {
    std::optional<size_t> at = view.BindingOf(var);
    if (at && (*at >= r.insert_at || dropped[*at])) return std::nullopt;
  }
  // The calls it computes go (the last keeps its variable), and so do the producers it no
  // longer reads.
  for (int i = 0; i + 1 < static_cast<int>(rewrite.num_calls); ++i) r.dropped.push_back(candidate.call_at[i]);
  auto drop_unread_producers = [&](const std::vector<std::optional<size_t>>& producers_at) {
    for (const std::optional<size_t>& at : producers_at) {
      if (at && !reads.count(bindings[*at].var.get())) r.dropped.push_back(*at);
    }
  };
  for (size_t i = 0; i < rewrite.num_calls; ++i) drop_unread_producers(candidate.call_producers_at[i]);
  if (sibling) drop_unread_producers(candidate.sibling_producers_at[rewrite.sibling]);
  r.inserted.assign(built.bindings.begin(), built.bindings.end() - 1);
  const Expr& value = built.bindings.back().value;
  if (!sibling) {
    r.values.emplace_back(last, value);  // the last call's variable now holds the replacement
    return r;
  }
  // With a sibling the tuple gets a variable of its own, and the two results its fields.
  Var tuple = view.is_dataflow() ? MakeDataflowVar(result->name + "_tuple", rewrite.value->struct_info)
                                 : MakeVar(result->name + "_tuple", rewrite.value->struct_info);
  r.inserted.push_back(Binding{tuple, value, nullptr});
  r.values.emplace_back(last, builder.Normalize(MakeTupleGetItem(tuple, 0)));
  r.values.emplace_back(*sibling, builder.Normalize(MakeTupleGetItem(tuple, 1)));
  return r;
}

}  // namespace rxt::library_match
