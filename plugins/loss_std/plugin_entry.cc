// loss_std: the standard losses, one item each. docs/training.md ("Losses") documents them.
#include <rxt/plugin_support/host.h>

#include <vector>

#include "losses.h"

namespace {

const std::vector<const rxt_loss_t*>& AllLosses() {
  static const std::vector<const rxt_loss_t*> losses = [] {
    std::vector<const rxt_loss_t*> all;
    for (auto family : {rxt::loss_std::RegressionLosses, rxt::loss_std::ClassificationLosses}) {
      for (const rxt_loss_t& loss : family()) all.push_back(&loss);
    }
    return all;
  }();
  return losses;
}

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "rxt_loss_std")) return nullptr;
  static const rxt_plugin_descriptor_t descriptor = {
      sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "rxt_loss_std", "0.1.0",
      "Standard losses: l1, mse, huber, cross_entropy, categorical_cross_entropy, nll, bce_with_logits.",
      nullptr, 0, AllLosses().data(), AllLosses().size(), nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0};
  return &descriptor;
}
