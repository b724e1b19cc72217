/// The builtins (call_kernel, call_extern, print, assert, view) are already legal: their
/// legalization keeps the call as it is. The checkpoint markers (checkpoint_start,
/// checkpoint_end) only matter to the Gradient pass: legalized, a marker is its argument.
/// gradient_of needs the function around it: the LowerGradientOf pass lowers it, and
/// LegalizeOps reports a call left over (a pipeline that skipped that pass).
#include "legalize_util.h"

namespace rxt::legalize {

void RegisterBuiltinLegalizations(OpRegistry& r) {
  for (const char* name : {"call_kernel", "call_extern", "print", "assert", "view"}) {
    SetLegalization(r, name, [](LegalizeContext&, const CallNode&) { return Expr(); });
  }
  for (const char* name : {"checkpoint_start", "checkpoint_end"}) {
    SetLegalization(r, name, [](LegalizeContext&, const CallNode& call) { return call.args[0]; });
  }
  SetLegalization(r, "gradient_of", [](LegalizeContext&, const CallNode&) -> Expr {
    Throw(ErrorCode::kUnimplemented, "run the LowerGradientOf pass before LegalizeOps (rxt build does)");
  });
}

}  // namespace rxt::legalize
