// Whether a kernel may write one of its outputs over one of its inputs (the VM then gives the
// output the input's storage when nothing else holds it: a training step's parameter update
// written over the old parameters, docs/vm.md "Donated inputs").
#pragma once

#include <cstdint>
#include <vector>

#include "rxt/ir/kernel.h"

namespace rxt {

/// True when writing output parameter |out| into the storage of input parameter |in| cannot
/// change what |kernel| computes: both are buffers of the same dtype and shape; every load and
/// store of either is in one loop nest at exactly that nest's loop variables (each iteration
/// touches its own element, so iterations, parallel or not, never meet); no block touching
/// them reduces; the kernel has no if statements; and in each iteration every load of |in|
/// comes before the first store to |out|, which no load of |out| precedes. Conservative: false
/// for anything else.
bool CanWriteInPlace(const KernelFunctionNode& kernel, size_t in, size_t out);

/// Every (in, out) pair of |kernel|'s buffer parameters for which CanWriteInPlace holds, flat:
/// in0, out0, in1, out1, ... (out a parameter the kernel stores to, in one it only reads).
std::vector<int64_t> InPlacePairs(const KernelFunctionNode& kernel);

}  // namespace rxt
