// AppendLoss (the seed's relax.training.AppendLoss): appends a loss function to a backbone
// function, so that the Gradient pass can differentiate the loss with respect to the
// backbone's parameters.
//
//   backbone(inputs..., params..., states...) -> output | (outputs..., updated_states...)
//   loss(outputs[:num_backbone_outputs]..., targets...) -> loss          (a 0-d float tensor)
//   =>  backbone_loss(inputs..., params..., states..., targets...)
//           -> loss | (loss, updated_states...)       (the tuple when the backbone returns states)
//
//   IRModule m = AppendLoss(module, "backbone", MakeLossFunction({"mse", ""}, out_sinfo));
//   // @backbone_loss(%x, %w, %b, %targets) -> Tensor((), float32)
//
// Beyond TVM, which requires exactly one dataflow block in each: the backbone and the loss may
// have any blocks (and If). When both are one dataflow block, so is the result (TVM's form).
// Variables are fresh: no variable is shared with the backbone or the loss.
#pragma once

#include <string>

#include "rxt/ir/module.h"
#include "rxt/pass/pass.h"

namespace rxt {

/// Adds @<new_func_name> (default "<func_name>_loss"; a function of that name is replaced).
/// The backbone's results beyond its first |num_backbone_outputs| are its updated states.
///
/// Errors (rxt::Error, messages starting "AppendLoss: "): kNotFound if @func_name is missing;
/// kInvalidArgument if num_backbone_outputs is not in [1, number of backbone results], the loss
/// has fewer parameters than that, a loss input's struct info does not match the backbone
/// output it receives, or the loss does not return a 0-d float tensor.
IRModule AppendLoss(IRModule module, const std::string& func_name, const Function& loss, int num_backbone_outputs = 1,
                    const std::string& new_func_name = "");

/// AppendLoss as a pass.
Pass AppendLoss(std::string func_name, Function loss, int num_backbone_outputs = 1, std::string new_func_name = "");

}  // namespace rxt
