#include "gradient_check.h"

#include "rxt/ir/parser.h"

namespace rxt::grad_test {

std::string CheckGradient(const GradCase& c, uint32_t seed) {
  // The rules are the process-wide host's (the conformance test loads grad_std there); the
  // reference backend runs the check.
  static Session session({.plugins = {RXT_GRAD_STD_PLUGIN, RXT_REFERENCE_PLUGIN}, .search_path = false});
  IRModule module = ParseModule("def @f(" + c.params + ") -> Object {\n" + c.body + "\n  return %r\n}\n", c.op + ".rxt");
  GradientCheckResult result = rxt::CheckGradient(
      module, "f", {.dims = c.dims, .ranges = c.ranges, .constant = c.constant, .tolerance = c.tolerance, .seed = seed},
      session);
  return result.failures;
}

}  // namespace rxt::grad_test
