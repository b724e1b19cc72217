// Passes by name: the table behind `rxt show --passes`, the C ABI's rxt_module_run_passes and
// the passes a pass requires (PassInfo::required). The compiler's initialisation
// (core/src/transform/compiler_init.cc) fills the one instance with every pass of
// transform/passes.h and freezes it.
//
//   Pass dce = CreatePass("DeadCodeElimination");
//   IRModule out = RunPasses(module, {"Normalize", "DeadCodeElimination"}, context);
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rxt/pass/pass.h"

namespace rxt {

/// An option a pass takes by name (pass/pass_list.h): `Gradient(func_name=main)`.
struct PassOptionSpec {
  std::string name;
  std::string doc;  // kind and meaning, one line
};

struct PassEntry {
  std::string name;
  std::string summary;  // one line
  std::function<Pass()> create;
  std::vector<PassOptionSpec> options = {};
};

class PassRegistry {
 public:
  /// The process-wide table, every pass of transform/passes.h; defined (filled and frozen on
  /// first use) by the compiler's initialisation.
  static PassRegistry& Global();

  /// Adds a pass; kAlreadyExists for a taken name, kFailedPrecondition once frozen.
  void Register(PassEntry entry);
  /// Ends initialisation: the table no longer changes, so any thread may read it.
  void Freeze() { frozen_ = true; }

  /// Every pass in registration order: name, opt_level, required passes and summary.
  std::vector<PassInfo> List() const;
  /// The pass named |name|; throws kNotFound naming the closest pass and every pass.
  Pass Create(const std::string& name) const;
  /// Its entry (options, summary); throws as Create does.
  const PassEntry& Entry(const std::string& name) const;

 private:
  std::vector<PassEntry> entries_;
  bool frozen_ = false;
};

/// PassRegistry::Global().List().
std::vector<PassInfo> ListPasses();

/// PassRegistry::Global().Create(name).
Pass CreatePass(const std::string& name);

/// Runs the named passes in order as one Sequential under |context|. A name may carry options
/// and several passes (pass/pass_list.h: "Gradient(func_name=main), SimplifyTransposes").
IRModule RunPasses(IRModule module, const std::vector<std::string>& names, const PassContext& context = PassContext());

}  // namespace rxt
