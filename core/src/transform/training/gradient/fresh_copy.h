// Copies of IR with fresh variables: the adjoint function starts as a copy of the function it
// differentiates (no variable is shared between two functions), and the backward pass
// recomputes an If binding as a copy whose free variables take new values.
#pragma once

#include <unordered_map>

#include "rxt/ir/expr.h"
#include "rxt/ir/module.h"

namespace rxt::gradient {

/// |function| with every parameter and binding variable, and every symbolic dim, replaced by a
/// fresh one of the same name (each function owns its variables and symbols). With
/// |keep_dataflow_vars| false every variable of the copy is an ordinary one (visible after its
/// block); the blocks keep their kinds.
Function CopyWithFreshVars(const Function& function, const IRModule* module, bool keep_dataflow_vars);

/// |e| with fresh variables for the bindings inside it (If branches) and every free variable
/// found in |values| replaced by its value (a leaf).
Expr CopyWithFreshVars(const Expr& e, const std::unordered_map<const VarNode*, Expr>& values,
                       const IRModule* module);

}  // namespace rxt::gradient
