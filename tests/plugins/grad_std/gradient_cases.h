// The cases of the conformance test, by op: every gradient rule grad_std registers needs at
// least one (the test fails for a rule without), with broadcasting, batching, odd sizes and
// symbolic dims where the op has them.
#pragma once

#include <vector>

#include "gradient_check.h"

namespace rxt::grad_test {

std::vector<GradCase> GradientCases();

}  // namespace rxt::grad_test
