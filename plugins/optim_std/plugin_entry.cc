// optim_std: the standard optimizers, one item each. docs/training.md ("Optimizers") documents
// them.
#include <rxt/plugin_support/host.h>

#include <vector>

#include "update.h"

namespace {

const std::vector<const rxt_optimizer_t*>& AllOptimizers() {
  static const std::vector<const rxt_optimizer_t*> optimizers = [] {
    std::vector<const rxt_optimizer_t*> all;
    for (auto family : {rxt::optim_std::SgdOptimizers, rxt::optim_std::AdamOptimizers,
                        rxt::optim_std::RmspropOptimizers, rxt::optim_std::AdagradOptimizers}) {
      for (const rxt_optimizer_t& optimizer : family()) all.push_back(&optimizer);
    }
    return all;
  }();
  return optimizers;
}

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "rxt_optim_std")) return nullptr;
  static const rxt_plugin_descriptor_t descriptor = {
      sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "rxt_optim_std", "0.1.0",
      "Standard optimizers: sgd, momentum, adam, adamw, rmsprop, adagrad.", AllOptimizers().data(),
      AllOptimizers().size(), nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0};
  return &descriptor;
}
