// What the benchmarks of imported models share: fixing a model's batch, random inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "rxt/ir/module.h"
#include "rxt/runtime/tensor.h"
#include "rxt/train/random.h"

namespace rxt::bench {

/// The backbone with its symbolic batch (the first dim of its first input) bound to |batch|.
IRModule BindBatch(IRModule module, int64_t batch);

/// A float32 tensor of |shape| with standard normal elements (Box-Muller).
Tensor RandomNormal(const std::vector<int64_t>& shape, Random& rng);

}  // namespace rxt::bench
