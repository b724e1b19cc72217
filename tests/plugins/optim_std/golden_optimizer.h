// What the optimizer tests share: a case of tests/data/golden/optimizers.json turned into
// tensors, and into the module holding the optimizer function it describes.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "rxt/ir/module.h"
#include "rxt/runtime/value.h"
#include "rxt/transform/training/training_components.h"

namespace rxt::test {

/// Each golden tensor of |list| as a Value.
std::vector<Value> GoldenTensors(const nlohmann::json& list);

struct GoldenOptimizer {
  std::vector<Value> params;
  OptimizerInstance opt;
  IRModule module;  // "optimizer": opt.function
};

/// The optimizer of case |c| (its "optimizer", "options" and "params"), built with the
/// training plugins for the parameters' struct info.
GoldenOptimizer BuildGoldenOptimizer(const nlohmann::json& c);

}  // namespace rxt::test
