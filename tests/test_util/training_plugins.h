// The standard training plugins (gradient rules, losses, optimizers) loaded once into a host of
// the tests' own, and a VM over the reference interpreter for modules built from them. The
// test binary defines RXT_GRAD_STD_PLUGIN, RXT_LOSS_STD_PLUGIN and RXT_OPTIM_STD_PLUGIN (paths).
#pragma once

#include <memory>

#include "test_util/reference_provider.h"
#include "rxt/exec/build.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/vm.h"

namespace rxt::test {

inline const PluginHost& TrainingPlugins() {
  static PluginHost* host = [] {
    auto* h = new PluginHost();
    for (const char* path : {RXT_GRAD_STD_PLUGIN, RXT_LOSS_STD_PLUGIN, RXT_OPTIM_STD_PLUGIN}) h->Load(path);
    return h;
  }();
  return *host;
}

/// A VM running |module| built for the reference backend (legalized only, opt_level 0, unless
/// |opt_level| says otherwise).
class ReferenceVM {
 public:
  explicit ReferenceVM(const IRModule& module, int opt_level = 0)
      : vm_(Build(module, {.backend = "reference", .opt_level = opt_level}), provider_) {}
  Value Invoke(const std::string& name, const std::vector<Value>& args) { return vm_.Invoke(name, args); }

 private:
  testing::ReferenceKernelProvider provider_;
  VirtualMachine vm_;
};

}  // namespace rxt::test
