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

/// @train_step(inputs..., targets..., params..., states..., optim_states...)
///     -> (loss, params'..., updated_states'..., optim_states'...)
/// @backbone_loss_adjoint then the optimizer's update (|optimizer|), in one function.
Function BuildTrainStep(const BackboneLayout& layout, const IRModule& module, const OptimizerInstance& optimizer);

}  // namespace rxt::training
