// The model `rxt train` trains when given none: the seed tutorial's MLP (examples/mlp.rxt,
// 784-128-128-10 with ReLU), built into the binary for any batch size.
#pragma once

#include <cstdint>
#include <string>

namespace rxt::cli {

/// examples/mlp.rxt with |batch| rows per batch (64 there).
std::string SeedMlpText(int64_t batch);

}  // namespace rxt::cli
