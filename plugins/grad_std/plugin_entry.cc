// grad_std: the gradient rules of the core ops, one item per op (named after it). Every op
// family's rules are in its own file; docs/training.md lists them.
#include <rxt/plugin_support/host.h>

#include <vector>

#include "families.h"

namespace {

using namespace rxt::grad_std;

const std::vector<const rxt_gradient_rule_t*>& AllRules() {
  static const std::vector<const rxt_gradient_rule_t*> rules = [] {
    std::vector<const rxt_gradient_rule_t*> all;
    for (auto family :
         {ElementwiseGradients, LinalgGradients, ManipulateGradients, IndexManipulateGradients, ReduceGradients,
          CreateGradients, NNGradients, ConvGradients, PoolGradients, NormGradients, LossGradients}) {
      for (const rxt_gradient_rule_t& rule : family()) all.push_back(&rule);
    }
    return all;
  }();
  return rules;
}

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "rxt_grad_std")) return nullptr;
  static const rxt_plugin_descriptor_t descriptor = {
      sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "rxt_grad_std", "0.1.0",
      "Gradient rules of the core ops.",
      nullptr, 0,                                  // optimizers
      nullptr, 0,                                  // losses
      AllRules().data(), AllRules().size(),        // gradient rules
      nullptr, 0,                                  // backends
      nullptr, 0,                                  // extern functions
      nullptr, 0,                                  // ops
      nullptr, 0};                                 // kernel libraries
  return &descriptor;
}
