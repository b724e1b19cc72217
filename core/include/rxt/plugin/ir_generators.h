// Calling plugins' IR generators (gradient rules, losses, optimizers: rxt/ir_builder.h) from
// C++: each call gets an IRBuilderHost over a BlockBuilder, and errors come back as rxt::Error
// naming the item and its plugin:
//
//   gradient rule 'matmul' (plugin grad_std): matmul: operands must not be scalar; ...
//
// The Call* functions emit into a builder positioned by the caller; the Build* functions make
// whole functions (a loss function, an optimizer's update function).
#pragma once

#include <string>
#include <vector>

#include "rxt/ir/builder.h"
#include "rxt/plugin/ir_builder_host.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/transform/training/providers.h"

namespace rxt {

/// "gradient rule 'matmul' (plugin grad_std)", "loss 'mse' (plugin loss_std)".
std::string DescribeItem(const PluginItem& item);

/// Takes the status an IR generator (or a library pattern's rewrite) returned; throws its
/// failure prefixed by |who|: the status's code and message (the builder's first error when the
/// message is empty), else the builder's error as an invalid argument.
void ThrowIfGeneratorFailed(const std::string& who, const IRBuilderHost& host, rxt_status_t status);

/// The item of |kind| named |name| among |plugins| (null: PluginHost::Global()). Throws
/// kNotFound naming the known items of that kind ("no loss named 'mse2' is loaded (known:
/// cross_entropy, l1, mse)"), or saying none is loaded and how to load some.
PluginItem FindTrainingItem(PluginItemKind kind, const std::string& name, const PluginHost* plugins = nullptr);

/// The FGradient attribute a gradient rule (a kGradient item) becomes: its emit calls
/// CallGradientRule; a rule of a plugin of ABI version 1 (untyped callbacks) has none.
FGradient GradientAttribute(const PluginItem& rule);

/// Calls the gradient rule |rule| (a kGradient item) for the binding `output = call`, where
/// |output_grad| is the output's adjoint (a tuple expression for an op with a tuple result);
/// what the rule builds goes into |builder|'s current block. Returns one adjoint per argument
/// of the call (see rxt_ir_api_t.num_args), null where none flows; each has the struct info of
/// its argument (checked). Throws kFailedPrecondition for a rule without a typed callback (a
/// plugin of ABI version 1); for a rule that fails, the code of the status it returned
/// (kInvalidArgument for an error it left in the builder); kInvalidArgument for a misfit.
std::vector<Expr> CallGradientRule(const PluginItem& rule, BlockBuilder& builder, const Expr& call,
                                   const Expr& output, const Expr& output_grad,
                                   IRBuilderHost::Options options = {});

/// What a loss builds: the target parameters it declared and the loss value.
struct GeneratedLoss {
  std::vector<Var> targets;
  Expr loss;
};

/// Calls the loss |loss| (a kLoss item) with |options| (attribute syntax) on |prediction|;
/// what it builds goes into |builder|'s current block.
GeneratedLoss CallLoss(const PluginItem& loss, BlockBuilder& builder, const std::string& options,
                       const Expr& prediction);

/// What an optimizer builds: the updated parameters and the state it declared (each state's
/// var is a free variable the caller binds to the state's current value).
struct GeneratedUpdate {
  std::vector<Expr> new_params;
  std::vector<IRBuilderHost::State> states;
};

/// Calls the optimizer |optimizer| (a kOptimizer item) with |options| on |params| and their
/// gradients |grads|; what it builds goes into |builder|'s current block.
GeneratedUpdate CallOptimizer(const PluginItem& optimizer, BlockBuilder& builder, const std::string& options,
                              const std::vector<Expr>& params, const std::vector<Expr>& grads);

/// The loss function `(predictions, <targets>...) -> loss`, one dataflow block.
Function BuildLossFunction(const PluginItem& loss, const std::string& options, const StructInfo& prediction);

/// The optimizer's update function (OptimizerFunction, transform/training/providers.h).
OptimizerFunction BuildOptimizerFunction(const PluginItem& optimizer, const std::string& options,
                                         const std::vector<StructInfo>& params);

}  // namespace rxt
