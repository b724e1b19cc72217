// optim_std: the standard optimizers, one item each. docs/training.md ("Optimizers") documents
// them.
#include <vector>

#include "update.h"

namespace {

const std::vector<rxt_plugin_item_t>& AllOptimizers() {
  static const std::vector<rxt_plugin_item_t> optimizers = [] {
    std::vector<rxt_plugin_item_t> all;
    for (auto family : {rxt::optim_std::SgdOptimizers, rxt::optim_std::AdamOptimizers,
                        rxt::optim_std::RmspropOptimizers, rxt::optim_std::AdagradOptimizers}) {
      std::span<const rxt_plugin_item_t> items = family();
      all.insert(all.end(), items.begin(), items.end());
    }
    return all;
  }();
  return optimizers;
}

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (host_abi_version < 2) {
    host->log(host->host, RXT_LOG_ERROR, "rxt_optim_std needs plugin ABI version 2 (optimizers as IR generators)");
    return nullptr;
  }
  static const rxt_plugin_descriptor_t descriptor = {
      sizeof(rxt_plugin_descriptor_t), 2, "rxt_optim_std", "0.1.0",
      "Standard optimizers: sgd, momentum, adam, adamw, rmsprop, adagrad.", AllOptimizers().data(),
      AllOptimizers().size(), nullptr, 0, nullptr, 0, nullptr, 0};
  return &descriptor;
}
