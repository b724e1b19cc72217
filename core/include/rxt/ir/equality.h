// Structural equality and hashing, modulo variable names.
//
// Two pieces of IR are equal when they have the same shape and the same values, up to a
// consistent renaming of variables: Relax variables, scalar variables (symbolic dims, loop
// variables, block iterators, scalar kernel parameters) and buffers are matched one-to-one,
// the pairing being fixed where a variable is first met. Spans and variable (and buffer)
// names are ignored; function names, block names, constants (bitwise), attributes (by value),
// struct info, module attributes and the order of module entries are not.
//
// StructuralEqual(a, b) implies StructuralHash(a) == StructuralHash(b).
#pragma once

#include <cstddef>

#include "rxt/ir/expr.h"
#include "rxt/ir/kernel.h"
#include "rxt/ir/module.h"
#include "rxt/ir/struct_info.h"

namespace rxt {

bool StructuralEqual(const IRModule& a, const IRModule& b);
bool StructuralEqual(const Function& a, const Function& b);
bool StructuralEqual(const KernelFunction& a, const KernelFunction& b);
/// Free variables in |a| and |b| are paired at first encounter, as everywhere else.
bool StructuralEqual(const Expr& a, const Expr& b);
bool StructuralEqual(const StructInfo& a, const StructInfo& b);
bool StructuralEqual(const PrimExpr& a, const PrimExpr& b);

size_t StructuralHash(const IRModule& m);
size_t StructuralHash(const Function& f);
size_t StructuralHash(const KernelFunction& k);
size_t StructuralHash(const Expr& e);
size_t StructuralHash(const StructInfo& s);
size_t StructuralHash(const PrimExpr& e);

}  // namespace rxt
