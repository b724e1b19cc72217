// Which parallel loops LLVM may vectorize without checking, at run time, that the buffers do
// not overlap. The codegen gives each buffer its own alias scope, but the two buffers of an
// "in_place" pair (an output the VM may write over an input: docs/vm.md, "Donated inputs") share
// one, so the vectorizer checks their addresses before the vector loop — and an update written
// over its own parameter (same address) fails the check and runs the scalar loop (resnet18's
// momentum update of 512x512x3x3 weights: five streams, one float at a time). A loop whose
// iterations provably touch disjoint memory may say so (llvm.loop.parallel_accesses), and then
// needs no check.
#pragma once

#include <cstdint>
#include <vector>

#include "rxt/plugin_support/kernel_codec.h"

namespace rxt::backend_cpu {

/// Per buffer of |kernel|: a representative of its group of buffers that may be the same memory
/// (the pairs of its "in_place" attribute, transitively); every other buffer is its own group.
std::vector<size_t> MaySameMemoryGroups(const plugin_support::kernel_format::Kernel& kernel);

/// Whether no two iterations of the loop |loop_stmt| of |kernel| touch the same memory where
/// one of them writes: for every group of MaySameMemoryGroups holding a
/// buffer the loop writes, the group's buffers have one shape and no declared strides, and one
/// dim is indexed by the loop's variable (or a block iterator bound to it) in every access to
/// them. False when the loop's body allocates a buffer (one allocation serves every iteration).
bool IterationsTouchDisjointMemory(const plugin_support::kernel_format::Kernel& kernel, int32_t loop_stmt);

}  // namespace rxt::backend_cpu
