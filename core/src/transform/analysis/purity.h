// Whether evaluating an expression can have side effects; shared by the passes that move
// or delete bindings (DeadCodeElimination, ConvertToDataflow).
#pragma once

#include "rxt/ir/expr.h"
#include "rxt/ir/module.h"

namespace rxt {

/// False for a call to an impure op (FPurity{false}), to an impure module function, to a
/// variable whose signature is impure or unknown, and for an If either branch of which
/// holds such a call; true for every other expression.
bool IsPure(const Expr& value, const IRModule& module);

}  // namespace rxt
