/// WellFormed: runs the well-formed checker (ir/well_formed.h) and throws listing every
/// problem; a well-formed module passes through unchanged. Useful at the end of a pipeline
/// or between passes while debugging one.
#include "rxt/ir/well_formed.h"

#include "rxt/transform/passes.h"

namespace rxt {

Pass WellFormed() {
  return CreateModulePass(
      [](IRModule module) {
        VerifyWellFormed(module);
        return module;
      },
      "WellFormed");
}

}  // namespace rxt
