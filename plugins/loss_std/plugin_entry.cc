// loss_std: the standard losses, one item each. docs/training.md ("Losses") documents them.
#include <vector>

#include "losses.h"

namespace {

const std::vector<rxt_plugin_item_t>& AllLosses() {
  static const std::vector<rxt_plugin_item_t> losses = [] {
    std::vector<rxt_plugin_item_t> all;
    for (auto family : {rxt::loss_std::RegressionLosses, rxt::loss_std::ClassificationLosses}) {
      std::span<const rxt_plugin_item_t> items = family();
      all.insert(all.end(), items.begin(), items.end());
    }
    return all;
  }();
  return losses;
}

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (host_abi_version < 2) {
    host->log(host->host, RXT_LOG_ERROR, "rxt_loss_std needs plugin ABI version 2 (losses as IR generators)");
    return nullptr;
  }
  static const rxt_plugin_descriptor_t descriptor = {
      sizeof(rxt_plugin_descriptor_t), 2, "rxt_loss_std", "0.1.0",
      "Standard losses: l1, mse, huber, cross_entropy, categorical_cross_entropy, nll, bce_with_logits.",
      nullptr, 0, AllLosses().data(), AllLosses().size(), nullptr, 0, nullptr, 0};
  return &descriptor;
}
