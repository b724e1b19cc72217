// Reverse-mode automatic differentiation by source transformation (the seed's
// relax.transform.Gradient): Gradient(module, "loss", require_grads) adds "loss_adjoint", which
// returns (original result, (adjoint of each required parameter)). docs/training.md has the
// long form; the pass by name is in transform/passes.h.
//
//   IRModule m = Gradient(module, "loss", std::vector<int>{1, 2, 3, 4, 5, 6});
//   // @loss_adjoint(%x, %w0, ...) -> ((loss), (d_w0, d_b0, ...))
//
// The target (the function's result, or field |target_index| of a tuple result) must be a 0-d
// float tensor. Gradient rules are the ops' FGradient attributes (transform/training/providers.h),
// which loaded plugins attach (plugins/grad_std provides the standard ones); the checkpoint
// markers (checkpoint_start / checkpoint_end) are built in.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rxt/ir/module.h"
#include "rxt/pass/pass.h"
#include "rxt/transform/training/providers.h"

namespace rxt {

/// Adds @<func>_adjoint to |module| (replacing one of that name). |require_grads| lists the
/// indices of the parameters to differentiate, in the order their adjoints are returned
/// (default: every float tensor parameter; the adjoint then lists the others, by name, in its
/// attribute gradient_skipped). Each op's rule is its
/// FGradient attribute as |rules| attached it (default: DefaultTrainingProvider(), the
/// process-wide plugin host).
///
/// Errors (rxt::Error, messages starting "Gradient: "): kNotFound for a missing function;
/// kInvalidArgument for a bad require_grads index, a duplicate, a parameter that takes no
/// gradient (not a float tensor), a target that is not a 0-d float tensor, a bad target_index,
/// unbalanced checkpoint markers, a gradient rule that fails; kUnimplemented listing every op
/// (and where it is used) that has no gradient rule.
IRModule Gradient(IRModule module, const std::string& func, std::optional<std::vector<int>> require_grads = std::nullopt,
                  int target_index = 0, const TrainingProvider* rules = nullptr);

/// Simplifies the transposes differentiation leaves behind (permute_dims of permute_dims,
/// matmul with transposed operands): see transform/passes.h, SimplifyTransposes.
IRModule SimplifyTransposes(IRModule module);

}  // namespace rxt
