// The printer of the IR text format (`.rxt` files; grammar and examples in docs/ir.md).
//
// Printing is canonical and stable: parsing the text gives a structurally equal module, and
// printing that module again gives the same text, byte for byte.
#pragma once

#include <cstdint>
#include <string>

#include "rxt/ir/expr.h"
#include "rxt/ir/kernel.h"
#include "rxt/ir/module.h"
#include "rxt/ir/prim_expr.h"
#include "rxt/ir/struct_info.h"

namespace rxt {

struct PrintOptions {
  /// Constants with at most this many elements print inline (`const([1, 2], int64)`); larger
  /// ones print as `meta[i]` and their data goes to the `metadata` section at the end.
  int64_t max_inline_elements = 16;
  /// Without the metadata section the text is shorter but no longer parses (for quick looks).
  bool print_metadata = true;
};

/// The whole module: module attributes, then functions and kernels in module order, then
/// the metadata section.
std::string PrintModule(const IRModule& module, const PrintOptions& options = {});

/// One Relax function as it appears in a module, named |name|.
std::string PrintFunction(const Function& function, const std::string& name, const PrintOptions& options = {});
/// One kernel function as it appears in a module, named |name|.
std::string PrintKernel(const KernelFunction& kernel, const std::string& name, const PrintOptions& options = {});

/// A Relax expression on its own (for messages): variables print by their names, large
/// constants as a summary (`const(<Tensor((784, 128), float32)>)`). Bounded: past
/// kMaxMessageValueChars characters the rest is left out and the text ends with `…`.
std::string PrintExpr(const Expr& expr);

/// A struct info in full, as the text format writes it (`Tuple(Tensor((n, 4), float32), Object)`).
/// ToString(const StructInfo&) is the bounded form, for messages.
std::string PrintStructInfo(const StructInfo& sinfo);

/// An attribute value as a call's attributes write it: `[1, 2]`, `"NCHW"`, `float32`, `1e-05`.
std::string PrintAttrValue(const AttrValue& value);

/// A scalar expression: `n * 2`, `X[vi, vk] + 1f32`.
std::string ToString(const PrimExpr& expr);

/// A kernel statement (for messages), indented by two spaces per level.
std::string ToString(const Stmt& stmt);

// ToString(const StructInfo&) (bounded, for messages) is declared in struct_info.h and
// implemented by the printer.

}  // namespace rxt
