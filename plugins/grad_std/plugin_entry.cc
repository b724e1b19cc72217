// grad_std: the gradient rules of the core ops, one item per op (named after it). Every op
// family's rules are in its own file; docs/training.md lists them.
#include <vector>

#include "families.h"

namespace {

using namespace rxt::grad_std;

const std::vector<rxt_plugin_item_t>& AllRules() {
  static const std::vector<rxt_plugin_item_t> rules = [] {
    std::vector<rxt_plugin_item_t> all;
    for (auto family :
         {ElementwiseGradients, LinalgGradients, ManipulateGradients, IndexManipulateGradients, ReduceGradients,
          CreateGradients, NNGradients, ConvGradients, PoolGradients, NormGradients, LossGradients}) {
      std::span<const rxt_plugin_item_t> items = family();
      all.insert(all.end(), items.begin(), items.end());
    }
    return all;
  }();
  return rules;
}

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (host_abi_version < 2) {
    host->log(host->host, RXT_LOG_ERROR, "rxt_grad_std needs plugin ABI version 2 (typed gradient rules)");
    return nullptr;
  }
  static const rxt_plugin_descriptor_t descriptor = {sizeof(rxt_plugin_descriptor_t),
                                                     2,
                                                     "rxt_grad_std",
                                                     "0.1.0",
                                                     "Gradient rules of the core ops.",
                                                     nullptr,
                                                     0,
                                                     nullptr,
                                                     0,
                                                     AllRules().data(),
                                                     AllRules().size(),
                                                     nullptr,
                                                     0};
  return &descriptor;
}
