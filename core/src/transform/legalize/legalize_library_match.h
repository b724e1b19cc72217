/// The pattern matching LegalizeLibraryCalls is built from (legalize_library.cc is the pass;
/// legalize_library_matmul.cc, legalize_library_conv.cc and legalize_library_pool.cc hold each
/// library function's matcher). A matcher looks at one binding of a block (the root) and, when the root starts a
/// chain the library computes in one call, says which bindings go and what replaces them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "rxt/ir/builder.h"
#include "rxt/ir/visitor.h"
#include "rxt/ir/op.h"

namespace rxt::legalize_library {

/// How often each variable is read anywhere in a function.
class UseCounter : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override { ++uses[var.get()]; }
  std::unordered_map<const ExprNode*, int> uses;
};

const TensorSINode* TensorInfo(const Expr& e);
/// The call if |value| calls op |op_name|, else null.
const CallNode* OpCall(const Expr& value, const char* op_name);
bool IsStaticFloat32(const Expr& e, int ndim);
int64_t NumElements(const TensorSINode& t);
Expr Int(int64_t v);
/// call_extern("name", (args...), out_sinfo=outs) (a tuple of results for several outs).
Expr CallExtern(const std::string& name, std::vector<Expr> args, std::vector<StructInfo> outs);
/// A string attribute ("" if absent), an int-list attribute ({} if absent or not ints).
std::string StringAttr(const CallNode& call, const char* name);
std::vector<int64_t> IntsAttr(const CallNode& call, const char* name);
/// (h, w) from 1 or 2 ints; (top, left, bottom, right) from 1, 2 or 4; empty if malformed.
std::vector<int64_t> PairOf(std::vector<int64_t> v);
std::vector<int64_t> PaddingOf(std::vector<int64_t> v);

/// One block's bindings, where each variable is bound and how often it is read.
struct BlockView {
  const std::vector<Binding>& bindings;
  bool is_dataflow;
  const std::unordered_map<const ExprNode*, int>& uses;
  std::unordered_map<const ExprNode*, size_t> index_of;  // variable -> its binding in this block

  BlockView(const BindingBlock& block, const std::unordered_map<const ExprNode*, int>& uses);
  /// The binding that reads |var| if that is its only use in the function and it is in this
  /// block after |after| (so folding it into a library call hides nothing).
  std::optional<size_t> SoleUser(const Var& var, size_t after) const;
  /// The binding of |e| in this block if |e| is a variable bound there.
  std::optional<size_t> BindingOf(const Expr& e) const;
};

/// What a match changes in a block: bindings that disappear, bindings that keep their
/// variable with a new value, and at most one new binding placed just before another.
struct Replacement {
  std::vector<size_t> dropped;
  std::vector<std::pair<size_t, Expr>> values;
  std::optional<std::pair<size_t, Binding>> inserted;

  /// The common case: bindings |chain| (in order) become one: the last keeps its variable
  /// and gets |value|.
  static Replacement Chain(const std::vector<size_t>& chain, Expr value);
};

using Matcher = std::function<std::optional<Replacement>(const BlockView&, size_t root, BlockBuilder&)>;

/// root -> add(bias) -> relu through sole users; |bias_ok| says whether an add's other operand
/// is a bias the library can apply.
struct Epilogue {
  Expr bias;
  bool relu = false;
  std::vector<size_t> chain;  // binding indices after the root, in order
};
Epilogue FollowEpilogue(const BlockView& view, size_t root, const std::function<bool(const Expr&)>& bias_ok);

std::optional<Replacement> MatchDnnlMatmul(const BlockView& view, size_t root, BlockBuilder& builder);
std::optional<Replacement> MatchDnnlConv2d(const BlockView& view, size_t root, BlockBuilder& builder);
std::optional<Replacement> MatchDnnlConv2dBackwardData(const BlockView& view, size_t root, BlockBuilder& builder);
std::optional<Replacement> MatchDnnlConv2dBackwardWeights(const BlockView& view, size_t root, BlockBuilder& builder);
std::optional<Replacement> MatchDnnlMaxPool2d(const BlockView& view, size_t root, BlockBuilder& builder);
std::optional<Replacement> MatchDnnlMaxPool2dBackward(const BlockView& view, size_t root, BlockBuilder& builder);

}  // namespace rxt::legalize_library
