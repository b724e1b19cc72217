// The parser of the IR text format (`.rxt` files; grammar and examples in docs/ir.md).
#pragma once

#include <string>
#include <string_view>

#include "rxt/ir/module.h"

namespace rxt {

/// Parses a whole module. Relax functions are built with the BlockBuilder, so every binding
/// gets its struct info inferred (an annotation, when written, must be a base of it).
///
/// Errors throw rxt::Error (kInvalidArgument) whose message starts with the position:
///   "model.rxt:3:14: error: expected ')' but found '%y'"
///   "model.rxt:7:5: error: matmul: ..." (struct-info inference errors of ops)
/// Any input, however malformed, gives a module or such an error; never a crash.
IRModule ParseModule(std::string_view text, const std::string& file_name = "<input>");

}  // namespace rxt
