// Loop interchange for reductions, one of the two loop transformations the CPU backend makes
// on its own (the other merges loops of elementwise nests first: loop_collapse.h). Legalized reductions (matmul, sum, pooling, ...) put the reduction loops innermost:
//
//   for j in range(n) { for k in range(m) { block(vj = j, reduce vk = k) { C[.., vj] = C[.., vj] + ... } } }
//
// The k loop cannot be vectorized without reordering float additions. When every iteration of
// j writes elements of its own (the block's stores all end with the index vj = j) and reads
// written buffers only at those elements, the j loop can run innermost instead: each element
// still sums its terms in the same order (bit-for-bit the same result), and the j loop —
// contiguous in the output — vectorizes. Where the j loop would then read memory with a stride
// (vj indexes another dim than the last of some load, as W[vj, vk] in x · Wᵀ), only tiles of a
// few j run inside the k loop instead: independent accumulation chains, no long strides.
//
// Fused kernels follow a reduction with its epilogue in the same j loop (matmul, then bias and
// ReLU): the j loop's body may be a sequence of such parts. Since no iteration touches another
// one's elements, the j loop is split into one loop per part (distributed), each part
// interchanged on its own.
//
// The backend's loop transformations stop here and at loop_collapse.h; legalization decides
// everything else.
#pragma once

#include <optional>
#include <vector>

#include "rxt/plugin_support/kernel_codec.h"

namespace rxt::backend_cpu {

/// One statement of the spatial loop's body: a block, or reduction loops around one.
struct InterchangePart {
  std::vector<int32_t> reduction_loops;  // For statements, outermost first; empty: a block alone
  int32_t block = -1;                    // the Block statement
  /// Whether consecutive iterations of the spatial loop read consecutive elements here: then it
  /// can run innermost whole; otherwise in small tiles.
  bool contiguous = true;
  /// The statement as written (the outermost reduction loop, or the block).
  int32_t stmt = -1;
};

struct ReductionInterchange {
  std::vector<InterchangePart> parts;  // in order; at least one has reduction loops
};

/// How to run the spatial loop |outer| (a For statement) inside the reduction loops of its
/// body, or nullopt if that could change the results (or the loops do not have that shape).
std::optional<ReductionInterchange> PlanReductionInterchange(const plugin_support::kernel_format::Kernel& kernel, int32_t outer);

}  // namespace rxt::backend_cpu
