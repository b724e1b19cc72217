// How often each variable is read in a function: what a rewrite checks before it folds a
// binding into the one that reads it (a value read once can be absorbed by its reader).
#pragma once

#include <unordered_map>

#include "rxt/ir/expr.h"

namespace rxt {

using VarUses = std::unordered_map<const VarNode*, int>;

/// The reads of every variable of |function| (parameters and bindings); a variable never read
/// is absent.
VarUses CountVarUses(const FunctionNode& function);

/// How often |uses| says |e| is read; 0 if |e| is not a variable.
int UsesOf(const VarUses& uses, const Expr& e);

}  // namespace rxt
