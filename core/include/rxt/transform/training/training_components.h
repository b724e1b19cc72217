// Losses and optimizers by name: the seed's Loss and Optimizer objects, made by a
// TrainingProvider (transform/training/providers.h; the plugin host, from plugins/loss_std,
// plugins/optim_std or a user's own). Options are text in the attribute syntax
// ("reduction=\"sum\"", "lr=0.01, weight_decay=0.01").
//
//   Function loss = MakeLossFunction({"cross_entropy", "reduction=\"sum\""}, out_sinfo);
//   // @loss(%predictions: Tensor((64, 10), float32), %targets: Tensor((64,), int64))
//   OptimizerInstance sgd = MakeOptimizer({"sgd", "lr=0.1"}, param_sinfos);
//   // sgd.function: (params, gradients, optim_states) -> (params', optim_states')
//   // sgd.state: the initial optim_states (lr, weight_decay, step, ...)
#pragma once

#include <string>
#include <vector>

#include "rxt/ir/expr.h"
#include "rxt/transform/training/providers.h"

namespace rxt {

/// A loss item by name, with its options.
struct LossSpec {
  std::string name;
  std::string options;
};

/// An optimizer item by name, with its options.
struct OptimizerSpec {
  std::string name;
  std::string options;
};

/// The loss function `(predictions, targets...) -> loss` for a prediction of struct info
/// |prediction| (the seed's `CrossEntropyLoss(reduction="sum")(out_sinfo, label_sinfo)`; the
/// loss declares its targets), from |provider| (null: DefaultTrainingProvider()). Throws
/// kNotFound naming the known losses ("no loss named 'mse2' is loaded (known: cross_entropy,
/// l1, mse)"), or saying none is loaded and how to load some; other errors name the loss and
/// its plugin.
Function MakeLossFunction(const LossSpec& loss, const StructInfo& prediction,
                          const TrainingProvider* provider = nullptr);

/// An optimizer set up for given parameters (the seed's `SGD(0.1).init(params)`).
struct OptimizerInstance {
  /// (params: Tuple(P...), gradients: Tuple(P...), optim_states: Tuple(S...))
  ///     -> Tuple(Tuple(P...), Tuple(S...))      (the seed's get_function())
  Function function;
  /// Each state's name ("lr", "weight_decay", "step", "exp_avg.0", ...), in tuple order.
  std::vector<std::string> state_names;
  /// The initial optim_states (the seed's opt.state).
  std::vector<Tensor> state;
};

/// Throws as MakeLossFunction; kInvalidArgument when a state's shape is not static.
OptimizerInstance MakeOptimizer(const OptimizerSpec& optimizer, const std::vector<StructInfo>& params,
                                const TrainingProvider* provider = nullptr);

/// One tensor per state: its static shape and dtype, every element its init value.
std::vector<Tensor> InitialOptimizerState(const std::vector<OptimizerStateSpec>& states);

}  // namespace rxt
