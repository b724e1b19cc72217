// The rules of each op family (one file per family, named like the ops' files in core/src/op);
// plugin_entry.cc registers them all.
#pragma once

#include <rxt/plugin.h>

#include <span>

namespace rxt::grad_std {

std::span<const rxt_gradient_rule_t> ElementwiseGradients();
std::span<const rxt_gradient_rule_t> LinalgGradients();
std::span<const rxt_gradient_rule_t> ManipulateGradients();
std::span<const rxt_gradient_rule_t> IndexManipulateGradients();
std::span<const rxt_gradient_rule_t> ReduceGradients();
std::span<const rxt_gradient_rule_t> CreateGradients();
std::span<const rxt_gradient_rule_t> NNGradients();
std::span<const rxt_gradient_rule_t> ConvGradients();
std::span<const rxt_gradient_rule_t> PoolGradients();
std::span<const rxt_gradient_rule_t> NormGradients();
std::span<const rxt_gradient_rule_t> LossGradients();

}  // namespace rxt::grad_std
