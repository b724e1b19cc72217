// Passes: named module-to-module transformations, composed with Sequential.
//
//   Pass dce = CreateModulePass(EliminateDeadCode, "DeadCodeElimination", 1);
//   IRModule out = Sequential({Normalize(), dce})(module, ctx);
//
// Every run of a pass goes through its context's instruments (timing, printing, checking);
// Sequential also skips the passes the context disables (by name or by opt_level) and runs
// the passes each one requires first.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rxt/ir/module.h"
#include "rxt/pass/context.h"

namespace rxt {

struct PassInfo {
  std::string name;
  /// The lowest PassContext::opt_level at which Sequential runs the pass.
  int opt_level = 0;
  /// Passes (by name, see transform/passes.h) that Sequential runs before this one unless
  /// they already ran earlier in the same sequence.
  std::vector<std::string> required;
  /// One line saying what the pass does (ListPasses() fills it for the built-in passes).
  std::string summary;
};

class Pass {
 public:
  using Fn = std::function<IRModule(IRModule, const PassContext&)>;
  Pass(PassInfo info, Fn fn);

  const PassInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }

  /// Runs the pass (whatever the context's opt_level and disabled passes say: those gate
  /// passes inside a Sequential) with the context's instruments around it.
  IRModule operator()(IRModule module, const PassContext& context = PassContext()) const;

 private:
  PassInfo info_;
  Fn fn_;
};

/// A pass from a whole-module function.
Pass CreateModulePass(std::function<IRModule(IRModule)> fn, std::string name, int opt_level = 0,
                      std::vector<std::string> required = {});
Pass CreateModulePass(std::function<IRModule(IRModule, const PassContext&)> fn, std::string name, int opt_level = 0,
                      std::vector<std::string> required = {});

/// A pass applying |fn| to every Relax function of the module (kernels are left alone);
/// |module| is the input module, for looking up callees.
using FunctionPassFn = std::function<Function(const Function& function, const IRModule& module, const PassContext&)>;
Pass CreateFunctionPass(FunctionPassFn fn, std::string name, int opt_level = 0, std::vector<std::string> required = {});

/// Runs |passes| in order, skipping those the context disables.
Pass Sequential(std::vector<Pass> passes, std::string name = "Sequential", int opt_level = 0);

}  // namespace rxt
