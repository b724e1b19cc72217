// The matching engine of LegalizeLibraryCalls (legalize_library.cc is the pass). In one binding
// block it finds what a pattern may take at an anchor — the chain of sole readers after it, the
// producers a matched call may absorb, the sibling calls — and places what a rewrite built where
// the calls it replaces were. It knows no op and no library: patterns say which ops they take.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "rxt/ir/visitor.h"
#include "rxt/transform/legalize/library_patterns.h"

namespace rxt::library_match {

/// How often each variable is read in a function.
class UseCounter : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override { ++uses[var.get()]; }
  std::unordered_map<const ExprNode*, int> uses;
};

/// One block's bindings, where each variable is bound and how often the function reads it.
class BlockView {
 public:
  BlockView(const BindingBlock& block, const std::unordered_map<const ExprNode*, int>& uses);
  const std::vector<Binding>& bindings() const { return block_.bindings; }
  bool is_dataflow() const { return block_.is_dataflow; }
  /// The op call bound at |index| and its op's name; null for a match_cast or another value.
  const CallNode* OpCallAt(size_t index, std::string* op_name = nullptr) const;
  /// The binding that reads |var| when that is the function's only read of it and it comes
  /// later in this block (so that folding it into a library call hides nothing).
  std::optional<size_t> SoleUser(const Var& var, size_t after) const;
  /// Where |e| is bound, if it is a variable bound in this block.
  std::optional<size_t> BindingOf(const Expr& e) const { return BindingOf(e.get()); }
  std::optional<size_t> BindingOf(const ExprNode* e) const;

 private:
  const BindingBlock& block_;
  const std::unordered_map<const ExprNode*, int>& uses_;
  std::unordered_map<const ExprNode*, size_t> index_of_;
};

/// What a pattern may take at one anchor, with the binding of each call and, per argument of
/// each, of its producer (if any).
struct Candidate {
  LibraryMatch match;
  std::vector<size_t> call_at, sibling_at;
  std::vector<std::vector<std::optional<size_t>>> call_producers_at, sibling_producers_at;
};

/// The candidate of |pattern| at binding |anchor| (an op call of pattern.anchor); bindings
/// already |taken| by another replacement are never part of it.
Candidate MatchAt(const BlockView& view, size_t anchor, const LibraryPattern& pattern, const std::vector<bool>& taken);

/// What a replacement changes in the block: bindings that go, bindings that keep their
/// variable with a new value, and new bindings placed just before binding |insert_at|.
struct Replacement {
  std::vector<size_t> dropped;
  std::vector<std::pair<size_t, Expr>> values;
  size_t insert_at = 0;
  std::vector<Binding> inserted;
};

/// The replacement that puts |built| (the bindings the rewrite made, |rewrite.value| the last)
/// in place of the calls |rewrite| computes. Nullopt when they cannot go there: they read a
/// value bound at or after the place, or one another replacement |dropped|. Throws naming
/// |origin| for a rewrite that breaks its contract (a value that is not the last it bound, a
/// type that does not fit what it replaces).
std::optional<Replacement> Place(const BlockView& view, const Candidate& candidate, const LibraryRewrite& rewrite,
                                 const BindingBlock& built, const std::vector<bool>& dropped,
                                 const std::string& origin, BlockBuilder& builder);

}  // namespace rxt::library_match
