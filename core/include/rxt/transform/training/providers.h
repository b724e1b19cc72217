// What the training transforms take from outside the compiler, as interfaces: an op's gradient
// rule is its FGradient attribute, losses and optimizers come by name from a TrainingProvider.
// The plugin host implements both (core/src/plugin/), so transforms never name it:
//
//   Gradient(module, "loss", std::nullopt, 0, &provider);   // the rules |provider| attached
//   Function loss = provider.BuildLoss("mse", "", prediction);
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rxt/ir/builder.h"
#include "rxt/ir/expr.h"

namespace rxt {

/// The op attribute holding an op's gradient rule. Each provider (plugin host) that loaded a
/// rule for the op attaches its own (OpDef::SetOwned<FGradient>(provider.gradient_owner(), ..)
/// inside OpRegistry::Extend), so two hosts with different plugins do not see each other's.
struct FGradient {
  /// Who provides it, for messages and `rxt ops`: "gradient rule 'exp' (plugin grad_std)".
  std::string origin;
  /// The plugin's name ("grad_std").
  std::string plugin;
  /// Writes the adjoint of each argument of |call| (bound as |output|, whose adjoint is
  /// |output_grad|) into |builder|'s current block; null where none flows. Throws rxt::Error
  /// naming |origin| when the rule fails or returns a misfit.
  std::function<std::vector<Expr>(BlockBuilder& builder, const Expr& call, const Expr& output,
                                  const Expr& output_grad, bool bind_outputs)>
      emit;
  /// Why the rule cannot be used (emit is null), e.g. "has no typed callback: a plugin of ABI
  /// version 1"; empty for a usable rule.
  std::string unusable;
};

/// One tensor of optimizer state: its name, struct info and initial value (every element).
struct OptimizerStateSpec {
  std::string name;
  StructInfo sinfo;
  double init = 0;
};

/// An optimizer's update function, as in the seed:
///   (params: Tuple(P...), gradients: Tuple(P...), optim_states: Tuple(S...))
///       -> Tuple(Tuple(P...), Tuple(S...))
/// with the states in declaration order.
struct OptimizerFunction {
  Function function;
  std::vector<OptimizerStateSpec> states;
  std::string origin;  // "optimizer 'sgd' (plugin optim_std)", for messages
};

/// Losses and optimizers by name, and the owner of the gradient rules to use.
class TrainingProvider {
 public:
  virtual ~TrainingProvider() = default;

  /// The key of the FGradient attributes this provider attached.
  const void* gradient_owner() const { return this; }

  /// The loss function `(predictions, targets...) -> loss` of the loss |name| with |options|
  /// (attribute syntax). Throws kNotFound naming the known losses, or an error naming the loss.
  virtual Function BuildLoss(const std::string& name, const std::string& options,
                             const StructInfo& prediction) const = 0;
  /// The update function of the optimizer |name| for parameters of struct info |params|.
  virtual OptimizerFunction BuildOptimizer(const std::string& name, const std::string& options,
                                           const std::vector<StructInfo>& params) const = 0;
};

/// The provider used when a transform is given none: the process-wide plugin host. Declared
/// here, defined by the plugin layer (core/src/plugin/plugin_host.cc).
const TrainingProvider& DefaultTrainingProvider();

}  // namespace rxt
