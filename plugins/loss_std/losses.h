// The losses of loss_std, their shared reduction, and how each becomes a plugin item. Every
// loss follows PyTorch's torch.nn loss of the same name (docs/training.md, "Losses", lists
// the options and every difference from TVM's relax.training.loss).
#pragma once

#include <rxt/plugin.h>

#include <span>

#include <rxt/plugin_support/generator.h>

namespace rxt::loss_std {

using plugin_support::Expr;
using plugin_support::Generator;

/// PyTorch's reduction: the mean or the sum of every element, or the elements as they are.
enum class Reduction { kMean, kSum, kNone };

/// Option "reduction" ("mean" unless given); fails on any other value.
Reduction ReadReduction(Generator& g);
const char* ReductionName(Reduction r);
/// |elements| reduced over every axis (kNone: unchanged).
Expr Reduce(Generator& g, Expr elements, Reduction r);

/// Fails unless |prediction| is a float tensor of known ndim (at least |min_ndim|).
void RequireFloatPrediction(Generator& g, Expr prediction, int min_ndim);

using LossBody = void (*)(Generator& g, Expr prediction, Expr* loss);

template <LossBody Body>
rxt_status_t LossCallback(void* /*state*/, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                          rxt_ir_expr_t prediction, rxt_ir_expr_t* loss) {
  return plugin_support::RunGenerator(ir, b, options, [&](Generator& g) { Body(g, prediction, loss); });
}

/// The vtable of the loss |name| built by |body|.
#define RXT_LOSS(name, summary, body) \
  rxt_loss_t { sizeof(rxt_loss_t), name, summary, nullptr, &LossCallback<body> }

/// l1, mse, huber.
std::span<const rxt_loss_t> RegressionLosses();
/// cross_entropy, categorical_cross_entropy, nll, bce_with_logits.
std::span<const rxt_loss_t> ClassificationLosses();

}  // namespace rxt::loss_std
