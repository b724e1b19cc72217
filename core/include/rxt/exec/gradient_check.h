// Checks the Gradient pass on a function against float64 central finite differences, the way
// the conformance test checks every gradient rule and `rxt gradcheck` checks a plugin's: for a
// function F(params) returning a tensor or a tuple of tensors, it builds
// f(params, weights) = sum over F's fields of sum(F_i * w_i) with random weights, differentiates
// f with the loaded gradient rules, builds it for a backend and compares each gradient with
// (f(x + h v) - f(x - h v)) / 2h for v each unit vector (small inputs) or random directions.
//
//   Session session({.plugins = {"example_ops.so"}});
//   GradientCheckResult r = CheckGradient(module, "softplus", {.dims = {{"n", 3}}}, session);
//   if (!r.passed()) std::cerr << r.failures;
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rxt/exec/session.h"
#include "rxt/ir/module.h"

namespace rxt {

/// The values a parameter takes: uniform in [lo, hi] (integers for integer dtypes).
struct ValueRange {
  double lo = -1, hi = 1;
};

struct GradientCheckOptions {
  /// Values of the symbolic dims of the parameters ("n" -> 3); every one must be given.
  std::map<std::string, int64_t> dims = {};
  /// Value ranges by parameter name (no %); default [-1, 1].
  std::map<std::string, ValueRange> ranges = {};
  /// Float parameters not to differentiate.
  std::vector<std::string> constant = {};
  /// |analytic - numeric| <= tolerance * (1 + |numeric|).
  double tolerance = 1e-6;
  uint32_t seed = 1;
  /// The backend that runs the check ("reference": exact float64 kernels).
  std::string backend = "reference";
};

struct GradientCheckResult {
  /// The parameters differentiated and the directional checks made.
  int gradients = 0;
  int checks = 0;
  /// What differs, one line each (at most five); empty when every check passed.
  std::string failures;
  bool passed() const { return failures.empty(); }
};

/// Checks |function| of |module|: its parameters are tensors of known rank (float64, int64 or
/// bool; the float64 ones are differentiated) whose symbolic dims options.dims gives, its result
/// a float64 tensor or a tuple of them. Throws rxt::Error (kInvalidArgument) when the function
/// does not fit that, or the Gradient pass's and the build's errors (an op without a rule...).
GradientCheckResult CheckGradient(const IRModule& module, const std::string& function,
                                  const GradientCheckOptions& options, Session& session);

}  // namespace rxt
