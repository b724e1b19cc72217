// Loop collapsing: adjacent loops of a perfect nest become one loop when that leaves every
// memory address the nest touches, and their order, as they were. Legalized elementwise kernels
// loop over every dim of their tensors, so the innermost loop is often tiny — 3 for a 3×3
// convolution weight, 1 for (N, C, 1, 1) — and LLVM's cost model does not vectorize it:
//
//   for i0 in range(512) { for i1 in range(512) { for i2 in range(3) { for i3 in range(3) {
//     block(v0 = i0, v1 = i1, v2 = i2, v3 = i3) { Y[v0, v1, v2, v3] = X[v0, v1, v2, v3] * s[] } } } } }
//
// Loops k and k+1 (k+1 the whole body of k) merge when every load and store in the nest either
// uses neither loop's variable or uses them exactly as two adjacent indices [.., i_k, i_{k+1}, ..]
// (directly or through block iterators bound to them) of a compact buffer whose dim at the
// second position equals the extent of loop k+1: the address there is i_k * s + i_{k+1} * s',
// s = e_{k+1} * s', which is w * s' for w = i_k * e_{k+1} + i_{k+1}. Merging pairs to a
// fixpoint makes the nest above one loop of 2359296 iterations; Y[v0, v1, v2, v3] * S[v1]
// keeps (i0, i1) and merges (i2, i3).
//
// The rewrite keeps the kernel's statements and variables: the outer loops of a merged group
// run once (extent 1, so their variables are 0) and the last one runs over the product of the
// extents. Its variable then goes past its dim, but every address is the one the nest computed
// (the codegen adds index × stride, and IndexBounds checks a load's span in the buffer, not each
// index in its dim). A variable read anywhere else (a condition, a value, another index
// expression, an inner extent), a loop a block binds as a reduce iterator, loop kinds other than
// serial and parallel, buffers with declared strides, and extents that could be negative or
// overflow leave the loops as they are.
//
// A parallel loop (ParallelizeLoops marks the first loop of a nest) may merge with the serial
// loops inside it; the merged loop is parallel if every buffer the nest writes is indexed by the
// parallel loop's variable at one dim in each of its accesses (the rule ParallelizeLoops applies,
// checked again: the merged iterations then touch disjoint elements). A parallel group never ends
// at a loop directly around a reduction: that loop is left whole to the interchange with the
// reduction (reduction_interchange.h).
#pragma once

#include <cstdint>
#include <vector>

#include "rxt/plugin_support/kernel_codec.h"

namespace rxt::backend_cpu {

/// One group of loops merged: For statements, outermost first (at least two).
struct CollapsedLoops {
  std::vector<int32_t> loops;
};

/// The groups of adjacent loops of |kernel| that CollapseLoops merges.
std::vector<CollapsedLoops> PlanLoopCollapse(const plugin_support::kernel_format::Kernel& kernel);

/// |kernel| with every group of PlanLoopCollapse merged: the outer loops of a group get extent
/// 1 (and become serial), the last one the product of the extents (and the group's kind).
/// Valid by ValidateKernel; the same results as |kernel| by the codegen's address arithmetic.
plugin_support::kernel_format::Kernel CollapseLoops(plugin_support::kernel_format::Kernel kernel);

}  // namespace rxt::backend_cpu
