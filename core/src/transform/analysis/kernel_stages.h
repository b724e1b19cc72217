// The stage structure of kernels built by the KernelBuilder, as the pattern analysis and the
// fusion passes read it: local allocations around a sequence of loop nests, each nest a chain
// of loops around one block whose body is one store.
#pragma once

#include <optional>
#include <vector>

#include "rxt/ir/kernel.h"

namespace rxt {

struct KernelStage {
  Stmt stmt;                      // the outermost loop of the nest (or the block itself)
  std::vector<PrimVar> loops;     // loop variables, outermost first
  std::vector<PrimExpr> extents;  // their extents
  const BlockNode* block = nullptr;
  const StoreNode* store = nullptr;  // the block's body
  const StoreNode* init = nullptr;   // the block's init (a reduction), or null
  bool is_reduce = false;            // the block has reduce iterators
};

struct KernelStages {
  std::vector<Buffer> allocs;  // outermost first
  std::vector<KernelStage> stages;
};

/// The stages of |body|; nullopt when it has another structure (if statements, stores
/// outside blocks, blocks of several statements, loops around several statements).
std::optional<KernelStages> SplitStages(const Stmt& body);

/// True when |indices| are exactly |vars| in order.
bool IsIdentityIndex(const std::vector<PrimExpr>& indices, const std::vector<PrimVar>& vars);

/// True when |indices| address the same element as |vars| in a tensor of |shape|: each index
/// is its variable, or 0 where the dim is 1 (the variable can only be 0 there).
bool IsSameElementIndex(const std::vector<PrimExpr>& indices, const std::vector<PrimVar>& vars,
                        const std::vector<PrimExpr>& shape);

/// The spatial (or reduce) iterator variables of |block|, in order.
std::vector<PrimVar> IterVarsOf(const BlockNode& block, IterKind kind);

/// True when the stage is a canonical loop nest over its block: one loop per iterator, each
/// iterator bound to its own loop in order (spatial iterators first, then reduce ones), and
/// the block stores at its spatial iterators (and a reduction's init stores there too).
bool IsCanonicalStage(const KernelStage& stage);

/// Every load in |e| (including loads inside other loads' indices), outermost first.
std::vector<const LoadNode*> CollectLoads(const PrimExpr& e);

}  // namespace rxt
