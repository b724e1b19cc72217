// The rules of each op family (one file per family, named like the ops' files in core/src/op);
// plugin_entry.cc registers them all.
#pragma once

#include <rxt/plugin.h>

#include <span>

namespace rxt::grad_std {

std::span<const rxt_plugin_item_t> ElementwiseGradients();
std::span<const rxt_plugin_item_t> LinalgGradients();
std::span<const rxt_plugin_item_t> ManipulateGradients();
std::span<const rxt_plugin_item_t> IndexManipulateGradients();
std::span<const rxt_plugin_item_t> ReduceGradients();
std::span<const rxt_plugin_item_t> CreateGradients();
std::span<const rxt_plugin_item_t> NNGradients();
std::span<const rxt_plugin_item_t> ConvGradients();
std::span<const rxt_plugin_item_t> PoolGradients();
std::span<const rxt_plugin_item_t> NormGradients();
std::span<const rxt_plugin_item_t> LossGradients();

}  // namespace rxt::grad_std
