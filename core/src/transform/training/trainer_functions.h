// The functions SetupTrainer adds beyond TVM's (transform/training/setup_trainer.h): @predict and
// @train_step, built by inlining whole functions of the trainer module (function_inliner.h).
#pragma once

#include "rxt/ir/module.h"
#include "rxt/transform/training/training_components.h"
#include "trainer_backbone.h"

namespace rxt::training {

/// @predict(inputs..., params..., states...) -> output | (outputs...): @backbone without the
/// updated states (dead-code elimination then drops the work only they need), at inference:
/// nn.batch_norm on its moving statistics, nn.dropout without its seed (the identity).
Function BuildPredict(const BackboneLayout& layout, const IRModule& module);

/// How the gradients of several batches combine: those of the ranks of data-parallel training
/// (ccl.allreduce in buckets of at most |bucket_bytes|; with |overlap|, started as the backward
/// pass completes each bucket and waited for before the optimizer) and those of accumulated
/// micro-batches.
/// |reduction| is the loss's: "mean" averages the gradients and the loss, "sum" adds them, so
/// that either gives what one batch of all their samples would.
struct GradientCombination {
  bool data_parallel = false;
  int64_t bucket_bytes = 25 << 20;
  bool overlap = false;
  std::string reduction = "mean";
};

/// @train_step(inputs..., targets..., params..., states..., optim_states...)
///     -> (loss, params'..., updated_states'..., optim_states'...)
/// @backbone_loss_adjoint then the optimizer's update (|optimizer|), in one function. With data
/// parallelism the gradients and the loss are combined over the ranks between the two, and
/// the updated states averaged.
Function BuildTrainStep(const BackboneLayout& layout, const IRModule& module, const OptimizerInstance& optimizer,
                        const GradientCombination& combination);

/// @accumulate_step(inputs..., targets..., params..., states..., loss_sum, grad_sums...)
///     -> (loss, updated_states'..., loss_sum', grad_sums'...)
/// Forward and backward of one micro-batch: its loss and gradients added to the sums (a
/// grad_sum per parameter, shaped like it). No communication.
Function BuildAccumulateStep(const BackboneLayout& layout, const IRModule& module, const OptimizerInstance& optimizer);

/// @apply_step(loss_sum, grad_sums..., micro_batches, params..., states..., optim_states...)
///     -> (loss, params'..., states'..., optim_states'...)
/// The optimizer's update by the accumulated gradients: combined over the ranks (data
/// parallelism, one allreduce per bucket), then divided by micro_batches (a 0-d tensor of the
/// loss's dtype) when the reduction is "mean"; the loss likewise.
Function BuildApplyStep(const BackboneLayout& layout, const IRModule& module, const OptimizerInstance& optimizer,
                        const GradientCombination& combination);

}  // namespace rxt::training
