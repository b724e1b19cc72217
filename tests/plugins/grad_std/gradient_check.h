// Checks a gradient rule of grad_std against float64 central finite differences: a case is a
// few bindings that call the op and bind %r (a tensor or a tuple of tensors); the check
// builds f(params) = sum over r's fields of sum(r_i * w_i) with random weights w_i, runs the
// Gradient pass, builds it for the reference backend and compares f_adjoint's gradients with
// (f(x + h v) - f(x - h v)) / 2h for v each unit vector (small inputs) or random directions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rxt::grad_test {

/// The values a parameter takes: uniform in [lo, hi] (integers for integer dtypes; |step| > 0
/// spaces float values apart, e.g. to keep max/min free of near-ties).
struct Range {
  double lo = -1, hi = 1;
};

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
