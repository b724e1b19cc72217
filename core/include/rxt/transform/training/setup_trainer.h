// SetupTrainer (the seed's relax.training.SetupTrainer): turns a backbone module into a trainer
// module, the IR half of training. The Trainer (train/trainer.h) builds and runs the result.
//
// The backbone module has a function @backbone and integer attributes param_num and
// state_num:
//   @backbone(inputs..., params..., states...) -> output | (outputs..., updated_states...)
// (input_num = number of parameters - param_num - state_num; the updated states come last,
// one per state). The trainer module keeps @backbone and adds
//   @backbone_loss(inputs..., params..., states..., targets...) -> loss | (loss, updated_states...)
//   @backbone_loss_adjoint(same) -> (backbone_loss's result, (d loss / d param, ...))
//   @optimizer(params: Tuple, gradients: Tuple, optim_states: Tuple) -> (params', optim_states')
//   @predict(inputs..., params..., states...) -> output | (outputs...)      (no states)
//   @train_step(inputs..., targets..., params..., states..., optim_states...)
//       -> (loss, params'..., updated_states'..., optim_states'...)         (all flat)
// and, with gradient accumulation (|accumulation|), @accumulate_step and @apply_step
// (trainer_functions.h has their signatures), and the module attributes input_num, param_num, state_num, target_num, output_num,
// optim_state (the initial optimizer state: an array of tensors), optim_state_names (their
// names: "lr", "weight_decay", "step", ...), gradient_reduction ("mean" or "sum") and, with
// data parallelism, data_parallel (the bucket size in bytes). Then, unless told not to, LegalizeOps. The
// function and attribute names are the constants below; docs/training.md has the contract.
//
//   IRModule trainer = SetupTrainer(backbone, {.loss = {"cross_entropy", "reduction=\"sum\""},
//                                              .optimizer = {"sgd", "lr=0.01, weight_decay=0.01"}});
#pragma once

#include <string>
#include <vector>

#include "rxt/ir/module.h"
#include "rxt/pass/pass.h"
#include "rxt/transform/training/training_components.h"

namespace rxt {

/// The names SetupTrainer gives (functions) and reads/writes (attributes).
namespace trainer_module {
inline constexpr const char* kBackbone = "backbone";
inline constexpr const char* kBackboneLoss = "backbone_loss";
inline constexpr const char* kAdjoint = "backbone_loss_adjoint";
inline constexpr const char* kOptimizer = "optimizer";
inline constexpr const char* kPredict = "predict";
inline constexpr const char* kTrainStep = "train_step";
inline constexpr const char* kAccumulateStep = "accumulate_step";
inline constexpr const char* kApplyStep = "apply_step";
inline constexpr const char* kInputNum = "input_num";
inline constexpr const char* kParamNum = "param_num";
inline constexpr const char* kStateNum = "state_num";
inline constexpr const char* kTargetNum = "target_num";
inline constexpr const char* kOutputNum = "output_num";
inline constexpr const char* kOptimState = "optim_state";
inline constexpr const char* kOptimStateNames = "optim_state_names";
inline constexpr const char* kGradientReduction = "gradient_reduction";
inline constexpr const char* kDataParallel = "data_parallel";
}  // namespace trainer_module

/// The default bucket of data-parallel training without overlap: one bucket is best there
/// (fewest messages); 25 MiB as PyTorch DDP's bucket_cap_mb.
inline constexpr int64_t kBucketBytes = int64_t{25} << 20;
/// The default bucket with overlap: small enough that the first starts early in the backward
/// pass, large enough that latency stays small (the cost model's best at 8-64 ranks,
/// docs/distributed.md).
inline constexpr int64_t kOverlappedBucketBytes = int64_t{1} << 20;

struct TrainerSetup {
  LossSpec loss;
  OptimizerSpec optimizer;
  /// The seed's loss_args: struct infos of the loss function's inputs (the backbone's output,
  /// then the targets). Optional: the loss declares its targets; when given, each must match.
  std::vector<StructInfo> loss_args;
  /// Run LegalizeOps at the end (the seed's default). A caller that builds with a kernel library
  /// (Build with libraries, e.g. "dnnl") passes false and lets the build pipeline legalize.
  bool legalize = true;
  /// Where losses, optimizers and gradient rules come from, e.g. a PluginHost (null: the
  /// process-wide one, DefaultTrainingProvider()).
  const TrainingProvider* plugins = nullptr;
  /// Data-parallel training (docs/distributed.md): @train_step (and @apply_step) combine the
  /// gradients and the loss over the ranks with ccl.allreduce before the optimizer (so
  /// clipping sees the combined gradients), and average the updated states.
  bool data_parallel = false;
  /// The most bytes of gradients one ccl.allreduce carries; 0: kOverlappedBucketBytes with
  /// |overlap|, else kBucketBytes.
  int64_t bucket_bytes = 0;
  /// With data_parallel: start each bucket's allreduce as soon as the backward pass has computed
  /// it (ccl.allreduce_start, moved there by the build's ScheduleCollectives) and wait for them
  /// all before the optimizer, so that the communication overlaps with the backward pass. Same
  /// results as without. Off by default: it pays where the network carries the allreduce while
  /// the cores compute, and costs where the cores do both (docs/distributed.md#overlap).
  bool overlap = false;
  /// "mean" or "sum": how the gradients and losses of several batches (ranks, micro-batches)
  /// combine. Empty: the loss's option "reduction" ("mean" if it has none).
  std::string gradient_reduction;
  /// Adds @accumulate_step and @apply_step: gradients of several micro-batches summed before
  /// one optimizer step (Trainer::Accumulate, ApplyAccumulated).
  bool accumulation = false;
};

/// The trainer module of |backbone| (see above).
///
/// Errors (rxt::Error, messages starting "SetupTrainer: "): kNotFound for a module without
/// @backbone and for an unknown loss or optimizer (listing the loaded ones); kInvalidArgument
/// for a missing or non-integer param_num/state_num, too few parameters, trained parameters
/// that are not float tensors of static shape, states that @backbone does not return (or
/// returns with another struct info), a loss whose inputs do not match the backbone's
/// outputs (or loss_args), a loss that is not a scalar, bad loss/optimizer options; and the
/// Gradient pass's errors (e.g. kUnimplemented for ops without a gradient rule).
IRModule SetupTrainer(IRModule backbone, const TrainerSetup& setup);

/// SetupTrainer as a pass.
Pass SetupTrainer(TrainerSetup setup);

}  // namespace rxt
