// The last step of KernelBuilder::Build: giving a kernel its own symbolic variables.
#pragma once

#include <unordered_set>

#include "rxt/ir/kernel.h"

namespace rxt {

/// Replaces every free scalar variable of |kernel| (the caller's symbolic dims: those not in
/// |bound|, the builder's loop variables, iterators and scalar parameters) by a variable of
/// the kernel's own, of the same name. A kernel binds its symbolic dims from the bare dims of
/// its buffer parameters; a parameter dim like `n * 2` whose `n` appears bare nowhere becomes
/// a variable of its own (everywhere it occurs). Throws kUnimplemented, naming the variables,
/// if some dim still cannot be bound.
KernelFunction BindSymbolicDims(const KernelFunction& kernel, const std::unordered_set<const PrimVarNode*>& bound);

}  // namespace rxt
