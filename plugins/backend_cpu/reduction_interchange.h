// Loop interchange for reductions, the one loop transformation the CPU backend makes on its
// own. Legalized reductions (matmul, sum, pooling, ...) put the reduction loops innermost:
//
//   for j in range(n) { for k in range(m) { block(vj = j, reduce vk = k) { C[.., vj] = C[.., vj] + ... } } }
//
// The k loop cannot be vectorized without reordering float additions. When every iteration of
// j writes elements of its own (the block's stores all end with the index vj = j) and reads
// written buffers only at those elements, the j loop can run innermost instead: each element
// still sums its terms in the same order (bit-for-bit the same result), and the j loop —
// contiguous in the output — vectorizes.
#pragma once

#include <optional>
#include <vector>

#include "rxt/kernel_format.h"

namespace rxt::backend_cpu {

struct ReductionInterchange {
  std::vector<int32_t> reduction_loops;  // the For statements inside the spatial loop, outermost first
  int32_t block = -1;                    // the Block statement they enclose
};

/// How to run the spatial loop |outer| (a For statement) inside the reduction loops it
/// encloses, or nullopt if that could change the results (or the loops do not have that shape).
std::optional<ReductionInterchange> PlanReductionInterchange(const kernel_format::Kernel& kernel, int32_t outer);

}  // namespace rxt::backend_cpu
