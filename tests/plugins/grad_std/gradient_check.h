// A conformance case of grad_std: a few bindings that call the op and bind %r (a tensor or a
// tuple of tensors), checked by rxt's gradient check (exec/gradient_check.h: float64 central
// finite differences on the reference backend).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rxt/exec/gradient_check.h"

namespace rxt::grad_test {

/// The values a parameter takes: uniform in [lo, hi] (integers for integer dtypes).
using Range = ValueRange;

struct GradCase {
  std::string op;      // the gradient rule under test
  std::string params;  // "%x: Tensor((n, 3), float64), %i: Tensor((2,), int64)"
  std::string body;    // bindings, one per line, the last binding %r
  /// Values of the symbolic dims of the params ("n" -> 3).
  std::map<std::string, int64_t> dims = {};
  /// Value ranges by parameter name (no %); default [-1, 1].
  std::map<std::string, Range> ranges = {};
  /// Float parameters not to differentiate (e.g. a seed-like constant input).
  std::vector<std::string> constant = {};
  /// Tolerance: |analytic - numeric| <= tolerance * (1 + |numeric|).
  double tolerance = 1e-6;
};

/// Runs the check of |c|; returns "" when every gradient matches, else what differs.
std::string CheckGradient(const GradCase& c, uint32_t seed);

}  // namespace rxt::grad_test
